import type { EmailCounts } from '../../stores/email-api.ts';
import { SegmentedProgress, type BarProps } from '../campaigns/progress-bar.tsx';
import { doneShareOf } from './email-format.ts';

/** An email campaign's progress: emails handed over, failed, and cancelled. */
export function EmailProgressBar({ counts, ...bar }: BarProps & { counts: EmailCounts }) {
  const { total, sent, failed, cancelled } = counts;
  return (
    <SegmentedProgress
      total={total}
      sent={sent}
      failed={failed}
      skipped={cancelled}
      share={doneShareOf(counts)}
      {...bar}
    />
  );
}
