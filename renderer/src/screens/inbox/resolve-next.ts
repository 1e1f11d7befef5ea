import type { Conversation } from '../../../../shared/schemas/index.ts';
import { api } from '../../api/client.ts';
import { useInbox } from '../../stores/inbox.ts';
import { useThread } from '../../stores/thread.ts';
import { notify } from '../../stores/toasts.ts';

const isMac = /Mac|iPhone|iPad/.test(navigator.platform);
/** The keys of "Send and resolve, then next", in words and as the keyboard's glyphs. */
export const RESOLVE_NEXT_KEYS = isMac ? '⌘⇧Enter' : 'Ctrl+Shift+Enter';
export const RESOLVE_NEXT_GLYPHS = isMac ? '⌘⇧↵' : '⌃⇧↵';

/**
 * The conversation to open after `id` is resolved: the next row of the list on screen that is not
 * resolved, else (at the bottom) the nearest such row above it; null when there is none.
 */
export function nextOpenAfter(conversations: readonly Conversation[], id: string): string | null {
  const index = conversations.findIndex((c) => c.id === id);
  const waiting = (c: Conversation) => c.id !== id && c.status !== 'resolved';
  const below = conversations.slice(index + 1).find(waiting);
  if (below) return below.id;
  return conversations.slice(0, Math.max(0, index)).reverse().find(waiting)?.id ?? null;
}

/**
 * Resolves `id` and, if it is still the one open, opens the next conversation waiting in the list
 * (picked before the resolve moves the rows). Throws the API's error when the resolve fails.
 */
export async function resolveAndOpenNext(id: string): Promise<void> {
  const next = nextOpenAfter(useInbox.getState().conversations, id);
  const updated = await api.conversations.patch(id, { status: 'resolved' });
  useInbox.getState().apply(updated);
  const thread = useThread.getState();
  if (thread.conversationId !== id) return;
  thread.apply(updated);
  if (next) thread.open(next);
  else notify('success', 'Resolved. No other open conversation in this list.');
}
