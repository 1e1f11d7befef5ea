import { useEffect, useMemo } from 'react';
import { api } from '../../api/client.ts';
import { Avatar } from '../../components/avatar.tsx';
import { useAgents } from '../../stores/agents.ts';
import {
  SIGNAL_EVERY_MS,
  typingText,
  viewersIn,
  viewingText,
} from '../../stores/viewer-signals.ts';
import { useViewers } from '../../stores/viewers.ts';

/**
 * While a conversation is open (and the window shown): tells the others every 3 s that this
 * member is viewing it, and reads who else is there as it opens.
 */
export function useViewingSignal(conversationId: string | null): void {
  useEffect(() => {
    if (!conversationId) return;
    void useViewers.getState().loadViewers(conversationId);
    const say = (): void => {
      if (document.visibilityState !== 'visible') return;
      api.conversations.viewing(conversationId).catch(() => {
        // Best effort: the next beat says it again.
      });
    };
    say();
    const beat = window.setInterval(say, SIGNAL_EVERY_MS);
    const onVisible = (): void => {
      if (document.visibilityState === 'visible') say();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearInterval(beat);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [conversationId]);
}

export interface NamedViewer {
  memberId: string;
  name: string;
  typing: boolean;
}

/** Names members by the assignee list, else by what the viewers read said. */
function useNameOf(): (memberId: string) => string {
  const agents = useAgents((s) => s.agents);
  const names = useViewers((s) => s.names);
  return useMemo(() => {
    const byId = new Map(agents.map((a) => [a.id, a.name]));
    return (memberId: string) => byId.get(memberId) ?? names[memberId] ?? 'A teammate';
  }, [agents, names]);
}

/** Who else is in the conversation now, named. */
export function useConversationViewers(conversationId: string): NamedViewer[] {
  const members = useViewers((s) => s.signals[conversationId]);
  const nameOf = useNameOf();
  return useMemo(
    () =>
      members
        ? viewersIn({ [conversationId]: members }, conversationId).map((v) => ({
            ...v,
            name: nameOf(v.memberId),
          }))
        : [],
    [members, conversationId, nameOf],
  );
}

/**
 * Every conversation someone else is in, with their names as one line ("Ana is viewing"), for
 * the conversation list's rows.
 */
export function useViewingByConversation(): ReadonlyMap<string, string> {
  const signals = useViewers((s) => s.signals);
  const nameOf = useNameOf();
  return useMemo(() => {
    const lines = new Map<string, string>();
    for (const conversationId of Object.keys(signals)) {
      const names = viewersIn(signals, conversationId).map((v) => nameOf(v.memberId));
      if (names.length > 0) lines.set(conversationId, viewingText(names));
    }
    return lines;
  }, [signals, nameOf]);
}

/** The avatars of who else is viewing the conversation, in its header. */
export function ThreadViewers({ conversationId }: { conversationId: string }) {
  const viewers = useConversationViewers(conversationId);
  if (viewers.length === 0) return null;
  const shown = viewers.slice(0, 4);
  const more = viewers.length - shown.length;
  const line = viewingText(viewers.map((v) => v.name));
  return (
    <div className="thread-viewers" title={line} data-testid="thread-viewers">
      <span className="visually-hidden">{line}</span>
      {shown.map((v) => (
        <span
          key={v.memberId}
          className={`thread-viewer${v.typing ? ' typing' : ''}`}
          data-testid="thread-viewer"
          data-member-id={v.memberId}
          data-typing={v.typing}
        >
          <Avatar name={v.name} colorKey={v.memberId} size="small" />
        </span>
      ))}
      {more > 0 ? (
        <span className="thread-viewer-more" aria-hidden="true">
          +{more}
        </span>
      ) : null}
    </div>
  );
}

/**
 * "Ana is typing…" above the composer. The live region is always there (empty when nobody
 * types) so a screen reader hears it come, politely.
 */
export function TypingIndicator({ conversationId }: { conversationId: string }) {
  const viewers = useConversationViewers(conversationId);
  const text = typingText(viewers.filter((v) => v.typing).map((v) => v.name));
  return (
    <p
      className={`typing-indicator${text ? '' : ' empty'}`}
      aria-live="polite"
      data-testid="typing-indicator"
    >
      {text ? (
        <>
          <span className="typing-dots" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          {text}
        </>
      ) : null}
    </p>
  );
}
