import { useEffect } from 'react';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { useInbox } from '../../stores/inbox.ts';
import { changeConversation as change, useThread } from '../../stores/thread.ts';
import { REPLY_INPUT_ID } from './reply-composer.tsx';

export const SEARCH_INPUT_SELECTOR = '[data-testid="inbox-search"]';

const isTyping = (target: EventTarget | null): target is HTMLElement =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/** Moves the selection through the list: +1 is the next (older) conversation. */
export function step(delta: 1 | -1): void {
  const { conversations } = useInbox.getState();
  if (conversations.length === 0) return;
  const { conversationId, open } = useThread.getState();
  const index = conversations.findIndex((c) => c.id === conversationId);
  const next = index < 0 ? 0 : Math.min(conversations.length - 1, Math.max(0, index + delta));
  if (next !== index) open(conversations[next]!.id);
}

/**
 * The inbox's single-key shortcuts: j / k, r, e, a, x, / and ?, and Esc to clear the selection.
 * Ignored while typing (Esc leaves the text box) and while a dialog is open.
 */
export function useInboxShortcuts(showHelp: () => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const dialogOpen = document.querySelector('dialog[open]') !== null;
      if (isTyping(event.target)) {
        if (event.key === 'Escape' && !dialogOpen) event.target.blur();
        return;
      }
      if (dialogOpen) return;
      const { conversation } = useThread.getState();
      switch (event.key) {
        case 'j':
          step(1);
          break;
        case 'k':
          step(-1);
          break;
        case 'r': {
          const input = document.getElementById(REPLY_INPUT_ID);
          if (!input) return;
          input.focus();
          break;
        }
        case 'e':
          if (!conversation) return;
          if (conversation.status !== 'resolved') change({ status: 'resolved' });
          break;
        case 'a': {
          const meId = selectMemberId(useSession.getState());
          if (!conversation || !meId) return;
          if (conversation.assignee !== meId) change({ assignee: 'me' });
          break;
        }
        case 'x': {
          // Ticks the open conversation for a bulk action.
          const id = useThread.getState().conversationId;
          if (!id) return;
          useInbox.getState().toggleSelected(id);
          break;
        }
        case 'Escape': {
          // Ends a bulk selection (a run's report stays until it leaves by itself).
          const inbox = useInbox.getState();
          if (inbox.selection.size === 0) return;
          inbox.clearSelection();
          break;
        }
        case '/':
          document.querySelector<HTMLInputElement>(SEARCH_INPUT_SELECTOR)?.focus();
          break;
        case '?':
          showHelp();
          break;
        default:
          return;
      }
      // The key did its job: it must not also type into whatever now has the focus.
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [showHelp]);
}
