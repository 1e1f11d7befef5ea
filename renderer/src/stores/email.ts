import { create } from 'zustand';
import { events } from '../api/events.ts';
import {
  emailApi,
  type EmailCampaign,
  type EmailCampaignStatus,
  type EmailCounts,
} from './email-api.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  withFresherRow,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

export type EmailStatusFilter = EmailCampaignStatus | '';

/**
 * How far an email campaign's counts have come: recipients done (sent, failed or cancelled)
 * first, then what happened to the emails sent. Neither goes back, so of two reads of one
 * campaign the one further along is the newer.
 */
const advance = (c: EmailCounts): [number, number] => [
  c.sent + c.failed + c.cancelled,
  c.delivered + c.bounced + c.opened + c.clicked + c.unsubscribed,
];

/** Whether `next` is at least as far along as `current` (an older answer must not roll back). */
export function countsNotBehind(next: EmailCounts, current: EmailCounts): boolean {
  const [a1, a2] = advance(next);
  const [b1, b2] = advance(current);
  return a1 > b1 || (a1 === b1 && a2 >= b2);
}

/**
 * A fresher copy of a campaign, from an answer or an `email_campaign.status_updated` event: its
 * record when it is not older than the one shown, and the counts that are further along.
 */
export function mergeEmailCampaign(current: EmailCampaign, next: EmailCampaign): EmailCampaign {
  const newer = !(Date.parse(next.updatedAt) < Date.parse(current.updatedAt));
  const base = newer ? next : current;
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

interface EmailCampaignsState extends PagedListMeta, StatusFilteredActions<EmailStatusFilter> {
  campaigns: EmailCampaign[];
  statusFilter: EmailStatusFilter;
  /** Puts a fresher copy of a campaign into the list (a save, an answer, an event). */
  apply: (campaign: EmailCampaign) => void;
  applyProgress: (progress: EmailProgress) => void;
  reset: () => void;
}

const PAGE_SIZE = 50;

const emptyList = (): Pick<EmailCampaignsState, 'campaigns' | keyof PagedListMeta> => ({
  ...emptyPagedList(),
  campaigns: [],
});

/** The email campaigns list, newest first, filtered by status and kept live by the stream. */
export const useEmailCampaigns = create<EmailCampaignsState>()((set, get) => {
  const list = createStatusFilteredList({
    set,
    get,
    read: (query) => emailApi.list(query),
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
        const campaigns = withFresherRow(s.campaigns, campaign, s, mergeEmailCampaign);
        return campaigns === s.campaigns ? s : { campaigns };
      });
    },

    applyProgress: (progress) => {
      set((s) => {
        const index = s.campaigns.findIndex((c) => c.id === progress.campaignId);
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

registerScopedStore(() => useEmailCampaigns.getState().reset());

events.subscribe('email_campaign.status_updated', (event) => {
  const campaign = emailStatusEvent(event.data);
  if (campaign) useEmailCampaigns.getState().apply(campaign);
});

events.subscribe('email_campaign.progress', (event) => {
  const progress = emailProgressEvent(event.data);
  if (progress) useEmailCampaigns.getState().applyProgress(progress);
});

export const EMAIL_CAMPAIGN_STATUS_LABELS: Record<EmailCampaignStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  paused: 'Paused',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** The states in the order a campaign goes through them (the filter's order). */
export const EMAIL_CAMPAIGN_STATUSES = Object.keys(
  EMAIL_CAMPAIGN_STATUS_LABELS,
) as EmailCampaignStatus[];
