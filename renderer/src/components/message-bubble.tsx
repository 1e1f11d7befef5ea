import type { Message } from '../../../shared/schemas/index.ts';
import { formatMicros } from '../../../shared/money.ts';
import { notify } from '../stores/toasts.ts';
import { ChatText, type ChatHighlight } from './chat-text.tsx';
import { formatDate } from './format.ts';
import { CopyIcon } from './icons.tsx';
import { Ticks } from './ticks.tsx';
import { formatClock } from './format.ts';

export const dayKey = (iso: string): string => new Date(iso).toDateString();

/** "Today", "Yesterday" or the date: the separators between a thread's days. */
export function dayLabel(iso: string, now = Date.now()): string {
  const day = new Date(iso);
  const today = new Date(now);
  const yesterday = new Date(now - 86_400_000);
  if (day.toDateString() === today.toDateString()) return 'Today';
  if (day.toDateString() === yesterday.toDateString()) return 'Yesterday';
  return formatDate(iso);
}

export const isNote = (message: Message): boolean =>
  message.type === 'note' || message.status === 'note';

/**
 * Copies the message exactly as written, markers included, so an order id or an address is
 * never copied as the formatted text shows it.
 */
function CopyButton({ text }: { text: string }) {
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => notify('success', 'Message copied'),
      () => notify('error', 'The message could not be copied: select its text instead.'),
    );
  };
  return (
    <button
      type="button"
      className="wa-copy"
      aria-label="Copy message text"
      title="Copy message text"
      onClick={copy}
      data-testid="copy-message"
    >
      <CopyIcon />
    </button>
  );
}

interface NoteProps {
  message: Message;
  sender?: string | undefined;
  highlight?: ChatHighlight | null | undefined;
}

/** An internal note: seen by agents only, never sent to the contact, so it has no ticks. */
function Note({ message, sender, highlight }: NoteProps) {
  return (
    <div
      className="wa-note"
      data-testid="message"
      data-direction="note"
      data-message-id={message.id}
    >
      <span className="wa-note-label">
        Private note{sender ? <span className="wa-note-sender"> · {sender}</span> : null}
      </span>
      <span className="wa-body" data-testid="message-text">
        <ChatText text={message.text} highlight={highlight} />
      </span>
      <span className="wa-note-meta">
        <CopyButton text={message.text} />
        <time dateTime={message.createdAt} title={new Date(message.createdAt).toLocaleString()}>
          {formatClock(new Date(message.createdAt))}
        </time>
      </span>
    </div>
  );
}

interface BubbleProps {
  message: Message;
  /** Who sent an outbound message or wrote a note (agent name, "Bot"), shown above the text. */
  sender?: string | undefined;
  /** Search matches to mark in the text. */
  highlight?: ChatHighlight | null | undefined;
}

/** One message as WhatsApp draws it: inbound left, outbound right with its delivery ticks. */
export function MessageBubble({ message, sender, highlight }: BubbleProps) {
  if (isNote(message)) return <Note message={message} sender={sender} highlight={highlight} />;
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
        {sender ? (
          <div className="wa-sender" data-testid="message-sender">
            {sender}
          </div>
        ) : null}
        {message.type === 'template' && message.templateName ? (
          <div className="wa-template-tag" title="Template message">
            {message.templateName}
          </div>
        ) : null}
        <div className="wa-body" data-testid="message-text">
          <ChatText text={message.text} highlight={highlight} />
        </div>
        <div className="wa-meta">
          <CopyButton text={message.text} />
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
