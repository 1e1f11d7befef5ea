/**
 * What the email screens say about a campaign and its emails: states in words, which actions a
 * state allows, and times sent with the user's own offset.
 */
import { allows, isFinal, type CampaignAction } from '../../../../shared/campaign-states.ts';
import { plural } from '../../components/format.ts';
import type {
  EmailAudience,
  EmailCampaignStatus,
  EmailCounts,
  EmailStatus,
} from '../../stores/email-api.ts';

export const EMAIL_STATUS_LABELS: Record<EmailStatus, string> = {
  pending: 'Pending',
  sending: 'Sending',
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** An email's states in the order it goes through them (the recipients filter's order). */
export const EMAIL_STATUSES = Object.keys(EMAIL_STATUS_LABELS) as EmailStatus[];

/** What a campaign's state allows: the one state machine's (shared/campaign-states.ts). */
export const canDoEmail = (action: CampaignAction, status: EmailCampaignStatus): boolean =>
  allows('email', action, status);

export const isFinalEmail = (status: EmailCampaignStatus): boolean => isFinal('email', status);

/** Recipients done with: handed over (whatever came of it), failed, or cancelled. */
export const doneOf = (c: EmailCounts): number => c.sent + c.failed + c.cancelled;

/** The done share, 0…1. */
export const doneShareOf = (c: EmailCounts): number =>
  c.total > 0 ? Math.min(1, doneOf(c) / c.total) : 0;

/**
 * An instant as ISO 8601 with the user's own offset (`2026-12-01T09:00:00+01:00`), from a
 * `datetime-local` value; null when there is none.
 */
export function localIsoWithOffset(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return null;
  const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` +
    `${sign}${pad(offset / 60)}:${pad(offset % 60)}`
  );
}

/** "120 recipients · 4 without email · 1 unsubscribed": who an audience reaches, and who not. */
export function describeAudience(a: EmailAudience): string {
  return `${plural(a.total, 'recipient')} · ${a.withoutEmail.toLocaleString('en-US')} without email · ${a.unsubscribed.toLocaleString('en-US')} unsubscribed`;
}

/** How a timeline bucket reads after "per": "second", "10 seconds", "minute", "hour". */
export function bucketName(seconds: number): string {
  const unit = (n: number, one: string) => (n === 1 ? one : `${n} ${one}s`);
  if (seconds < 60) return unit(seconds, 'second');
  if (seconds < 3600) return unit(Math.round(seconds / 60), 'minute');
  if (seconds < 86_400) return unit(Math.round(seconds / 3600), 'hour');
  return unit(Math.round(seconds / 86_400), 'day');
}

/** Where the address last typed for a test email is kept (on this computer only). */
const TEST_ADDRESS_KEY = 'parley.email.testAddress';

export function rememberedTestAddress(): string {
  try {
    return localStorage.getItem(TEST_ADDRESS_KEY) ?? '';
  } catch {
    return '';
  }
}

export function rememberTestAddress(address: string): void {
  try {
    localStorage.setItem(TEST_ADDRESS_KEY, address);
  } catch {
    // Storage may be refused (private windows): the address is then typed again next time.
  }
}
