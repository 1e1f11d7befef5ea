import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { CampaignTimeline } from '../../stores/campaigns-api.ts';
import { formatClock, formatClockSeconds, formatDayTime } from '../../components/format.ts';
import { formatCount, formatRate } from './campaign-format.ts';

const HEIGHT = 220;
/** Gaps between buckets are drawn as zeros, up to this many buckets in all. */
const MAX_POINTS = 5_000;

type Series = [number[], number[], number[]];

/**
 * The timeline as per-second rates: seconds since the epoch, messages handed over a second,
 * failures a second. Buckets the core left out (nothing happened) count as zeros, and one zero
 * bucket before the first shows the start.
 */
export function rateSeries(timeline: CampaignTimeline | null): Series {
  if (!timeline || timeline.data.length === 0) return [[], [], []];
  const step = Math.max(1, timeline.bucketSeconds);
  const buckets = timeline.data
    .map((b) => ({ at: Math.floor(Date.parse(b.at) / 1000), sent: b.sent, failed: b.failed }))
    .filter((b) => Number.isFinite(b.at))
    .sort((a, b) => a.at - b.at);
  if (buckets.length === 0) return [[], [], []];
  const first = buckets[0]!.at;
  const last = buckets[buckets.length - 1]!.at;
  const fill = (last - first) / step < MAX_POINTS;
  const xs: number[] = [first - step];
  const sent: number[] = [0];
  const failed: number[] = [0];
  let expected = first;
  for (const b of buckets) {
    while (fill && expected < b.at) {
      xs.push(expected);
      sent.push(0);
      failed.push(0);
      expected += step;
    }
    xs.push(b.at);
    sent.push(b.sent / step);
    failed.push(b.failed / step);
    expected = b.at + step;
  }
  return [xs, sent, failed];
}

/** Tick steps on the time axis, in seconds: whole seconds at least. */
const TIME_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
];

/** Tick labels in local time, as fine as the span needs: seconds, minutes, or the day too. */
function timeLabels(ticks: number[]): string[] {
  const span = ticks.length > 1 ? ticks[ticks.length - 1]! - ticks[0]! : 0;
  const format = span < 180 ? formatClockSeconds : span < 86_400 ? formatClock : formatDayTime;
  return ticks.map((t) => format(new Date(t * 1000)));
}

function cssColor(element: Element, name: string, fallback: string): string {
  return getComputedStyle(element).getPropertyValue(name).trim() || fallback;
}

interface Hover {
  at: number;
  sent: number;
  failed: number;
}

/**
 * Messages handed to the channel per second over the campaign's life (uPlot, on a canvas: no
 * inline styles or style tags, so the page's CSP holds). The numbers it draws are said in words
 * beside it.
 */
export function SendRateChart({ timeline }: { timeline: CampaignTimeline | null }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const data = useMemo(() => rateSeries(timeline), [timeline]);
  const dataRef = useRef(data);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const primary = cssColor(host, '--primary', '#2f5bea');
    const danger = cssColor(host, '--danger', '#d92d20');
    const muted = cssColor(host, '--text-muted', '#4d5769');
    const grid = cssColor(host, '--border', '#e4e7ec');
    const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const plot = new uPlot(
      {
        width: Math.max(280, host.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        // Room on the right for the last time label.
        padding: [8, 36, 0, 0],
        cursor: { y: false, drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        series: [
          {},
          {
            label: 'Sent',
            stroke: primary,
            fill: /^#[0-9a-f]{6}$/i.test(primary) ? `${primary}22` : undefined,
            width: 2,
            points: { show: false },
          },
          { label: 'Failed', stroke: danger, width: 2, points: { show: false } },
        ],
        axes: [
          { ...axis, space: 70, incrs: TIME_STEPS, values: (_u, ticks) => timeLabels(ticks) },
          { ...axis, size: 48, values: (_u, ticks) => ticks.map((t) => formatCount(t)) },
        ],
        hooks: {
          setCursor: [
            (u) => {
              const i = u.cursor.idx;
              const at = i == null ? undefined : u.data[0][i];
              setHover(
                i == null || at === undefined
                  ? null
                  : { at, sent: u.data[1]?.[i] ?? 0, failed: u.data[2]?.[i] ?? 0 },
              );
            },
          ],
        },
      },
      dataRef.current,
      host,
    );
    plotRef.current = plot;
    const observer = new ResizeObserver(() => {
      const width = Math.max(280, host.clientWidth);
      if (width !== plot.width) plot.setSize({ width, height: HEIGHT });
    });
    observer.observe(host);
    return () => {
      observer.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, []);

  useEffect(() => {
    dataRef.current = data;
    plotRef.current?.setData(data);
  }, [data]);

  const [xs, sent, failed] = data;
  const peak = sent.reduce((a, b) => Math.max(a, b), 0);
  const step = timeline?.bucketSeconds ?? 1;
  const sentTotal = sent.reduce((a, b) => a + b * step, 0);
  const failedTotal = failed.reduce((a, b) => a + b * step, 0);
  const empty = xs.length === 0;

  return (
    <div className="send-rate">
      <div className="send-rate-legend">
        <span className="send-rate-key send-rate-key-sent">Sent a second</span>
        <span className="send-rate-key send-rate-key-failed">Failed a second</span>
        <span className="send-rate-readout" data-testid="send-rate-readout">
          {hover
            ? `${formatClock(new Date(hover.at * 1000))}: ${formatRate(hover.sent)} sent, ${formatRate(hover.failed)} failed`
            : empty
              ? ''
              : `Peak ${formatRate(peak)} · ${formatCount(Math.round(sentTotal))} sent · ${formatCount(Math.round(failedTotal))} failed`}
        </span>
      </div>
      <div className="send-rate-plot">
        <div
          ref={hostRef}
          className="send-rate-canvas"
          aria-hidden="true"
          data-testid="send-rate-chart"
        />
        {empty ? <p className="send-rate-empty">Nothing handed to the channel yet.</p> : null}
      </div>
    </div>
  );
}
