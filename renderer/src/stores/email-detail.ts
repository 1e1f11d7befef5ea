import { create } from 'zustand';
import { ApiRequestError, errorMessage } from '../api/client.ts';
import { events } from '../api/events.ts';
import {
  emailProgressEvent,
  emailStatusEvent,
  mergeEmailCampaign,
  useEmailCampaigns,
  withProgress,
  type EmailProgress,
} from './email.ts';
import { emailApi, type EmailCampaign, type EmailTimeline } from './email-api.ts';
import { createRequestGuard, registerScopedStore, type LoadStatus } from './scope.ts';

/**
 * The email campaign open on its page: its record (status, counts) kept live by the event
 * stream, and its activity timeline, read again (at most every few seconds) as progress arrives.
 */
interface EmailDetailState {
  campaignId: string | null;
  campaign: EmailCampaign | null;
  status: LoadStatus;
  error: string | null;
  /** The campaign does not exist in this scope (another mode's or workspace's, or a bad link). */
  notFound: boolean;
  timeline: EmailTimeline | null;
  /** Opens a campaign (reads it unless it is the one already shown). */
  open: (campaignId: string) => void;
  reload: () => Promise<void>;
  close: () => void;
  /** Puts a fresher copy in place (an action's answer, an event). */
  apply: (campaign: EmailCampaign) => void;
  /** An `email_campaign.progress` event: the counts now, and the timeline read again soon. */
  applyProgress: (progress: EmailProgress) => void;
  pause: () => Promise<void>;
  /** Launches a paused campaign again. */
  resume: () => Promise<void>;
  cancel: () => Promise<void>;
}

/** The timeline is read again at most this often while progress events arrive. */
const TIMELINE_EVERY_MS = 3_000;

export const useEmailDetail = create<EmailDetailState>()((set, get) => {
  const guard = createRequestGuard();
  let timelineTimer: number | null = null;
  let timelineReadAt = 0;

  const readTimeline = async (): Promise<void> => {
    const { campaignId } = get();
    if (!campaignId) return;
    const isCurrent = guard.start();
    timelineReadAt = Date.now();
    try {
      const timeline = await emailApi.timeline(campaignId);
      if (isCurrent()) set({ timeline });
    } catch {
      // The chart keeps what it shows; the next progress event tries again.
    }
  };

  /** Reads the timeline now, or once the last read is TIMELINE_EVERY_MS old (one pending). */
  const refreshTimeline = (): void => {
    if (timelineTimer !== null) return;
    const wait = Math.max(0, timelineReadAt + TIMELINE_EVERY_MS - Date.now());
    timelineTimer = window.setTimeout(() => {
      timelineTimer = null;
      void readTimeline();
    }, wait);
  };

  const stopTimeline = (): void => {
    if (timelineTimer !== null) window.clearTimeout(timelineTimer);
    timelineTimer = null;
  };

  const act = async (action: (id: string) => Promise<EmailCampaign>): Promise<void> => {
    const { campaignId } = get();
    if (!campaignId) return;
    const campaign = await action(campaignId);
    get().apply(campaign);
    useEmailCampaigns.getState().apply(campaign);
  };

  return {
    campaignId: null,
    campaign: null,
    status: 'idle',
    error: null,
    notFound: false,
    timeline: null,

    open: (campaignId) => {
      if (campaignId === get().campaignId && get().status !== 'idle') return;
      stopTimeline();
      // What the list already knows shows at once; the read below brings the rest.
      const known = useEmailCampaigns.getState().campaigns.find((c) => c.id === campaignId) ?? null;
      set({
        campaignId,
        campaign: known,
        timeline: null,
        error: null,
        notFound: false,
        status: 'idle',
      });
      void get().reload();
    },

    reload: async () => {
      const { campaignId } = get();
      if (!campaignId) return;
      guard.invalidate();
      const isCurrent = guard.start();
      set({ status: 'loading', error: null });
      try {
        const campaign = await emailApi.get(campaignId);
        if (!isCurrent()) return;
        const shown = get().campaign;
        set({
          campaign:
            shown && shown.id === campaign.id ? mergeEmailCampaign(shown, campaign) : campaign,
          status: 'ready',
        });
        if (campaign.status !== 'draft') void readTimeline();
      } catch (e) {
        if (!isCurrent()) return;
        const notFound = e instanceof ApiRequestError && e.status === 404;
        set({ status: 'error', error: errorMessage(e), notFound });
      }
    },

    close: () => {
      guard.invalidate();
      stopTimeline();
      set({
        campaignId: null,
        campaign: null,
        timeline: null,
        status: 'idle',
        error: null,
        notFound: false,
      });
    },

    apply: (campaign) => {
      const shown = get().campaign;
      if (campaign.id !== get().campaignId) return;
      const next = shown ? mergeEmailCampaign(shown, campaign) : campaign;
      set({ campaign: next });
      // A start, a pause or the end shows on the chart as well.
      if (shown && shown.status !== next.status && get().status === 'ready') refreshTimeline();
    },

    applyProgress: (progress) => {
      const shown = get().campaign;
      if (progress.campaignId !== get().campaignId || !shown) return;
      set({ campaign: withProgress(shown, progress) });
      refreshTimeline();
    },

    pause: () => act(emailApi.pause),
    resume: () => act((id) => emailApi.launch(id)),
    cancel: () => act(emailApi.cancel),
  };
});

registerScopedStore(() => useEmailDetail.getState().close());

events.subscribe('email_campaign.status_updated', (event) => {
  const campaign = emailStatusEvent(event.data);
  if (campaign) useEmailDetail.getState().apply(campaign);
});

events.subscribe('email_campaign.progress', (event) => {
  const progress = emailProgressEvent(event.data);
  if (progress) useEmailDetail.getState().applyProgress(progress);
});
