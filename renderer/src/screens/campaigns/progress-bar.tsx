import { doneShare, type FunnelCounts } from '../../../../shared/campaign-rules.ts';
import { formatCount } from './campaign-format.ts';

interface ProgressBarProps {
  progress: FunnelCounts;
  /** The bar's accessible name, e.g. "Progress of Spring sale". */
  label: string;
  size?: 'small' | 'large';
  testId?: string;
}

/**
 * How much of a campaign is done: sent, failed and skipped recipients as segments of one bar.
 * Its value is the done share in whole percent, and says the counts in words too.
 */
export function ProgressBar({ progress, label, size = 'small', testId }: ProgressBarProps) {
  const { total, sent, failed, skipped } = progress;
  const done = sent + failed + skipped;
  const percent = Math.floor(doneShare(progress) * 100);
  const width = (n: number) => `${total > 0 ? (n / total) * 100 : 0}%`;
  return (
    <div
      className={`cprogress cprogress-${size}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={`${percent}%: ${formatCount(done)} of ${formatCount(total)} done`}
      data-testid={testId}
    >
      <span className="cprogress-sent" style={{ width: width(sent) }} />
      <span className="cprogress-failed" style={{ width: width(failed) }} />
      <span className="cprogress-skipped" style={{ width: width(skipped) }} />
    </div>
  );
}
