import { create } from 'zustand';
import type { Conversation, ConversationStatus, Message } from '../../../shared/schemas/index.ts';
import { contactLabel } from '../../../shared/phone.ts';
import { api, type ConversationQuery } from '../api/client.ts';
import { events, type StreamStatus } from '../api/events.ts';
import {
  reduceConversationEvent,
  rememberConversations,
  type Changes,
  type InboxEvent,
  type InboxFilters,
  type InboxView,
} from './inbox-reducer.ts';
import { KnownConversations } from './known-conversations.ts';
import { onCampaignActivity } from './campaign-activity.ts';
import { MESSAGE_EVENTS } from './message-list.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';
import { selectMemberId, useSession } from './session.ts';

export type { AssigneeFilter, InboxFilters } from './inbox-reducer.ts';

/**
 * The inbox's conversation list: one filtered, paged view sorted by last activity (newest first),
 * kept live by conversation.* and message.* events, with per-status counts for the tabs. What an
 * event does is decided by `reduceConversationEvent` (inbox-reducer.ts); this store feeds it,
 * keeps what comes out, and owns the requests and timers the rules ask for.
 */
interface InboxState extends PagedListMeta, InboxView {
  filters: InboxFilters;
  setFilters: (filters: Partial<InboxFilters>) => void;
  /** A status tab was picked: loads it afresh even when it is the current one. */
  selectStatus: (status: ConversationStatus) => void;
  /** The row a shift-click extends from (the last one ticked or unticked). */
  selectionAnchor: string | null;
  /** Ticks or unticks a row; `range` does the same to every loaded row from the anchor to it. */
  toggleSelected: (id: string, range?: boolean) => void;
  /** Ticks every loaded row, or unticks them all when all are ticked. */
  toggleAllLoaded: () => void;
  clearSelection: () => void;
  /** Loads once (e.g. at start-up); later calls are no-ops (a failed load is retried on request). */
  ensureLoaded: () => void;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  /** Re-reads the first page and the counts, merging them in (after a stream reconnect). */
  refreshTop: () => Promise<void>;
  /** A fresher copy of a conversation: `changes` (from an event) also moves the counts. */
  apply: (conversation: Conversation, changes?: Changes | 'created') => void;
  applyMessage: (message: Message) => void;
  reset: () => void;
}

export const FIRST_PAGE_SIZE = 50;
export const PAGE_SIZE = 100;
/** Counts a search makes unknowable here are read from the API once events pause this long. */
const RECONCILE_DELAY_MS = 800;
/** Changed rows a search may now match are re-checked by the API in batches this often. */
const RECHECK_DELAY_MS = 150;
/** The most ids one re-check asks about (the API's limit). */
const RECHECK_BATCH = 50;

const DEFAULT_FILTERS: InboxFilters = {
  status: 'open',
  assignee: 'all',
  label: '',
  q: '',
  unread: false,
};

const sameFilters = (a: InboxFilters, b: InboxFilters): boolean =>
  a.status === b.status &&
  a.assignee === b.assignee &&
  a.label === b.label &&
  a.q === b.q &&
  a.unread === b.unread;

type InboxData = Pick<
  InboxState,
  | 'conversations'
  | 'counts'
  | 'unreadTotal'
  | 'knownLabels'
  | 'known'
  | 'selection'
  | 'selectionAnchor'
  | keyof PagedListMeta
>;

/** All but the filters, as before the first load (and after a scope switch). */
const emptyList = (): InboxData => ({
  ...emptyPagedList(),
  conversations: [],
  counts: null,
  unreadTotal: 0,
  knownLabels: [],
  known: KnownConversations.empty,
  selection: new Set(),
  selectionAnchor: null,
});

/** What the reducer reads and writes, out of the store's state (a small object, cheap to copy). */
const viewOf = (s: InboxState): InboxView => ({
  status: s.status,
  conversations: s.conversations,
  nextCursor: s.nextCursor,
  counts: s.counts,
  countsVersion: s.countsVersion,
  unreadTotal: s.unreadTotal,
  knownLabels: s.knownLabels,
  known: s.known,
  heldId: s.heldId,
  selection: s.selection,
});

const queryOf = (f: InboxFilters): ConversationQuery => ({
  status: f.status,
  ...(f.assignee !== 'all' ? { assignee: f.assignee } : {}),
  ...(f.label.trim() ? { label: f.label.trim() } : {}),
  ...(f.q.trim() ? { q: f.q.trim() } : {}),
  ...(f.unread ? { unread: true } : {}),
});

