import type { EmailCounts } from '../../stores/email-api.ts';
import { formatCount } from '../campaigns/campaign-format.ts';
import { doneOf, doneShareOf } from './email-format.ts';

interface EmailProgressBarProps {
  counts: EmailCounts;
  /** The bar's accessible name, e.g. "Progress of Spring news". */
  label: string;
  size?: 'small' | 'large';
  testId?: string;
}

/**
 * How much of an email campaign is done: emails handed over, failed and cancelled as segments of
 * one bar (the campaigns' bar, `cprogress`). Its value is the done share in whole percent, and
 * says the counts in words too.
 */
export function EmailProgressBar({ counts, label, size = 'small', testId }: EmailProgressBarProps) {
  const { total, sent, failed, cancelled } = counts;
  const percent = Math.floor(doneShareOf(counts) * 100);
  const width = (n: number) => `${total > 0 ? Math.min(100, (n / total) * 100) : 0}%`;
  return (
    <div
      className={`cprogress cprogress-${size}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={`${percent}%: ${formatCount(doneOf(counts))} of ${formatCount(total)} done`}
      data-testid={testId}
    >
      <span className="cprogress-sent" style={{ width: width(sent) }} />
      <span className="cprogress-failed" style={{ width: width(failed) }} />
      <span className="cprogress-skipped" style={{ width: width(cancelled) }} />
    </div>
  );
}
