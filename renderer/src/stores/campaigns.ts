import { create } from 'zustand';
import type { CampaignStatus } from '../../../shared/campaign-rules.ts';
import { events } from '../api/events.ts';
import { campaignsApi, type Campaign, type CampaignProgress } from './campaigns-api.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  withFresherRow,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

export type CampaignStatusFilter = CampaignStatus | '';

/**
 * How far a funnel has come: recipients done (sent, failed or skipped) first, then outcomes the
 * channel reported. Neither ever goes back (a sent message that fails moves from delivered to
 * failed), so of two reads of one campaign the one further along is the newer.
 */
const advance = (p: CampaignProgress): [number, number] => [
  p.sent + p.failed + p.skipped,
  p.delivered + p.read + p.failed,
];

/** Whether `next` is at least as far along as `current` (an older answer must not roll back). */
export function progressNotBehind(next: CampaignProgress, current: CampaignProgress): boolean {
  const [a1, a2] = advance(next);
  const [b1, b2] = advance(current);
  return a1 > b1 || (a1 === b1 && a2 >= b2);
}

/**
 * A fresher copy of a campaign, from an answer or a `campaign.status_updated` event: its record
 * when it is not older than the one shown, and the funnel that is further along.
 */
export function mergeCampaign(current: Campaign, next: Campaign): Campaign {
  const newer = !(Date.parse(next.updatedAt) < Date.parse(current.updatedAt));
  const base = newer ? next : current;
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

interface CampaignsState extends PagedListMeta, StatusFilteredActions<CampaignStatusFilter> {
  campaigns: Campaign[];
  statusFilter: CampaignStatusFilter;
  /** Puts a fresher copy of a campaign into the list (a save, an answer, an event). */
  apply: (campaign: Campaign) => void;
  applyProgress: (campaignId: string, progress: CampaignProgress) => void;
  reset: () => void;
}

const PAGE_SIZE = 50;

const emptyList = (): Pick<CampaignsState, 'campaigns' | keyof PagedListMeta> => ({
  ...emptyPagedList(),
  campaigns: [],
});

export const useCampaigns = create<CampaignsState>()((set, get) => {
  const list = createStatusFilteredList({
    set,
    get,
    read: (query) => campaignsApi.list(query),
    pageSize: PAGE_SIZE,
    rows: (s) => s.campaigns,
    withRows: (campaigns) => ({ campaigns }),
  });

  return {
    ...emptyList(),
    statusFilter: '',
    ...list.actions,

    apply: (campaign) => {
      set((s) => {
        const campaigns = withFresherRow(s.campaigns, campaign, s, mergeCampaign);
        return campaigns === s.campaigns ? s : { campaigns };
      });
    },

    applyProgress: (campaignId, progress) => {
      set((s) => {
        const index = s.campaigns.findIndex((c) => c.id === campaignId);
        if (index < 0) return s;
        const campaigns = s.campaigns.slice();
        campaigns[index] = withProgress(s.campaigns[index]!, progress);
        return { campaigns };
      });
    },

    reset: () => {
      list.invalidate();
      set(emptyList());
    },
  };
});

registerScopedStore(() => useCampaigns.getState().reset());

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

events.subscribe('campaign.status_updated', (event) => {
  const campaign = statusEvent(event.data);
  if (campaign) useCampaigns.getState().apply(campaign);
});

events.subscribe('campaign.progress', (event) => {
  const found = progressEvent(event.data);
  if (found) useCampaigns.getState().applyProgress(found.campaignId, found.progress);
});

export const CAMPAIGN_STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  paused: 'Paused',
  completed: 'Completed',
  cancelled: 'Cancelled',
  failed: 'Failed',
};
