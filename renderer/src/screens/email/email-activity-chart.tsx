import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatClock, formatClockSeconds, formatDayTime } from '../../components/format.ts';
import type { EmailTimeline } from '../../stores/email-api.ts';
import { formatCount } from '../campaigns/campaign-format.ts';
import { bucketName } from './email-format.ts';

const HEIGHT = 220;
/** Gaps between buckets are drawn as zeros, up to this many buckets in all. */
const MAX_POINTS = 5_000;

type Series = [number[], number[], number[], number[]];

/**
 * The timeline as counts per bucket: seconds since the epoch, emails sent, first opens, first
 * clicks. Buckets the core left out (nothing happened) count as zeros, and one zero bucket before
 * the first shows the start.
 */
export function activitySeries(timeline: EmailTimeline | null): Series {
  if (!timeline || timeline.data.length === 0) return [[], [], [], []];
  const step = Math.max(1, timeline.bucketSeconds);
  const buckets = timeline.data
    .map((b) => ({ ...b, at: Math.floor(Date.parse(b.at) / 1000) }))
    .filter((b) => Number.isFinite(b.at))
    .sort((a, b) => a.at - b.at);
  if (buckets.length === 0) return [[], [], [], []];
  const first = buckets[0]!.at;
  const last = buckets[buckets.length - 1]!.at;
  const fill = (last - first) / step < MAX_POINTS;
  const series: Series = [[first - step], [0], [0], [0]];
  let expected = first;
  const push = (at: number, sent: number, opened: number, clicked: number) => {
    series[0].push(at);
    series[1].push(sent);
    series[2].push(opened);
    series[3].push(clicked);
  };
  for (const b of buckets) {
    while (fill && expected < b.at) {
      push(expected, 0, 0, 0);
      expected += step;
    }
    push(b.at, b.sent, b.opened, b.clicked);
    expected = b.at + step;
  }
  return series;
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
  opened: number;
  clicked: number;
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/**
 * Emails sent, first opens and first clicks per bucket over the campaign's life (uPlot, on a
 * canvas: no inline styles or style tags, so the page's CSP holds). What it draws is said in
 * words beside it.
 */
export function EmailActivityChart({ timeline }: { timeline: EmailTimeline | null }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const data = useMemo(() => activitySeries(timeline), [timeline]);
  const dataRef = useRef(data);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const primary = cssColor(host, '--primary', '#2f5bea');
    const success = cssColor(host, '--success', '#067647');
    const warning = cssColor(host, '--warning', '#b54708');
    const muted = cssColor(host, '--text-muted', '#4d5769');
    const grid = cssColor(host, '--border', '#e4e7ec');
    const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const line = (label: string, stroke: string, dash?: number[]) => ({
      label,
      stroke,
      width: 2,
      ...(dash ? { dash } : {}),
      points: { show: false },
    });
    const plot = new uPlot(
      {
        width: Math.max(280, host.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        padding: [8, 36, 0, 0],
        cursor: { y: false, drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        series: [
          {},
          {
            ...line('Sent', primary),
            fill: /^#[0-9a-f]{6}$/i.test(primary) ? `${primary}1a` : undefined,
          },
          line('Opened', success),
          line('Clicked', warning, [6, 4]),
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
                  : {
                      at,
                      sent: u.data[1]?.[i] ?? 0,
                      opened: u.data[2]?.[i] ?? 0,
                      clicked: u.data[3]?.[i] ?? 0,
                    },
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

  const [xs, sent, opened, clicked] = data;
  const empty = xs.length === 0;
  const per = bucketName(timeline?.bucketSeconds ?? 60);

  return (
    <div className="send-rate">
      <div className="send-rate-legend">
        <span className="send-rate-key">Sent</span>
        <span className="send-rate-key email-key-opened">Opened</span>
        <span className="send-rate-key email-key-clicked">Clicked</span>
        <span className="muted">per {per}</span>
        <span className="send-rate-readout" data-testid="email-activity-readout">
          {hover
            ? `${formatClock(new Date(hover.at * 1000))}: ${formatCount(hover.sent)} sent, ${formatCount(hover.opened)} opened, ${formatCount(hover.clicked)} clicked`
            : empty
              ? ''
              : `${formatCount(sum(sent))} sent · ${formatCount(sum(opened))} opened · ${formatCount(sum(clicked))} clicked`}
        </span>
      </div>
      <div className="send-rate-plot">
        <div
          ref={hostRef}
          className="send-rate-canvas"
          aria-hidden="true"
          data-testid="email-activity-chart"
        />
        {empty ? <p className="send-rate-empty">Nothing sent yet.</p> : null}
      </div>
    </div>
  );
}
