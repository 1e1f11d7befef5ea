import { doneShare, type FunnelCounts } from '../../../../shared/campaign-rules.ts';
import { formatCount } from './campaign-format.ts';

export interface BarProps {
  /** The bar's accessible name, e.g. "Progress of Spring sale". */
  label: string;
  size?: 'small' | 'large';
  testId?: string;
}

interface SegmentedProgressProps extends BarProps {
  total: number;
  /** The recipients done with, as the bar's segments: handed over, failed, and left out. */
  sent: number;
  failed: number;
  skipped: number;
  /** The done share, 0…1. */
  share: number;
}

/**
 * How much of a campaign (of any kind) is done: recipients handed over, failed and left out as
 * segments of one bar. Its value is the done share in whole percent, and says the counts in words
 * too.
 */
export function SegmentedProgress({
  total,
  sent,
  failed,
  skipped,
  share,
  label,
  size = 'small',
  testId,
}: SegmentedProgressProps) {
  const done = sent + failed + skipped;
  const percent = Math.floor(share * 100);
  const width = (n: number) => `${total > 0 ? Math.min(100, (n / total) * 100) : 0}%`;
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

/** A messaging campaign's progress: sent, failed and skipped recipients. */
export function ProgressBar({ progress, ...bar }: BarProps & { progress: FunnelCounts }) {
  const { total, sent, failed, skipped } = progress;
  return (
    <SegmentedProgress
      total={total}
      sent={sent}
      failed={failed}
      skipped={skipped}
      share={doneShare(progress)}
      {...bar}
    />
  );
}
