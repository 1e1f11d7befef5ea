import { useMemo } from 'react';
import type { EmailTimeline } from '../../stores/email-api.ts';
import { formatCount } from '../campaigns/campaign-format.ts';
import {
  TimelineChart,
  timelineSeries,
  type PlotLine,
  type TimelineSeries,
} from '../campaigns/timeline-chart.tsx';
import { bucketName } from './email-format.ts';

/** The timeline as counts per bucket: emails sent, first opens, first clicks. */
export const activitySeries = (timeline: EmailTimeline | null): TimelineSeries =>
  timelineSeries(timeline, 3, (b) => [b.sent, b.opened, b.clicked]);

const LINES: readonly PlotLine[] = [
  { label: 'Sent', color: '--primary', fallback: '#2f5bea', fillAlpha: '1a' },
  { label: 'Opened', color: '--success', fallback: '#067647' },
  { label: 'Clicked', color: '--warning', fallback: '#b54708', dash: [6, 4] },
];

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** Emails sent, first opens and first clicks per bucket over the campaign's life. */
export function EmailActivityChart({ timeline }: { timeline: EmailTimeline | null }) {
  const data = useMemo(() => activitySeries(timeline), [timeline]);
  const [, sent = [], opened = [], clicked = []] = data;

  return (
    <TimelineChart
      data={data}
      lines={LINES}
      keys={
        <>
          <span className="send-rate-key">Sent</span>
          <span className="send-rate-key email-key-opened">Opened</span>
          <span className="send-rate-key email-key-clicked">Clicked</span>
          <span className="muted">per {bucketName(timeline?.bucketSeconds ?? 60)}</span>
        </>
      }
      readout={{
        at: ([s = 0, o = 0, c = 0]) =>
          `${formatCount(s)} sent, ${formatCount(o)} opened, ${formatCount(c)} clicked`,
        total: `${formatCount(sum(sent))} sent · ${formatCount(sum(opened))} opened · ${formatCount(sum(clicked))} clicked`,
      }}
      readoutTestId="email-activity-readout"
      testId="email-activity-chart"
      empty="Nothing sent yet."
    />
  );
}
