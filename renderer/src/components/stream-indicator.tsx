import { useStreamStatus } from '../stores/stream.ts';

const LABELS = {
  idle: 'Real-time updates off',
  connecting: 'Connecting to updates…',
  open: 'Real-time updates on',
  reconnecting: 'Updates paused · reconnecting…',
} as const;

/** Whether the event stream is connected: screens update live only while it is. */
export function StreamIndicator() {
  const status = useStreamStatus((s) => s.status);
  return (
    <div
      className={`stream-indicator stream-${status}`}
      role="status"
      data-testid="stream-status"
      data-status={status}
      title="Statuses, replies and wallet alerts arrive over the local event stream."
    >
      <span className="stream-dot" aria-hidden="true" />
      <span className="stream-label">{LABELS[status]}</span>
    </div>
  );
}
