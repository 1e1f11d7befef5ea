import { Fragment, useLayoutEffect, useMemo, useRef } from 'react';
import type { Agent, Message } from '../../../../shared/schemas/index.ts';
import { dayKey, dayLabel, isNote, MessageBubble } from '../../components/message-bubble.tsx';
import { useNow } from '../../components/use-now.ts';
import { useAgents } from '../../stores/agents.ts';
import { useThread } from '../../stores/thread.ts';
import { notifyError } from '../../stores/toasts.ts';

/** Load older messages once the top is this close (px) while scrolling up. */
const LOAD_OLDER_AT = 120;

/** Who sent an outbound message or wrote a note, for the label above it; null for inbound. */
function senderOf(message: Message, agents: ReadonlyMap<string, Agent>): string | null {
  if (message.direction === 'inbound' && !isNote(message)) return null;
  if (message.sentBy === 'bot') return 'Bot';
  if (message.sentBy === 'api') return 'API';
  if (message.agentId) return agents.get(message.agentId)?.name ?? 'Agent';
  return 'Agent';
}

/** The open conversation, oldest at the top; stays pinned to the newest unless scrolled up. */
export function ThreadMessages() {
  const messages = useThread((s) => s.messages);
  const status = useThread((s) => s.status);
  const nextCursor = useThread((s) => s.nextCursor);
  const loadingOlder = useThread((s) => s.loadingOlder);
  const loadOlder = useThread((s) => s.loadOlder);
  const agentList = useAgents((s) => s.agents);
  const agents = useMemo(() => new Map(agentList.map((a) => [a.id, a])), [agentList]);
  const now = useNow(60_000);
  const scrollRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const anchor = useRef<{ firstId: string | undefined; height: number }>({
    firstId: undefined,
    height: 0,
  });

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const firstId = messages[0]?.id;
    if (anchor.current.firstId && firstId !== anchor.current.firstId && !pinned.current) {
      // Older messages were prepended: keep the one that was on screen where it was.
      el.scrollTop += el.scrollHeight - anchor.current.height;
    } else if (pinned.current) {
      el.scrollTop = el.scrollHeight;
    }
    anchor.current = { firstId, height: el.scrollHeight };
  }, [messages]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    if (el.scrollTop < LOAD_OLDER_AT && nextCursor && !loadingOlder && status === 'ready') {
      loadOlder().catch(notifyError);
    }
  };

  return (
    <div
      className="inbox-thread-scroll wa-wallpaper"
      ref={scrollRef}
      onScroll={onScroll}
      data-testid="thread-messages"
    >
      {nextCursor ? (
        <div className="thread-older">
          <button
            type="button"
            className="button button-small"
            disabled={loadingOlder}
            onClick={() => {
              pinned.current = false;
              loadOlder().catch(notifyError);
            }}
            data-testid="load-older"
          >
            {loadingOlder ? 'Loading…' : 'Load older messages'}
          </button>
        </div>
      ) : status === 'ready' && messages.length > 0 ? (
        <div className="thread-start">Start of the conversation</div>
      ) : null}
      {status === 'loading' && messages.length === 0 ? (
        <p className="wa-placeholder">Loading messages…</p>
      ) : null}
      {status === 'ready' && messages.length === 0 ? (
        <p className="wa-placeholder" data-testid="thread-empty">
          No messages yet.
        </p>
      ) : null}
      {messages.map((message, i) => {
        const previous = messages[i - 1];
        const newDay = !previous || dayKey(previous.createdAt) !== dayKey(message.createdAt);
        const sender = senderOf(message, agents);
        // A run of messages from one sender is labelled once.
        const sameSender =
          !newDay &&
          previous !== undefined &&
          !isNote(previous) &&
          !isNote(message) &&
          previous.direction === message.direction &&
          senderOf(previous, agents) === sender;
        return (
          <Fragment key={message.id}>
            {newDay ? (
              <div className="wa-day" data-testid="day-separator">
                {dayLabel(message.createdAt, now)}
              </div>
            ) : null}
            <MessageBubble
              message={message}
              sender={sameSender ? undefined : (sender ?? undefined)}
            />
          </Fragment>
        );
      })}
    </div>
  );
}
