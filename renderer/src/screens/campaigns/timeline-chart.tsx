import { useEffect, useRef, useState, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatClock, formatClockSeconds, formatDayTime } from '../../components/format.ts';
import { formatCount } from './campaign-format.ts';

const HEIGHT = 220;
/** Gaps between buckets are drawn as zeros, up to this many buckets in all. */
const MAX_POINTS = 5_000;

/** Seconds since the epoch, then one value per line at each of them. */
export type TimelineSeries = [number[], ...number[][]];

/**
 * A campaign's timeline as a chart's series: `values` says a bucket's value for each of `lines`
 * lines. Buckets the core left out (nothing happened) count as zeros, and one zero bucket before
 * the first shows the start.
 */
export function timelineSeries<B extends { at: string }>(
  timeline: { bucketSeconds: number; data: B[] } | null,
  lines: number,
  values: (bucket: B, step: number) => number[],
): TimelineSeries {
  const none = (): TimelineSeries => [[], ...Array.from({ length: lines }, () => [])];
  if (!timeline || timeline.data.length === 0) return none();
  const step = Math.max(1, timeline.bucketSeconds);
  const buckets = timeline.data
    .map((b) => ({ at: Math.floor(Date.parse(b.at) / 1000), values: values(b, step) }))
    .filter((b) => Number.isFinite(b.at))
    .sort((a, b) => a.at - b.at);
  if (buckets.length === 0) return none();
  const first = buckets[0]!.at;
  const last = buckets[buckets.length - 1]!.at;
  const fill = (last - first) / step < MAX_POINTS;
  const series = none();
  const zeros = Array.from({ length: lines }, () => 0);
  const push = (at: number, row: number[]) => {
    series[0].push(at);
    row.forEach((value, i) => series[i + 1]!.push(value));
  };
  push(first - step, zeros);
  let expected = first;
  for (const b of buckets) {
    while (fill && expected < b.at) {
      push(expected, zeros);
      expected += step;
    }
    push(b.at, b.values);
    expected = b.at + step;
  }
  return series;
}

/** Tick steps on the time axis, in seconds: whole seconds at least. */
const TIME_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
];

/** The time labels' font, drawn and measured alike. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
/** Clear room between two time labels, in CSS pixels. */
const LABEL_GAP = 16;

/** Labels in local time, as fine as the span (in seconds) needs: seconds, minutes, or the day too. */
const formatFor = (span: number) =>
  span < 180 ? formatClockSeconds : span < 86_400 ? formatClock : formatDayTime;

let measuring: CanvasRenderingContext2D | null = null;
function labelWidth(text: string): number {
  measuring ??= document.createElement('canvas').getContext('2d');
  if (!measuring) return text.length * 8;
  measuring.font = AXIS_FONT;
  return measuring.measureText(text).width;
}

/**
 * The least distance between two time ticks: the widest label this span writes and a gap, so
 * labels never run into each other however narrow the chart (uPlot then takes a coarser step).
 */
function timeSpace(_u: uPlot, _axis: number, min: number, max: number): number {
  const format = formatFor(max - min);
  // Two-digit hours, minutes, seconds and day: as wide as this locale's labels get.
  const widest = Math.max(
    ...[new Date(2026, 11, 22, 22, 58, 58), new Date(2026, 11, 22, 10, 58, 58)].map((d) =>
      labelWidth(format(d)),
    ),
  );
  return Math.ceil(widest) + LABEL_GAP;
}

function cssColor(element: Element, name: string, fallback: string): string {
  return getComputedStyle(element).getPropertyValue(name).trim() || fallback;
}

/** One line of the chart. */
export interface PlotLine {
  label: string;
  /** The CSS variable of its colour, and the colour when the page has none. */
  color: string;
  fallback: string;
  /** Fills the area under it with its colour at this alpha (two hex digits). */
  fillAlpha?: string;
  dash?: number[];
}

/** The moment under the pointer, and each line's value there. */
interface Hover {
  at: number;
  values: number[];
}

interface TimelineChartProps {
  data: TimelineSeries;
  /** The lines, in the order of the series after the times (a constant: the plot is made once). */
  lines: readonly PlotLine[];
  /** The legend's keys, before the readout. */
  keys: ReactNode;
  /** What the chart shows, in words: at the moment under the pointer, and over the whole time. */
  readout: { at: (values: number[]) => string; total: string };
  readoutTestId: string;
  testId: string;
  /** What shows over the chart while it has nothing to draw. */
  empty: string;
}

/**
 * A campaign's timeline drawn by uPlot, on a canvas: no inline styles or style tags, so the
 * page's CSP holds. The canvas is hidden from assistive technology; the readout beside it says
 * what it draws in words.
 */
export function TimelineChart({
  data,
  lines,
  keys,
  readout,
  readoutTestId,
  testId,
  empty,
}: TimelineChartProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const dataRef = useRef(data);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const muted = cssColor(host, '--text-muted', '#4d5769');
    const grid = cssColor(host, '--border', '#e4e7ec');
    const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const series = lines.map((line) => {
      const stroke = cssColor(host, line.color, line.fallback);
      const fill = line.fillAlpha
        ? { fill: /^#[0-9a-f]{6}$/i.test(stroke) ? `${stroke}${line.fillAlpha}` : undefined }
        : {};
      return {
        label: line.label,
        stroke,
        width: 2,
        ...(line.dash ? { dash: line.dash } : {}),
        ...fill,
        points: { show: false },
      };
    });
    const plot = new uPlot(
      {
        width: Math.max(280, host.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        // Room on the right for the last time label.
        padding: [8, 36, 0, 0],
        cursor: { y: false, drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        series: [{}, ...series],
        axes: [
          {
            ...axis,
            font: AXIS_FONT,
            space: timeSpace,
            incrs: TIME_STEPS,
            values: (u, ticks) => {
              const format = formatFor((u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0));
              return ticks.map((t) => format(new Date(t * 1000)));
            },
          },
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
                  : { at, values: lines.map((_, k) => u.data[k + 1]?.[i] ?? 0) },
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
  }, [lines]);

  useEffect(() => {
    dataRef.current = data;
    plotRef.current?.setData(data);
  }, [data]);

  const nothing = data[0].length === 0;

  return (
    <div className="send-rate">
      <div className="send-rate-legend">
        {keys}
        <span className="send-rate-readout" data-testid={readoutTestId}>
          {hover
            ? `${formatClock(new Date(hover.at * 1000))}: ${readout.at(hover.values)}`
            : nothing
              ? ''
              : readout.total}
        </span>
      </div>
      <div className="send-rate-plot">
        <div ref={hostRef} className="send-rate-canvas" aria-hidden="true" data-testid={testId} />
        {nothing ? <p className="send-rate-empty">{empty}</p> : null}
      </div>
    </div>
  );
}
