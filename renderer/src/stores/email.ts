import {
  createCampaignListStore,
  newerOf,
  notBehind,
  type CampaignKind,
} from './campaign-stores.ts';
import { CAMPAIGN_STATUS_LABELS } from './campaigns.ts';
import {
  emailApi,
  type EmailCampaign,
  type EmailCampaignStatus,
  type EmailCounts,
} from './email-api.ts';

export type EmailStatusFilter = EmailCampaignStatus | '';

/**
 * How far an email campaign's counts have come: recipients done (sent, failed or cancelled)
 * first, then what happened to the emails sent.
 */
export const countsNotBehind = notBehind((c: EmailCounts): [number, number] => [
  c.sent + c.failed + c.cancelled,
  c.delivered + c.bounced + c.opened + c.clicked + c.unsubscribed,
]);

/**
 * A fresher copy of a campaign, from an answer or an `email_campaign.status_updated` event: its
 * record when it is not older than the one shown, and the counts that are further along.
 */
export function mergeEmailCampaign(current: EmailCampaign, next: EmailCampaign): EmailCampaign {
  const base = newerOf(current, next);
  const counts = countsNotBehind(next.counts, current.counts) ? next.counts : current.counts;
  return { ...base, counts };
}

/** The data of an `email_campaign.progress` event: events arrive in order, so it is the state now. */
export interface EmailProgress {
  campaignId: string;
  status: EmailCampaignStatus;
  counts: EmailCounts;
}

export const withProgress = (campaign: EmailCampaign, progress: EmailProgress): EmailCampaign => ({
  ...campaign,
  status: progress.status,
  counts: progress.counts,
});

/** The data of an `email_campaign.progress` event, when it has the shape the API documents. */
export function emailProgressEvent(data: Record<string, unknown>): EmailProgress | null {
  const { campaignId, status, counts } = data;
  if (typeof campaignId !== 'string' || typeof status !== 'string') return null;
  if (!counts || typeof counts !== 'object') return null;
  return { campaignId, status: status as EmailCampaignStatus, counts: counts as EmailCounts };
}

/** The campaign of an `email_campaign.status_updated` event. */
export function emailStatusEvent(data: Record<string, unknown>): EmailCampaign | null {
  const campaign = data.campaign as EmailCampaign | undefined;
  return campaign && typeof campaign.id === 'string' && campaign.counts ? campaign : null;
}

/** Email campaigns, as the campaign stores (campaign-stores.ts) read them. */
export const emailCampaignKind: CampaignKind<EmailCampaign, EmailProgress> = {
  statusEvent: 'email_campaign.status_updated',
  progressEvent: 'email_campaign.progress',
  campaignOf: emailStatusEvent,
  progressOf: (data) => {
    const progress = emailProgressEvent(data);
    return progress && { campaignId: progress.campaignId, progress };
  },
  merge: mergeEmailCampaign,
  withProgress,
};

/** The email campaigns list, newest first, filtered by status and kept live by the stream. */
export const useEmailCampaigns = createCampaignListStore<
  EmailCampaign,
  EmailProgress,
  EmailStatusFilter
>(emailCampaignKind, (query) => emailApi.list(query));

/**
 * An email campaign's states in words: a messaging campaign's, which it has all of but `failed`
 * (its status chip is theirs too).
 */
const { failed: _failed, ...emailStatusLabels } = CAMPAIGN_STATUS_LABELS;
export const EMAIL_CAMPAIGN_STATUS_LABELS: Record<EmailCampaignStatus, string> = emailStatusLabels;

/** The states in the order a campaign goes through them (the filter's order). */
export const EMAIL_CAMPAIGN_STATUSES = Object.keys(
  EMAIL_CAMPAIGN_STATUS_LABELS,
) as EmailCampaignStatus[];
