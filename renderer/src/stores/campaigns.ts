import type { CampaignStatus } from '../../../shared/campaign-rules.ts';
import {
  createCampaignListStore,
  newerOf,
  notBehind,
  type CampaignKind,
} from './campaign-stores.ts';
import { campaignsApi, type Campaign, type CampaignProgress } from './campaigns-api.ts';

export type CampaignStatusFilter = CampaignStatus | '';

/**
 * How far a funnel has come: recipients done (sent, failed or skipped) first, then outcomes the
 * channel reported. A sent message that fails moves from delivered to failed, so neither goes
 * back.
 */
export const progressNotBehind = notBehind((p: CampaignProgress): [number, number] => [
  p.sent + p.failed + p.skipped,
  p.delivered + p.read + p.failed,
]);

/**
 * A fresher copy of a campaign, from an answer or a `campaign.status_updated` event: its record
 * when it is not older than the one shown, and the funnel that is further along.
 */
export function mergeCampaign(current: Campaign, next: Campaign): Campaign {
  const base = newerOf(current, next);
  const metrics = progressNotBehind(next.metrics, current.metrics) ? next.metrics : current.metrics;
  return { ...base, metrics: { ...metrics, status: base.status } };
}

/**
 * A `campaign.progress` event: events arrive in the order they were written, so it is the
 * campaign's state now, its status included.
 */
export const withProgress = (campaign: Campaign, progress: CampaignProgress): Campaign => ({
  ...campaign,
  status: progress.status,
  metrics: progress,
});

/** The data of a `campaign.progress` event, when it has the shape the API documents. */
export function progressEvent(
  data: Record<string, unknown>,
): { campaignId: string; name: string | null; progress: CampaignProgress } | null {
  const { campaignId, progress, name } = data;
  if (typeof campaignId !== 'string' || !progress || typeof progress !== 'object') return null;
  return {
    campaignId,
    name: typeof name === 'string' ? name : null,
    progress: progress as CampaignProgress,
  };
}

/** The campaign of a `campaign.status_updated` event. */
export function statusEvent(data: Record<string, unknown>): Campaign | null {
  const campaign = data.campaign as Campaign | undefined;
  return campaign && typeof campaign.id === 'string' ? campaign : null;
}

/** Messaging campaigns, as the campaign stores (campaign-stores.ts) read them. */
export const campaignKind: CampaignKind<Campaign, CampaignProgress> = {
  statusEvent: 'campaign.status_updated',
  progressEvent: 'campaign.progress',
  campaignOf: statusEvent,
  progressOf: progressEvent,
  merge: mergeCampaign,
  withProgress,
};

/** The campaigns list, newest first, filtered by status and kept live by the stream. */
export const useCampaigns = createCampaignListStore<
  Campaign,
  CampaignProgress,
  CampaignStatusFilter
>(campaignKind, (query) => campaignsApi.list(query));

export const CAMPAIGN_STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  paused: 'Paused',
  completed: 'Completed',
  cancelled: 'Cancelled',
  failed: 'Failed',
};
