import { Fragment, useLayoutEffect, useRef } from 'react';
import { dayKey, dayLabel, MessageBubble } from '../../components/message-bubble.tsx';
import { useMessages } from '../../stores/messages.ts';
import { notifyError } from '../../stores/toasts.ts';

/** The conversation, oldest at the top; stays pinned to the newest message unless scrolled up. */
export function MessageThread() {
  const messages = useMessages((s) => s.messages);
  const status = useMessages((s) => s.status);
  const nextCursor = useMessages((s) => s.nextCursor);
  const loadingOlder = useMessages((s) => s.loadingOlder);
  const loadOlder = useMessages((s) => s.loadOlder);
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
  };

  return (
    <div
      className="thread wa-wallpaper"
      ref={scrollRef}
      onScroll={onScroll}
      data-testid="message-thread"
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
      ) : null}
      {status === 'loading' ? <p className="wa-placeholder">Loading messages…</p> : null}
      {status === 'ready' && messages.length === 0 ? (
        <p className="wa-placeholder" data-testid="thread-empty">
          No messages yet. A conversation starts with an approved template.
        </p>
      ) : null}
      {messages.map((message, i) => {
        const previous = messages[i - 1];
        const newDay = !previous || dayKey(previous.createdAt) !== dayKey(message.createdAt);
        return (
          <Fragment key={message.id}>
            {newDay ? <div className="wa-day">{dayLabel(message.createdAt)}</div> : null}
            <MessageBubble message={message} />
          </Fragment>
        );
      })}
    </div>
  );
}
