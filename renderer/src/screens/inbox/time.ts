import { formatDayTime } from '../../components/format.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const longDate = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
});
const weekdayTime = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

/** A list's compact age: "now", "5m", "3h", "2d", then the date. */
export function relativeTime(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const age = now - at;
  if (age < MINUTE) return 'now';
  if (age < HOUR) return `${Math.floor(age / MINUTE)}m`;
  if (age < DAY) return `${Math.floor(age / HOUR)}h`;
  if (age < 7 * DAY) return `${Math.floor(age / DAY)}d`;
  const date = new Date(at);
  return date.getFullYear() === new Date(now).getFullYear()
    ? shortDate.format(date)
    : longDate.format(date);
}

/** When a snooze ends, as an agent reads it: "Tue 09:00" this week, else "Nov 3, 09:00". */
export function wakeTime(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  return at - now < 6 * DAY ? weekdayTime.format(new Date(at)) : formatDayTime(new Date(at));
}

/** "23 h", "45 min": how long the service window stays open. */
export function remaining(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / MINUTE));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h`;
}

/** Snooze presets: in an hour, tomorrow at 9:00, next Monday at 9:00. */
export function snoozePresets(now: number): { label: string; at: Date; testId: string }[] {
  const inAnHour = new Date(now + HOUR);
  const tomorrow = new Date(now);
  tomorrow.setDate(tomorrow.getDate() + 1);
  tomorrow.setHours(9, 0, 0, 0);
  const nextWeek = new Date(now);
  const daysToMonday = (8 - nextWeek.getDay()) % 7 || 7;
  nextWeek.setDate(nextWeek.getDate() + daysToMonday);
  nextWeek.setHours(9, 0, 0, 0);
  return [
    { label: 'For 1 hour', at: inAnHour, testId: 'snooze-1h' },
    { label: 'Until tomorrow, 9:00', at: tomorrow, testId: 'snooze-tomorrow' },
    { label: 'Until next week', at: nextWeek, testId: 'snooze-next-week' },
  ];
}
