/**
 * The stores of a kind of campaign (messaging campaigns, email campaigns): the list, the one open
 * on its page, and its recipients. Each kind says how its records and events read; the stores
 * keep them live from the event stream the same way.
 */
import { create } from 'zustand';
import { ApiRequestError, errorMessage, type Page } from '../api/client.ts';
import { events, type EventType } from '../api/events.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  withFresherRow,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { createRequestGuard, registerScopedStore, type LoadStatus } from './scope.ts';

/** A campaign record as the stores handle it, whatever its kind. */
export interface CampaignRecord {
  id: string;
  status: string;
  updatedAt: string;
}

/** What the stores need to know of a kind of campaign; `P` is what a progress event carries. */
export interface CampaignKind<C extends CampaignRecord, P> {
  /** The event that carries a campaign's new record, and the one that carries its progress. */
  statusEvent: EventType;
  progressEvent: EventType;
  /** The campaign of a status event, when it has the shape the API documents. */
  campaignOf: (data: Record<string, unknown>) => C | null;
  /** The campaign and progress of a progress event, when it has the shape the API documents. */
  progressOf: (data: Record<string, unknown>) => { campaignId: string; progress: P } | null;
  /** A fresher copy of a shown campaign (an answer, an event) merged with the one shown. */
  merge: (current: C, next: C) => C;
  /** The campaign as a progress event says it is now (events arrive in the order written). */
  withProgress: (campaign: C, progress: P) => C;
}

/**
 * Whether `next` is at least as far along as `current`, by `advance`: how many are done first,
 * then outcomes reported later. Neither goes back, so of two reads of one campaign the one
 * further along is the newer (an older answer must not roll it back).
 */
export const notBehind =
  <T>(advance: (counts: T) => [number, number]) =>
  (next: T, current: T): boolean => {
    const [a1, a2] = advance(next);
    const [b1, b2] = advance(current);
    return a1 > b1 || (a1 === b1 && a2 >= b2);
  };

/** Of two copies of a record, the one updated last (`next` when they tie). */
export const newerOf = <C extends { updatedAt: string }>(current: C, next: C): C =>
  Date.parse(next.updatedAt) < Date.parse(current.updatedAt) ? current : next;

// ---------- The list ----------

export interface CampaignListState<C extends CampaignRecord, P, F extends string>
  extends PagedListMeta, StatusFilteredActions<F> {
  campaigns: C[];
  statusFilter: F;
  /** Puts a fresher copy of a campaign into the list (a save, an answer, an event). */
  apply: (campaign: C) => void;
  applyProgress: (campaignId: string, progress: P) => void;
  reset: () => void;
}

const LIST_PAGE_SIZE = 50;

/** A kind's campaigns, newest first, filtered by status and kept live by the stream. */
export function createCampaignListStore<C extends CampaignRecord, P, F extends string>(
  kind: CampaignKind<C, P>,
  read: (query: { status: F; limit: number; cursor?: string }) => Promise<Page<C>>,
) {
  type State = CampaignListState<C, P, F>;
  const emptyList = (): Pick<State, 'campaigns' | keyof PagedListMeta> => ({
    ...emptyPagedList(),
    campaigns: [],
  });

  const useList = create<State>()((set, get) => {
    const list = createStatusFilteredList({
      set,
      get,
      read,
      pageSize: LIST_PAGE_SIZE,
      rows: (s) => s.campaigns,
      withRows: (campaigns) => ({ campaigns }),
    });

    return {
      ...emptyList(),
      statusFilter: '' as F,
      ...list.actions,

      apply: (campaign) => {
        set((s) => {
          const campaigns = withFresherRow(s.campaigns, campaign, s, kind.merge);
          return campaigns === s.campaigns ? s : { campaigns };
        });
      },

      applyProgress: (campaignId, progress) => {
        set((s) => {
          const index = s.campaigns.findIndex((c) => c.id === campaignId);
          if (index < 0) return s;
          const campaigns = s.campaigns.slice();
          campaigns[index] = kind.withProgress(s.campaigns[index]!, progress);
          return { campaigns };
        });
      },

      reset: () => {
        list.invalidate();
        set(emptyList());
      },
    };
  });

  registerScopedStore(() => useList.getState().reset());

  events.subscribe(kind.statusEvent, (event) => {
    const campaign = kind.campaignOf(event.data);
    if (campaign) useList.getState().apply(campaign);
  });

  events.subscribe(kind.progressEvent, (event) => {
    const found = kind.progressOf(event.data);
    if (found) useList.getState().applyProgress(found.campaignId, found.progress);
  });

  return useList;
}

// ---------- The campaign open on its page ----------

