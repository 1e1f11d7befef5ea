import { RECIPIENT_ERRORS } from '../../../../shared/campaign-rules.ts';
import {
  formatClock,
  formatClockSeconds,
  formatDateTime,
  plural,
} from '../../components/format.ts';
import type { CampaignTarget } from '../../stores/campaigns-api.ts';

const count = new Intl.NumberFormat('en-US');
export const formatCount = (n: number): string => count.format(n);

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 0 });
/**
 * A share as a whole percent, rounded down: 100% only when it is all of them (302 of 303 is
 * 99%, never 100%); "<1%" rather than "0%" for a small but non-zero one.
 */
export function formatShare(part: number, whole: number): string {
  if (whole <= 0) return '—';
  const share = part / whole;
  if (share > 0 && share < 0.01) return '<1%';
  return percent.format(Math.floor(share * 100) / 100);
}

/** "about 3 min", "12 s", "1 h 20 min": how long is left, roughly. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 48) return rest ? `${hours} h ${rest} min` : `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

export function formatRate(perSecond: number): string {
  if (perSecond <= 0) return '0 a second';
  if (perSecond >= 10) return `${Math.round(perSecond)} a second`;
  if (perSecond >= 1) return `${perSecond.toFixed(1)} a second`;
  return `${Math.max(1, Math.round(perSecond * 60))} a minute`;
}

/**
 * A moment soon, in local time: the clock when it is today ("14:05", with seconds when it is
 * under a minute away), the date as well when it is not.
 */
export function formatSoon(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  if (at.toDateString() !== new Date(now).toDateString()) return formatDateTime(iso);
  return at.getTime() - now < 60_000 ? formatClockSeconds(at) : formatClock(at);
}

/** The user's time zone, named as the system names it ("Europe/Berlin"). */
export const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';

/** A recipient error's title and explanation; unknown codes keep the channel's own message. */
export function explainError(error: { code: string; message: string }): {
  title: string;
  explanation: string;
} {
  return RECIPIENT_ERRORS[error.code] ?? { title: error.message, explanation: error.message };
}

/** A target's filter in words ("labels vip, new; 3 phone numbers"), for the wizard and the page. */
export function describeFilter(filter: CampaignTarget['filter']): string {
  const { labels, phones, attributes } = filter ?? {};
  const parts: string[] = [];
  if (labels) parts.push(`labels ${labels.join(', ')}`);
  if (phones) parts.push(plural(phones.length, 'phone number'));
  if (attributes) {
    parts.push(
      Object.entries(attributes)
        .map(([k, v]) => `${k} = ${String(v)}`)
        .join(', '),
    );
  }
  return parts.join('; ') || 'a filter';
}

/** The latest of when a campaign ended, was launched or was made: "Finished Nov 3, 09:00". */
export function describeWhen(campaign: {
  status: string;
  createdAt: string;
  launchedAt: string | null;
  completedAt: string | null;
}): string {
  if (campaign.completedAt) {
    const ended = campaign.status === 'completed' ? 'Finished' : 'Ended';
    return `${ended} ${formatDateTime(campaign.completedAt)}`;
  }
  if (campaign.launchedAt) return `Launched ${formatDateTime(campaign.launchedAt)}`;
  return `Created ${formatDateTime(campaign.createdAt)}`;
}