export const useInbox = create<InboxState>()((set, get) => {
  let reconcileTimer: number | null = null;
  // Ids of changed conversations a search may now match, waiting to be re-checked by the API.
  const recheck = new Set<string>();
  let recheckTimer: number | null = null;

  /** Runs one event through the rules; keeps the state, and schedules what only the API can do. */
  const dispatch = (event: InboxEvent): void => {
    const current = get();
    const view = viewOf(current);
    const next = reduceConversationEvent(
      view,
      event,
      current.filters,
      selectMemberId(useSession.getState()),
    );
    if (next.state !== view) set(next.state);
    for (const id of next.recheck) queueRecheck(id);
    if (next.reconcileCounts) scheduleReconcile();
  };

  // Every first-page load supersedes the ones before: answers for an older filter are dropped.
  const list = createPagedList({
    set,
    get,
    first: () => api.conversations.list({ ...queryOf(get().filters), limit: FIRST_PAGE_SIZE }),
    onFirst: (page) => ({ counts: page.counts, countsVersion: get().countsVersion + 1 }),
    next: (cursor) =>
      api.conversations.list({ ...queryOf(get().filters), limit: PAGE_SIZE, cursor }),
    rows: (s) => s.conversations,
    withRows: (conversations) => ({ conversations }),
    keep: (rows) => {
      const view = viewOf(get());
      const { state, kept } = rememberConversations(view, rows);
      if (state !== view) set(state);
      return kept;
    },
  });

  const scheduleReconcile = (): void => {
    if (reconcileTimer !== null) window.clearTimeout(reconcileTimer);
    reconcileTimer = window.setTimeout(() => {
      reconcileTimer = null;
      void reconcileCounts();
    }, RECONCILE_DELAY_MS);
  };

  /** Reads the counts alone (a one-row page) when they cannot be worked out locally. */
  const reconcileCounts = async (): Promise<void> => {
    const isCurrent = list.guard.start();
    const startedAt = get().countsVersion;
    try {
      const page = await api.conversations.list({ ...queryOf(get().filters), limit: 1 });
      if (!isCurrent()) return;
      if (startedAt !== get().countsVersion) return scheduleReconcile();
      set({ counts: page.counts });
    } catch {
      // The next event or load tries again; the tabs keep their last counts meanwhile.
    }
  };

  const queueRecheck = (id: string): void => {
    recheck.add(id);
    if (recheckTimer === null) recheckTimer = window.setTimeout(runRecheck, RECHECK_DELAY_MS);
  };

  const clearRecheck = (): void => {
    recheck.clear();
    if (recheckTimer !== null) window.clearTimeout(recheckTimer);
    recheckTimer = null;
  };

  /**
   * Asks the list endpoint, under the current filters and search, which of the changed rows
   * belong in the view now (a search matches message text, which only the API can judge). The
   * same answer brings the tabs' counts, unless they changed locally meanwhile.
   */
  const runRecheck = async (): Promise<void> => {
    recheckTimer = null;
    const ids = [...recheck].slice(0, RECHECK_BATCH);
    for (const id of ids) recheck.delete(id);
    if (recheck.size > 0) recheckTimer = window.setTimeout(runRecheck, RECHECK_DELAY_MS);
    const isCurrent = list.guard.start();
    const startedAt = get().countsVersion;
    try {
      const page = await api.conversations.list({
        ...queryOf(get().filters),
        ids,
        limit: ids.length,
      });
      if (!isCurrent()) return;
      dispatch({
        type: 'listed',
        conversations: page.data,
        ...(startedAt === get().countsVersion ? { counts: page.counts } : {}),
      });
    } catch {
      // The next change, tab click or reconnect re-reads the list.
    }
  };

  /** Shows a view afresh: another filter, or the same tab picked again. */
  const reloadView = (filters: InboxFilters): void => {
    clearRecheck();
    set({ filters, selection: new Set(), selectionAnchor: null });
    void get().load();
  };

  return {
    ...emptyList(),
    filters: DEFAULT_FILTERS,
    countsVersion: 0,
    heldId: null,

    setFilters: (partial) => {
      const current = get().filters;
      const next = { ...current, ...partial };
      if (sameFilters(next, current)) return;
      reloadView(next);
    },

    selectStatus: (status) => reloadView({ ...get().filters, status }),

    toggleSelected: (id, range = false) => {
      set((s) => {
        const selection = new Set(s.selection);
        const on = !selection.has(id);
        const ids = s.conversations.map((c) => c.id);
        const from = range && s.selectionAnchor ? ids.indexOf(s.selectionAnchor) : -1;
        const to = ids.indexOf(id);
        if (from >= 0 && to >= 0) {
          // Shift-click: the whole range takes the state of the row clicked.
          for (const rowId of ids.slice(Math.min(from, to), Math.max(from, to) + 1)) {
            if (on) selection.add(rowId);
            else selection.delete(rowId);
          }
        } else if (on) selection.add(id);
        else selection.delete(id);
        return { selection, selectionAnchor: id };
      });
    },

    toggleAllLoaded: () => {
      set((s) => {
        const all =
          s.conversations.length > 0 && s.conversations.every((c) => s.selection.has(c.id));
        return {
          selection: all ? new Set() : new Set(s.conversations.map((c) => c.id)),
          selectionAnchor: null,
        };
      });
    },

    clearSelection: () => set({ selection: new Set(), selectionAnchor: null }),

    ensureLoaded: () => {
      const { status, load } = get();
      if (status === 'idle') void load();
    },

    load: list.load,
    loadMore: list.loadMore,

    refreshTop: async () => {
      if (get().status !== 'ready') return get().load();
      const isCurrent = list.guard.start();
      try {
        const page = await api.conversations.list({
          ...queryOf(get().filters),
          limit: FIRST_PAGE_SIZE,
        });
        if (!isCurrent()) return;
        dispatch({ type: 'listed', conversations: page.data, counts: page.counts });
      } catch {
        // Still showing the last known state; the next reconnect or load tries again.
      }
    },

    apply: (conversation, changes) =>
      dispatch({ type: 'conversation', conversation, ...(changes ? { changes } : {}) }),

    applyMessage: (message) => dispatch({ type: 'message', message }),

    reset: () => {
      list.invalidate();
      clearRecheck();
      if (reconcileTimer !== null) window.clearTimeout(reconcileTimer);
      reconcileTimer = null;
      set(emptyList());
    },
  };
});

