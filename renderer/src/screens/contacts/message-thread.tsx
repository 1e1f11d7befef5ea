import { Fragment, useLayoutEffect, useRef } from 'react';
import type { Message } from '../../../../shared/schemas/index.ts';
import { formatMicros } from '../../../../shared/money.ts';
import { formatDate } from '../../components/format.ts';
import { Ticks } from '../../components/ticks.tsx';
import { formatClock, formatInline } from '../../components/whatsapp-preview.tsx';
import { useMessages } from '../../stores/messages.ts';
import { notifyError } from '../../stores/toasts.ts';

const dayKey = (iso: string): string => new Date(iso).toDateString();

function dayLabel(iso: string): string {
  const day = new Date(iso);
  const today = new Date();
  const yesterday = new Date(today.getTime() - 86_400_000);
  if (day.toDateString() === today.toDateString()) return 'Today';
  if (day.toDateString() === yesterday.toDateString()) return 'Yesterday';
  return formatDate(iso);
}

/** An internal note: seen by agents only, never sent to the contact. */
function Note({ message }: { message: Message }) {
  return (
    <div
      className="wa-note"
      data-testid="message"
      data-direction="note"
      data-message-id={message.id}
    >
      <span className="wa-note-label">Private note</span>
      <span className="wa-body">{formatInline(message.text)}</span>
      <time dateTime={message.createdAt}>{formatClock(new Date(message.createdAt))}</time>
    </div>
  );
}

function Bubble({ message }: { message: Message }) {
  if (message.type === 'note' || message.status === 'note') return <Note message={message} />;
  const outbound = message.direction === 'outbound';
  return (
    <div
      className={`wa-group ${outbound ? 'wa-group-out' : 'wa-group-in'}`}
      data-testid="message"
      data-direction={message.direction}
      data-status={message.status}
      data-message-id={message.id}
    >
      <div className={`wa-bubble ${outbound ? 'wa-bubble-out' : 'wa-bubble-in'}`}>
        {message.type === 'template' && message.templateName ? (
          <div className="wa-template-tag" title="Template message">
            {message.templateName}
          </div>
        ) : null}
        <div className="wa-body" data-testid="message-text">
          {formatInline(message.text)}
        </div>
        <div className="wa-meta">
          {message.environment === 'live' && outbound ? (
            <span className="wa-cost" data-testid="message-cost" title="Charged to the wallet">
              {message.costMicros > 0 ? formatMicros(message.costMicros) : 'free'}
            </span>
          ) : null}
          <time dateTime={message.createdAt} title={new Date(message.createdAt).toLocaleString()}>
            {formatClock(new Date(message.createdAt))}
          </time>
          {outbound ? <Ticks status={message.status} /> : null}
        </div>
      </div>
      {message.status === 'failed' ? (
        <div className="wa-failure" role="note" data-testid="message-error">
          Not delivered
          {message.error ? (
            <>
              : {message.error.message} <span className="mono">({message.error.code})</span>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

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
            <Bubble message={message} />
          </Fragment>
        );
      })}
    </div>
  );
}
