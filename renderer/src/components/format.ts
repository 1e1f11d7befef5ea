const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

const dateOnly = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
});

function parse(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

const clockTime = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** A time of day in the agent's locale ("14:25"). */
export const formatClock = (date: Date): string => clockTime.format(date);

const clockSeconds = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A time of day to the second ("14:25:07"). */
export const formatClockSeconds = (date: Date): string => clockSeconds.format(date);

const dayTime = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** A day and its time, without the year ("Nov 3, 09:00"). */
export const formatDayTime = (date: Date): string => dayTime.format(date);

export const formatDateTime = (iso: string | null | undefined, fallback = '—'): string => {
  const d = parse(iso);
  return d ? dateTime.format(d) : fallback;
};

export const formatDate = (iso: string | null | undefined, fallback = '—'): string => {
  const d = parse(iso);
  return d ? dateOnly.format(d) : fallback;
};

export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** `<input type="datetime-local">`'s value for an instant, in local time (to the minute); '' for none. */
export function toLocalInput(at: Date | string | null | undefined): string {
  const d = at instanceof Date ? at : parse(at);
  if (!d || Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The instant a `datetime-local` value means in local time, as ISO 8601 (UTC), or null. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
