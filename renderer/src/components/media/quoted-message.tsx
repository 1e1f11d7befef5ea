import type { Message } from '../../../../shared/schemas/index.ts';
import { quoteSummary } from './message-summary.ts';
import './media.css';

interface QuotedMessageProps {
  /** The message quoted, when it is loaded in this thread. */
  quoted: Message | undefined;
  /** Our id of the quoted message; null when we never had it (only WhatsApp's id is known). */
  quotedId: string | null;
  /** Who wrote the quoted message. */
  author: string | null;
  /** Scrolls to the quoted message, loading older pages if it is not loaded yet. */
  onJump?: ((messageId: string) => void) | undefined;
}

/**
 * What a reply quotes, above its text as WhatsApp shows it: who wrote it and its first line (or
 * what it carries: "📷 Photo", "🎤 Voice note", a file name). Clicking it goes to that message.
 */
export function QuotedMessage({ quoted, quotedId, author, onJump }: QuotedMessageProps) {
  const who = quoted ? author : null;
  const line = quoted ? quoteSummary(quoted) : 'An earlier message';
  const body = (
    <>
      <span className="visually-hidden">Quoted: </span>
      {who ? <span className="wa-quote-author">{who}</span> : null}
      <span className="wa-quote-text">{line}</span>
    </>
  );
  if (quotedId === null || !onJump) {
    return (
      <div className="wa-quote" data-testid="quoted-message">
        {quotedId === null ? (
          <span className="wa-quote-text">A message this desk does not have</span>
        ) : (
          body
        )}
      </div>
    );
  }
  return (
    <button
      type="button"
      className="wa-quote"
      onClick={() => onJump(quotedId)}
      title="Go to the quoted message"
      data-testid="quoted-message"
      data-quoted-id={quotedId}
    >
      {body}
    </button>
  );
}
