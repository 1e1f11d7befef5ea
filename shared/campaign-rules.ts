/**
 * Messaging campaigns' recipient outcomes, pacing numbers and funnel (README "Campaigns"); which
 * action each state allows is the state machine's, shared with email (campaign-states.ts). No
 * zod, no Node, no DOM.
 */

import type { CampaignStatus } from './campaign-states.ts';
import { CAMPAIGN_MACHINES, isFinal } from './campaign-states.ts';

// The states and what each action may start from are the one state machine's (campaign-states.ts).
export { CAMPAIGN_STATUSES } from './campaign-states.ts';
export type { CampaignStatus } from './campaign-states.ts';

/** Why a campaign paused by itself; null when a person paused it. */
export const PAUSE_REASONS = ['insufficient_balance', 'error_rate'] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

/**
 * A recipient's state. `sent`, `delivered` and `read` are one funnel step each: a recipient
 * moves forward through them as the channel reports. `retrying` waits out a retryable failure.
 */
export const RECIPIENT_STATUSES = [
  'pending',
  'retrying',
  'sent',
  'delivered',
  'read',
  'failed',
  'skipped',
] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/** What holds a campaign back when the governor says "not yet". */
export const BLOCKED_BY = ['tier', 'throughput', 'pair_rate'] as const;
export type BlockedBy = (typeof BLOCKED_BY)[number];

export const FINAL_CAMPAIGN_STATUSES: readonly CampaignStatus[] = CAMPAIGN_MACHINES.messaging.final;

export const isFinalCampaign = (status: CampaignStatus): boolean => isFinal('messaging', status);

/** At most this many attempts to hand one recipient's message to the channel. */
export const MAX_RECIPIENT_ATTEMPTS = 5;
/** Auto-pause: more than this many failures among the last ERROR_WINDOW attempts. */
export const ERROR_WINDOW = 100;
export const ERROR_PAUSE_THRESHOLD = 50;
/** A campaign is meant for more than this many recipients (spec §8); smaller ones still send. */
export const RECOMMENDED_MIN_AUDIENCE = 100;

/** The channel's and the runner's failure codes, explained for people (recipients table, docs). */
export const RECIPIENT_ERRORS: Record<string, { title: string; explanation: string }> = {
  variable_missing: {
    title: 'Missing contact field',
    explanation:
      'A variable uses a contact field this contact does not have (for example {{contact.name}} without a name). Fill the field and send again in a new campaign.',
  },
  '131026': {
    title: 'Undeliverable',
    explanation:
      'The number cannot receive the message: it is not on the chat channel, or it cannot receive business messages.',
  },
  '131000': {
    title: 'Temporary channel error',
    explanation: 'The channel failed for a moment. Parley retried with a growing pause.',
  },
  '130429': {
    title: 'Throughput limit',
    explanation:
      'The channel refused more messages per second than the account is allowed. Parley retried later.',
  },
  '131056': {
    title: 'Too many messages to this person',
    explanation:
      'The channel allows one message to the same person every 6 seconds. Parley retried later.',
  },
  '131047': {
    title: 'Outside the service window',
    explanation: 'Only templates may be sent more than 24 hours after the person last wrote.',
  },
  dispatch_failed: {
    title: 'The channel did not take it',
    explanation: 'Every attempt to hand the message to the channel failed.',
  },
  template_not_sendable: {
    title: 'Template stopped',
    explanation:
      'The template was paused, disabled or changed while the campaign ran, so the rest were not sent.',
  },
  cancelled: {
    title: 'Campaign cancelled',
    explanation: 'The campaign was cancelled before this contact’s turn.',
  },
};

/** Counts of a campaign's funnel (README "Campaigns"). */
export interface FunnelCounts {
  total: number;
  pending: number;
  retrying: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  skipped: number;
}

/** The funnel invariants every progress read holds: tests and the UI check them the same way. */
export function funnelHolds(p: FunnelCounts): boolean {
  return (
    p.total === p.pending + p.retrying + p.sent + p.failed + p.skipped &&
    p.read <= p.delivered &&
    p.delivered <= p.sent &&
    [p.pending, p.retrying, p.sent, p.delivered, p.read, p.failed, p.skipped].every((n) => n >= 0)
  );
}

/** Share of recipients done (sent, failed or skipped), 0–1; 1 for an empty audience. */
export const doneShare = (p: FunnelCounts): number =>
  p.total === 0 ? 1 : (p.sent + p.failed + p.skipped) / p.total;
