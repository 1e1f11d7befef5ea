/**
 * Business hours (design.md §7): a workspace's time zone, opening ranges per weekday and
 * holidays, and the pure evaluator the core (the `outsideHours` trigger condition, the
 * `is_open_now` branch condition, `GET /settings/business-hours`) and the UI share. Local time
 * comes from Intl in the hours' own IANA zone, so a range means the same wall-clock hours on
 * either side of a daylight-saving change. No zod, no Node, no DOM.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `from` ≤ local time < `to`, both `HH:MM` (`to` may be `24:00`: the end of the day). */
export interface OpeningRange {
  from: string;
  to: string;
}

export interface BusinessHours {
  /** An IANA time zone (`Europe/Berlin`). */
  timeZone: string;
  /** A weekday missing or with no ranges is closed all day. */
  days: Partial<Record<Weekday, OpeningRange[]>>;
  /** Local dates (`YYYY-MM-DD`) closed all day. */
  holidays: string[];
}

export const MAX_RANGES_PER_DAY = 10;
export const MAX_HOLIDAYS = 500;

/** Until a workspace sets its own: weekdays 09:00–17:00, UTC. */
export const DEFAULT_BUSINESS_HOURS: BusinessHours = {
  timeZone: 'UTC',
  days: {
    mon: [{ from: '09:00', to: '17:00' }],
    tue: [{ from: '09:00', to: '17:00' }],
    wed: [{ from: '09:00', to: '17:00' }],
    thu: [{ from: '09:00', to: '17:00' }],
    fri: [{ from: '09:00', to: '17:00' }],
    sat: [],
    sun: [],
  },
  holidays: [],
};

