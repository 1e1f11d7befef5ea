import { useMemo } from 'react';
import type { CampaignTimeline } from '../../stores/campaigns-api.ts';
import { formatCount, formatRate } from './campaign-format.ts';
import {
  TimelineChart,
  timelineSeries,
  type PlotLine,
  type TimelineSeries,
} from './timeline-chart.tsx';

/**
 * The timeline as per-second rates: seconds since the epoch, messages handed over a second,
 * failures a second.
 */
export const rateSeries = (timeline: CampaignTimeline | null): TimelineSeries =>
  timelineSeries(timeline, 2, (b, step) => [b.sent / step, b.failed / step]);

const LINES: readonly PlotLine[] = [
  { label: 'Sent', color: '--primary', fallback: '#2f5bea', fillAlpha: '22' },
  { label: 'Failed', color: '--danger', fallback: '#d92d20' },
];

/** Messages handed to the channel per second over the campaign's life. */
export function SendRateChart({ timeline }: { timeline: CampaignTimeline | null }) {
  const data = useMemo(() => rateSeries(timeline), [timeline]);
  const [, sent = [], failed = []] = data;
  const step = timeline?.bucketSeconds ?? 1;
  const total = (rates: number[]) =>
    formatCount(Math.round(rates.reduce((a, b) => a + b * step, 0)));
  const peak = sent.reduce((a, b) => Math.max(a, b), 0);

  return (
    <TimelineChart
      data={data}
      lines={LINES}
      keys={
        <>
          <span className="send-rate-key send-rate-key-sent">Sent a second</span>
          <span className="send-rate-key send-rate-key-failed">Failed attempts a second</span>
        </>
      }
      readout={{
        at: ([s = 0, f = 0]) => `${formatRate(s)} sent, ${formatRate(f)} failed attempts`,
        // Attempts, not recipients: a recipient whose try failed may be tried again (the funnel
        // counts recipients).
        total: `Peak ${formatRate(peak)} · ${total(sent)} sent · ${total(failed)} failed attempts`,
      }}
      readoutTestId="send-rate-readout"
      testId="send-rate-chart"
      empty="Nothing handed to the channel yet."
    />
  );
}
