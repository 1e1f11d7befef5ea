import type { MessageStatus } from '../../../shared/schemas/index.ts';

const LABELS: Record<MessageStatus, string> = {
  accepted: 'Accepted, not sent yet',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Failed',
  received: 'Received',
  note: 'Private note',
};

/** One tick of the sent/delivered/read marks. */
const TickMark = ({ d }: { d: string }) => (
  <path
    d={d}
    fill="none"
    stroke="currentColor"
    strokeWidth="1.6"
    strokeLinecap="round"
    strokeLinejoin="round"
  />
);

/** WhatsApp-style delivery marks: clock, one grey tick, two grey ticks, two blue ticks, red “!”. */
export function Ticks({ status }: { status: MessageStatus }) {
  if (status === 'received' || status === 'note') return null;
  const label = LABELS[status];
  return (
    <span
      className={`ticks ticks-${status}`}
      role="img"
      aria-label={label}
      title={label}
      data-testid="message-status"
      data-status={status}
    >
      {status === 'accepted' ? (
        <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
          <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeWidth="1.4" />
          <path
            d="M8 4.6V8l2.3 1.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.4"
            strokeLinecap="round"
          />
        </svg>
      ) : status === 'failed' ? (
        <svg width="15" height="15" viewBox="0 0 16 16" aria-hidden="true">
          <circle cx="8" cy="8" r="7" fill="currentColor" />
          <path d="M8 4.2v4.6" stroke="#fff" strokeWidth="1.8" strokeLinecap="round" />
          <circle cx="8" cy="11.4" r="1.05" fill="#fff" />
        </svg>
      ) : status === 'sent' ? (
        <svg width="16" height="11" viewBox="0 0 16 11" aria-hidden="true">
          <TickMark d="M2.5 5.8 5.6 8.9 12.8 1.7" />
        </svg>
      ) : (
        <svg width="19" height="11" viewBox="0 0 19 11" aria-hidden="true">
          <TickMark d="M1.5 5.8 4.6 8.9 11.8 1.7" />
          <TickMark d="M8.4 8.2 9.1 8.9 16.3 1.7" />
        </svg>
      )}
    </span>
  );
}