const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Minutes since midnight of an `HH:MM`, or null when it is not one. */
export function clockMinutes(text: string): number | null {
  if (!CLOCK.test(text)) return null;
  const [h, m] = text.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether Intl knows the zone (an IANA name such as `America/New_York`, or `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  /** Minutes since local midnight. */
  minutes: number;
  second: number;
  weekday: Weekday;
}

const WEEKDAY_OF: Record<string, Weekday> = {
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
  Sun: 'sun',
};

/** The wall-clock time in `timeZone` at the instant `at` (ms since the epoch). */
export function localTime(timeZone: string, at: number): LocalTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(at)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAY_OF[parts.weekday!]!,
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
const dateOf = (t: { year: number; month: number; day: number }) =>
  `${t.year}-${pad(t.month)}-${pad(t.day)}`;

/** Whether the business is open at `at`: not a holiday, inside one of the weekday's ranges. */
export function isOpenAt(hours: BusinessHours, at: number): boolean {
  const t = localTime(hours.timeZone, at);
  if (hours.holidays.includes(dateOf(t))) return false;
  return (hours.days[t.weekday] ?? []).some((r) => {
    const from = clockMinutes(r.from);
    const to = clockMinutes(r.to);
    return from !== null && to !== null && from <= t.minutes && t.minutes < to;
  });
}

/** The zone's offset from UTC at `at`, in ms (local = UTC + offset). */
function offsetAt(timeZone: string, at: number): number {
  const t = localTime(timeZone, at);
  const wall = Date.UTC(t.year, t.month - 1, t.day, 0, t.minutes, t.second);
  return wall - Math.floor(at / 1000) * 1000;
}

/**
 * The first instant whose local wall-clock time is (or is past) the given one: the instant
 * itself, or — for a time a daylight-saving jump skips — the moment of the jump. An hour that
 * occurs twice (clocks going back) is its first occurrence.
 */
export function instantOf(
  timeZone: string,
  date: { year: number; month: number; day: number },
  minutes: number,
): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, 0, minutes);
  const first = wall - offsetAt(timeZone, wall);
  const second = wall - offsetAt(timeZone, first);
  if (offsetAt(timeZone, second) === wall - second) {
    // Two readings of an hour that occurs twice: the earlier one.
    const earlier = Math.min(first, second);
    return offsetAt(timeZone, earlier) === wall - earlier ? earlier : second;
  }
  // Skipped by a jump: find the jump (the offset changes once between the two guesses).
  let lo = Math.min(first, second);
  let hi = Math.max(first, second);
  const before = offsetAt(timeZone, lo);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(timeZone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** How far ahead `nextChange` looks (a long run of holidays, or no hours at all). */
const HORIZON_DAYS = 400;

/**
 * When the business next opens or closes after `at` (ms), or null when nothing changes within
 * 400 days (no hours at all, or open around the clock). Changes happen only at a range's ends
 * and at local midnights (a holiday, another weekday), which are tried in order.
 */
export function nextChange(hours: BusinessHours, at: number): number | null {
  const open = isOpenAt(hours, at);
  const today = localTime(hours.timeZone, at);
  const start = Date.UTC(today.year, today.month - 1, today.day);
  for (let d = 0; d <= HORIZON_DAYS; d++) {
    const day = new Date(start + d * 86_400_000);
    const date = {
      year: day.getUTCFullYear(),
      month: day.getUTCMonth() + 1,
      day: day.getUTCDate(),
    };
    const weekday = WEEKDAYS[(day.getUTCDay() + 6) % 7]!;
    const marks = new Set<number>([0]);
    for (const r of hours.days[weekday] ?? []) {
      for (const m of [clockMinutes(r.from), clockMinutes(r.to)]) {
        if (m !== null && m < 24 * 60) marks.add(m);
      }
    }
    const candidates = [...marks]
      .map((m) => instantOf(hours.timeZone, date, m))
      .filter((t) => t > at)
      .sort((a, b) => a - b);
    for (const t of candidates) if (isOpenAt(hours, t) !== open) return t;
  }
  return null;
}

export interface BusinessHoursProblem {
  param: string;
  message: string;
}

/** Every problem of a business-hours setting, in plain words, by its field. */
export function businessHoursProblems(hours: BusinessHours): BusinessHoursProblem[] {
  const out: BusinessHoursProblem[] = [];
  if (!isTimeZone(hours.timeZone)) {
    out.push({
      param: 'timeZone',
      message: `Choose a time zone such as Europe/Berlin ("${hours.timeZone}" is not one)`,
    });
  }
  for (const [day, ranges] of Object.entries(hours.days)) {
    if (!(WEEKDAYS as readonly string[]).includes(day)) {
      out.push({ param: `days.${day}`, message: `Days are ${WEEKDAYS.join(', ')}` });
      continue;
    }
    if ((ranges ?? []).length > MAX_RANGES_PER_DAY) {
      out.push({
        param: `days.${day}`,
        message: `Use at most ${MAX_RANGES_PER_DAY} opening ranges a day`,
      });
    }
    (ranges ?? []).forEach((r, i) => {
      const from = clockMinutes(r.from);
      const to = clockMinutes(r.to);
      if (from === null || from === 24 * 60) {
        out.push({ param: `days.${day}.${i}.from`, message: 'Give an opening time like 09:00' });
      }
      if (to === null) {
        out.push({ param: `days.${day}.${i}.to`, message: 'Give a closing time like 17:30' });
      }
      if (from !== null && to !== null && from >= to) {
        out.push({
          param: `days.${day}.${i}.to`,
          message:
            'Close after you open (a range past midnight is two ranges: until 24:00, then from 00:00)',
        });
      }
    });
  }
  if (hours.holidays.length > MAX_HOLIDAYS) {
    out.push({ param: 'holidays', message: `Use at most ${MAX_HOLIDAYS} holidays` });
  }
  hours.holidays.forEach((h, i) => {
    const m = DATE.exec(h);
    const valid =
      m !== null &&
      (() => {
        const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
        return (
          dateOf({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }) ===
          h
        );
      })();
    if (!valid) {
      out.push({ param: `holidays.${i}`, message: 'Give a holiday as a date like 2026-12-25' });
    }
  });
  return out;
}
