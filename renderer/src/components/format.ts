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