export interface CampaignDetailState<C extends CampaignRecord, P, T> {
  campaignId: string | null;
  campaign: C | null;
  status: LoadStatus;
  error: string | null;
  /** The campaign does not exist in this scope (another mode's or workspace's, or a bad link). */
  notFound: boolean;
  timeline: T | null;
  /** Opens a campaign (reads it unless it is the one already shown). */
  open: (campaignId: string) => void;
  reload: () => Promise<void>;
  close: () => void;
  /** Puts a fresher copy in place (an action's answer, an event). */
  apply: (campaign: C) => void;
  /** A progress event: the counts now, and the timeline read again soon. */
  applyProgress: (campaignId: string, progress: P) => void;
  pause: () => Promise<void>;
  /** Launches a paused campaign again: it resumes now. */
  resume: () => Promise<void>;
  /** Launches a paused campaign for a later time (an ISO instant) instead. */
  reschedule: (scheduledFor: string) => Promise<void>;
  cancel: () => Promise<void>;
}

interface CampaignDetailOptions<C extends CampaignRecord, P, T, F extends string> {
  kind: CampaignKind<C, P>;
  api: {
    get: (id: string) => Promise<C>;
    timeline: (id: string) => Promise<T>;
    launch: (id: string, scheduledFor?: string) => Promise<C>;
    pause: (id: string) => Promise<C>;
    cancel: (id: string) => Promise<C>;
  };
  /** The kind's list store: what it knows shows at once, and actions' answers go there too. */
  list: { getState: () => CampaignListState<C, P, F> };
  /** Whether a campaign just read has a timeline worth reading (default: every one). */
  hasTimeline?: (campaign: C) => boolean;
}

/** The timeline is read again at most this often while progress events arrive. */
const TIMELINE_EVERY_MS = 3_000;

/**
 * The campaign open on its page: its record (status, counts) kept live by the event stream, and
 * its timeline, read again (at most every few seconds) as progress arrives.
 */