registerScopedStore(() => useInbox.getState().reset());

/** The freshest copy of a conversation this desk has seen (any tab, any event). */
export const knownConversation = (id: string): Conversation | undefined =>
  useInbox.getState().known.get(id);

/** The conversation open in the thread stays in the list while read (see `InboxView.heldId`). */
export const holdInView = (id: string | null): void => {
  if (useInbox.getState().heldId !== id) useInbox.setState({ heldId: id });
};

events.subscribe(['conversation.created', 'conversation.updated'], (event) => {
  const conversation = event.data.conversation as Conversation | undefined;
  if (!conversation?.id) return;
  const changes =
    event.type === 'conversation.created'
      ? 'created'
      : ((event.data.changes as Changes | undefined) ?? {});
  useInbox.getState().apply(conversation, changes);
});

events.subscribe(MESSAGE_EVENTS, (event) => {
  const message = event.data.message as Message | undefined;
  if (message?.conversationId) useInbox.getState().applyMessage(message);
});

// A campaign's sends create and move conversations without an event each on this stream.
onCampaignActivity(() => {
  if (useInbox.getState().status === 'ready') void useInbox.getState().refreshTop();
});

// The Mine filter follows whoever is signed in.
useSession.subscribe((s, previous) => {
  if (selectMemberId(s) === selectMemberId(previous)) return;
  const inbox = useInbox.getState();
  if (inbox.filters.assignee === 'me' && inbox.status !== 'idle') void inbox.load();
});

/**
 * How a conversation is called in lists and notices: the contact's name, else the phone, else
 * (a WhatsApp user who shares no phone) their user id.
 */
export const conversationTitle = (c: Pick<Conversation, 'contact'>): string =>
  contactLabel({ ...c.contact, name: c.contact.name?.trim() ?? null });

/** After the stream was down, re-reads what is on screen (events missed meanwhile included). */
function refreshOnResume(): (status: StreamStatus) => void {
  let was = events.status;
  return (status) => {
    const resumed = status === 'open' && was === 'reconnecting';
    was = status;
    if (resumed && useInbox.getState().status === 'ready') void useInbox.getState().refreshTop();
  };
}

events.onStatus(refreshOnResume());