export function createCampaignDetailStore<C extends CampaignRecord, P, T, F extends string>({
  kind,
  api,
  list,
  hasTimeline = () => true,
}: CampaignDetailOptions<C, P, T, F>) {
  const useDetail = create<CampaignDetailState<C, P, T>>()((set, get) => {
    const guard = createRequestGuard();
    let timelineTimer: number | null = null;
    let timelineReadAt = 0;

    const readTimeline = async (): Promise<void> => {
      const { campaignId } = get();
      if (!campaignId) return;
      const isCurrent = guard.start();
      timelineReadAt = Date.now();
      try {
        const timeline = await api.timeline(campaignId);
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

    const act = async (action: (id: string) => Promise<C>): Promise<void> => {
      const { campaignId } = get();
      if (!campaignId) return;
      const campaign = await action(campaignId);
      get().apply(campaign);
      list.getState().apply(campaign);
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
        const known = list.getState().campaigns.find((c) => c.id === campaignId) ?? null;
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
          const campaign = await api.get(campaignId);
          if (!isCurrent()) return;
          const shown = get().campaign;
          set({
            campaign: shown && shown.id === campaign.id ? kind.merge(shown, campaign) : campaign,
            status: 'ready',
          });
          if (hasTimeline(campaign)) void readTimeline();
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
        const next = shown ? kind.merge(shown, campaign) : campaign;
        set({ campaign: next });
        // A start, a pause or the end shows on the chart as well.
        if (shown && shown.status !== next.status && get().status === 'ready') refreshTimeline();
      },

      applyProgress: (campaignId, progress) => {
        const shown = get().campaign;
        if (campaignId !== get().campaignId || !shown) return;
        set({ campaign: kind.withProgress(shown, progress) });
        refreshTimeline();
      },

      pause: () => act(api.pause),
      resume: () => act((id) => api.launch(id)),
      reschedule: (scheduledFor) => act((id) => api.launch(id, scheduledFor)),
      cancel: () => act(api.cancel),
    };
  });

  registerScopedStore(() => useDetail.getState().close());

  events.subscribe(kind.statusEvent, (event) => {
    const campaign = kind.campaignOf(event.data);
    if (campaign) useDetail.getState().apply(campaign);
  });

  events.subscribe(kind.progressEvent, (event) => {
    const found = kind.progressOf(event.data);
    if (found) useDetail.getState().applyProgress(found.campaignId, found.progress);
  });

  return useDetail;
}

// ---------- The recipients of the open campaign ----------

export interface RecipientsState<R extends { id: string }, F extends string>
  extends PagedListMeta, StatusFilteredActions<F> {
  campaignId: string | null;
  recipients: R[];
  statusFilter: F;
  /**
   * Progress was reported since the rows shown were read, and they are too many to follow by
   * themselves (more than RECIPIENTS_FOLLOWED): the table offers to read them again.
   */
  outdated: boolean;
  show: (campaignId: string) => void;
  /** Reads the rows shown again without a loading state (the table follows the campaign). */
  refresh: () => Promise<void>;
  /**
   * The table is on screen: the rows follow the campaign until the returned release (its
   * unmount). Unwatched, progress reads nothing; the rows are read again once watched again.
   */
  watch: () => () => void;
  reset: () => void;
}

interface RecipientsOptions<C extends CampaignRecord, P, R, F extends string> {
  kind: CampaignKind<C, P>;
  read: (
    campaignId: string,
    query: { status: F; limit: number; cursor?: string },
  ) => Promise<Page<R>>;
  /** Whether a campaign in this state is over: its rows are then read again at once. */
  isFinal: (status: C['status']) => boolean;
}

const RECIPIENTS_PAGE_SIZE = 100;
/** While progress arrives, the rows shown are read again at most this often. */
export const RECIPIENTS_FOLLOW_MS = 2_000;
/** Up to this many rows shown, the table follows by itself; beyond, it offers a refresh. */
export const RECIPIENTS_FOLLOWED = 5 * RECIPIENTS_PAGE_SIZE;

/**
 * The recipients table of the open campaign: paged by cursor, filtered by status. While the
 * campaign moves and the table is on screen (`watch`), the rows shown are read again quietly
 * (every RECIPIENTS_FOLLOW_MS at most): no loading state, the filter, the pages read and the
 * scroll kept. Past RECIPIENTS_FOLLOWED rows the table offers a refresh instead of re-reading
 * them all every few seconds. Off screen it reads nothing.
 */
export function createRecipientsStore<
  C extends CampaignRecord,
  P,
  R extends { id: string },
  F extends string,
>({ kind, read, isFinal }: RecipientsOptions<C, P, R, F>) {
  const empty = () => ({
    ...emptyPagedList(),
    recipients: [] as R[],
    outdated: false,
  });

  const useRecipients = create<RecipientsState<R, F>>()((set, get) => {
    const list = createStatusFilteredList({
      set,
      get,
      read: (query) => read(get().campaignId ?? '', query),
      pageSize: RECIPIENTS_PAGE_SIZE,
      rows: (s) => s.recipients,
      withRows: (recipients) => ({ recipients }),
    });

    return {
      ...empty(),
      campaignId: null,
      statusFilter: '' as F,
      ...list.actions,

      show: (campaignId) => {
        if (campaignId === get().campaignId) return;
        stopFollowing();
        missed = false;
        list.invalidate();
        set({ ...empty(), campaignId, statusFilter: '' as F });
      },

      load: async () => {
        if (!get().campaignId) return;
        missed = false;
        set({ outdated: false });
        await list.load();
      },

      refresh: async () => {
        if (!get().campaignId) return;
        followReadAt = Date.now();
        if (await list.refresh()) set({ outdated: false });
      },

      watch: () => {
        watchers += 1;
        if (watchers === 1 && missed) {
          missed = false;
          follow();
        }
        let released = false;
        return () => {
          if (released) return;
          released = true;
          watchers -= 1;
          if (watchers === 0) stopFollowing();
        };
      },

      reset: () => {
        stopFollowing();
        missed = false;
        list.invalidate();
        set({ ...empty(), campaignId: null, statusFilter: '' as F });
      },
    };
  });

  let followTimer: number | null = null;
  let followReadAt = 0;
  /** Tables on screen that show these rows (the rows follow the campaign only while one is). */
  let watchers = 0;
  /** The campaign moved while no table was on screen: the rows are read again once one is. */
  let missed = false;

  function stopFollowing(): void {
    if (followTimer !== null) window.clearTimeout(followTimer);
    followTimer = null;
  }

  /** The campaign moved: its rows are read again soon (one read pending at most). */
  const follow = (): void => {
    const state = useRecipients.getState();
    if (state.status !== 'ready') return;
    if (watchers === 0) {
      missed = true;
      return;
    }
    if (state.recipients.length > RECIPIENTS_FOLLOWED) {
      if (!state.outdated) useRecipients.setState({ outdated: true });
      return;
    }
    if (followTimer !== null) return;
    const wait = Math.max(0, followReadAt + RECIPIENTS_FOLLOW_MS - Date.now());
    followTimer = window.setTimeout(() => {
      followTimer = null;
      void useRecipients.getState().refresh();
    }, wait);
  };

  registerScopedStore(() => useRecipients.getState().reset());

  events.subscribe(kind.progressEvent, (event) => {
    const found = kind.progressOf(event.data);
    if (found && found.campaignId === useRecipients.getState().campaignId) follow();
  });

  events.subscribe(kind.statusEvent, (event) => {
    const campaign = kind.campaignOf(event.data);
    const state = useRecipients.getState();
    if (campaign?.id !== state.campaignId || state.status === 'idle') return;
    // Its end settles the rows (cancelled ones turn skipped or cancelled): show them as they are
    // (at once on screen, else once the table is shown again).
    if (isFinal(campaign.status) && watchers > 0) {
      stopFollowing();
      void state.refresh();
    } else follow();
  });

  return useRecipients;
}
