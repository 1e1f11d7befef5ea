import { create } from 'zustand';
import type { Conversation, ConversationStatus, Message } from '../../../shared/schemas/index.ts';
import { contactLabel } from '../../../shared/phone.ts';
import { api, type ConversationCounts, type ConversationQuery } from '../api/client.ts';
import { events } from '../api/events.ts';
import { useAgents } from './agents.ts';
import { MESSAGE_EVENTS, STATUS_RANK } from './message-list.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

/**
 * The inbox's conversation list: one filtered, paged view sorted by last activity (newest first),
 * kept live by conversation.* and message.* events, with per-status counts for the tabs.
 */
export type AssigneeFilter = 'all' | 'me' | 'unassigned';

export interface InboxFilters {
  status: ConversationStatus;
  assignee: AssigneeFilter;
  label: string;
  q: string;
  /** Only conversations with unread messages. */
  unread: boolean;
}

type Changes = Record<string, { from: unknown; to: unknown }>;

interface InboxState extends PagedListMeta {
  filters: InboxFilters;
  conversations: Conversation[];
  counts: ConversationCounts | null;
  /** Unread messages over the open and pending conversations this desk knows of. */
  unreadTotal: number;
  /** Conversation labels seen so far, offered by the label filter. */
  knownLabels: string[];
  setFilters: (filters: Partial<InboxFilters>) => void;
  /** A status tab was picked: loads it afresh even when it is the current one. */
  selectStatus: (status: ConversationStatus) => void;
  /** Rows ticked for a bulk action (ids); cleared when the view changes. */
  selection: ReadonlySet<string>;
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
  selection: new Set(),
  selectionAnchor: null,
});

/** The list's order: last activity first, the id breaking ties (as the API pages). */
export function compareConversations(a: Conversation, b: Conversation): number {
  const at = Date.parse(b.lastMessageAt) - Date.parse(a.lastMessageAt);
  if (at !== 0) return at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const isNewer = (next: Conversation, current: Conversation): boolean =>
  !(Date.parse(next.updatedAt) < Date.parse(current.updatedAt));

// ---------- What this desk knows of every conversation it has seen ----------

/** The freshest copy of every conversation seen (any tab, any event): names and unread totals. */
const known = new Map<string, Conversation>();

const unreadOf = (c: Conversation | undefined): number =>
  c && (c.status === 'open' || c.status === 'pending') ? c.unreadCount : 0;

export const knownConversation = (id: string): Conversation | undefined => known.get(id);

/**
 * The conversation open in the thread. Reading it under the Unread filter does not pull it out
 * of the list under the agent (as mail clients do): it stays until the view is loaded again.
 */
let heldId: string | null = null;
export const holdInView = (id: string | null): void => {
  heldId = id;
};

// ---------- Filters ----------

function matchesExceptStatus(c: Conversation, f: InboxFilters, meId: string | null): boolean {
  if (f.assignee === 'me' && (meId === null || c.assignee !== meId)) return false;
  if (f.assignee === 'unassigned' && c.assignee !== null) return false;
  if (f.label.trim() && !c.labels.includes(f.label.trim())) return false;
  if (f.unread && c.unreadCount === 0) return false;
  return true;
}

const queryOf = (f: InboxFilters): ConversationQuery => ({
  status: f.status,
  ...(f.assignee !== 'all' ? { assignee: f.assignee } : {}),
  ...(f.label.trim() ? { label: f.label.trim() } : {}),
  ...(f.q.trim() ? { q: f.q.trim() } : {}),
  ...(f.unread ? { unread: true } : {}),
});

/** The conversation as it was before `changes` (the event's from-values). */
function previousOf(c: Conversation, changes: Changes): Conversation {
  const before: Record<string, unknown> = { ...c };
  for (const [field, change] of Object.entries(changes)) before[field] = change.from;
  return before as Conversation;
}

/** The selection without `id` (the same set when it was not in it). */
function without1(selection: ReadonlySet<string>, id: string): ReadonlySet<string> {
  if (!selection.has(id)) return selection;
  const next = new Set(selection);
  next.delete(id);
  return next;
}

function insertSorted(list: Conversation[], c: Conversation, hasMore: boolean): Conversation[] {
  let index = list.findIndex((row) => compareConversations(c, row) < 0);
  if (index < 0) {
    // Past the last loaded row: it arrives with a later page, in order.
    if (hasMore) return list;
    index = list.length;
  }
  const next = list.slice();
  next.splice(index, 0, c);
  return next;
}

export const useInbox = create<InboxState>()((set, get) => {
  // Bumped by every local change to the counts: a reconcile read before it is stale.
  let countsSeq = 0;
  let reconcileTimer: number | null = null;

  const meId = (): string | null => useAgents.getState().meId;

  /** Keeps the freshest copy of each; returns what the desk now holds for each of them. */
  const rememberAll = (list: Conversation[]): Conversation[] => {
    let delta = 0;
    const labels = new Set(get().knownLabels);
    const before = labels.size;
    const kept = list.map((c) => {
      const current = known.get(c.id);
      if (current && !isNewer(c, current)) return current;
      known.set(c.id, c);
      delta += unreadOf(c) - unreadOf(current);
      for (const label of c.labels) labels.add(label);
      return c;
    });
    if (delta !== 0 || labels.size !== before) {
      set((s) => ({
        unreadTotal: s.unreadTotal + delta,
        ...(labels.size !== before ? { knownLabels: [...labels].sort() } : {}),
      }));
    }
    return kept;
  };
  const remember = (c: Conversation): Conversation => rememberAll([c])[0]!;

  // Every first-page load supersedes the ones before: answers for an older filter are dropped.
  const list = createPagedList({
    set,
    get,
    first: () => api.conversations.list({ ...queryOf(get().filters), limit: FIRST_PAGE_SIZE }),
    onFirst: (page) => {
      countsSeq += 1;
      return { counts: page.counts };
    },
    next: (cursor) =>
      api.conversations.list({ ...queryOf(get().filters), limit: PAGE_SIZE, cursor }),
    rows: (s) => s.conversations,
    withRows: (conversations) => ({ conversations }),
    keep: rememberAll,
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
    const startedAt = countsSeq;
    try {
      const page = await api.conversations.list({ ...queryOf(get().filters), limit: 1 });
      if (!isCurrent()) return;
      if (startedAt !== countsSeq) return scheduleReconcile();
      set({ counts: page.counts });
    } catch {
      // The next event or load tries again; the tabs keep their last counts meanwhile.
    }
  };

  const adjustCounts = (c: Conversation, changes: Changes | 'created'): void => {
    const { counts, filters } = get();
    if (!counts) return;
    if (filters.q.trim()) {
      // Message-text search cannot be judged here: ask the API.
      countsSeq += 1;
      scheduleReconcile();
      return;
    }
    let previous: Conversation | null = null;
    if (changes !== 'created') {
      // Only these move a conversation between tabs or in and out of the filters.
      const moves =
        'status' in changes ||
        'assignee' in changes ||
        'labels' in changes ||
        (filters.unread && 'unreadCount' in changes);
      if (!moves) return;
      previous = previousOf(c, changes);
    }
    const me = meId();
    const next = { ...counts };
    if (previous && matchesExceptStatus(previous, filters, me)) {
      next[previous.status] = Math.max(0, next[previous.status] - 1);
    }
    if (matchesExceptStatus(c, filters, me)) next[c.status] += 1;
    countsSeq += 1;
    set({ counts: next });
  };

  // Ids of changed conversations a search may now match, waiting to be re-checked by the API.
  const recheck = new Set<string>();
  let recheckTimer: number | null = null;

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
   * same answer brings the tabs' counts.
   */
  const runRecheck = async (): Promise<void> => {
    recheckTimer = null;
    const ids = [...recheck].slice(0, RECHECK_BATCH);
    for (const id of ids) recheck.delete(id);
    if (recheck.size > 0) recheckTimer = window.setTimeout(runRecheck, RECHECK_DELAY_MS);
    const isCurrent = list.guard.start();
    const startedAt = countsSeq;
    try {
      const page = await api.conversations.list({
        ...queryOf(get().filters),
        ids,
        limit: ids.length,
      });
      if (!isCurrent()) return;
      if (startedAt === countsSeq) {
        countsSeq += 1;
        set({ counts: page.counts });
      }
      for (const c of rememberAll(page.data)) upsertRow(c, true);
    } catch {
      // The next change, tab click or reconnect re-reads the list.
    }
  };

  /**
   * Puts a fresher copy where it belongs in the view, or takes it out. `confirmed`: the API has
   * just listed it under the current filters, search included.
   */
  const upsertRow = (c: Conversation, confirmed = false): void => {
    const state = get();
    if (state.status !== 'ready') return;
    const shown = state.conversations.some((row) => row.id === c.id);
    const filters = shown && c.id === heldId ? { ...state.filters, unread: false } : state.filters;
    const matches = c.status === filters.status && matchesExceptStatus(c, filters, meId());
    if (matches && !shown && !confirmed && state.filters.q.trim()) {
      // It may match the search now (a new message, a reopened or woken conversation).
      queueRecheck(c.id);
      return;
    }
    set((s) => {
      const index = s.conversations.findIndex((row) => row.id === c.id);
      if (index >= 0) {
        const current = s.conversations[index]!;
        if (!isNewer(c, current)) return s;
        const without = s.conversations.slice();
        without.splice(index, 1);
        if (!matches) return { conversations: without, selection: without1(s.selection, c.id) };
        return { conversations: insertSorted(without, c, false) };
      }
      if (!matches) return s;
      return { conversations: insertSorted(s.conversations, c, s.nextCursor !== null) };
    });
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
        countsSeq += 1;
        set({ counts: page.counts });
        for (const c of rememberAll(page.data)) upsertRow(c, true);
      } catch {
        // Still showing the last known state; the next reconnect or load tries again.
      }
    },

    apply: (conversation, changes) => {
      const fresh = remember(conversation);
      if (changes) adjustCounts(conversation, changes);
      if (fresh === conversation) upsertRow(conversation);
    },

    applyMessage: (message) => {
      // Like the API, a row previews the last message exchanged: private notes stay in the thread.
      if (message.type === 'note') return;
      const current = known.get(message.conversationId);
      if (!current) return;
      const last = current.lastMessage;
      if (
        last &&
        (message.id < last.id ||
          (message.id === last.id && STATUS_RANK[message.status] < STATUS_RANK[last.status]))
      ) {
        return;
      }
      const next = { ...current, lastMessage: message };
      known.set(next.id, next);
      set((s) => {
        const index = s.conversations.findIndex((c) => c.id === next.id);
        if (index < 0) return s;
        const conversations = s.conversations.slice();
        conversations[index] = next;
        return { conversations };
      });
    },

    reset: () => {
      list.invalidate();
      known.clear();
      clearRecheck();
      if (reconcileTimer !== null) window.clearTimeout(reconcileTimer);
      reconcileTimer = null;
      set(emptyList());
    },
  };
});

registerScopedStore(() => useInbox.getState().reset());

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

// The Mine filter follows whoever the desk acts as.
useAgents.subscribe((s, previous) => {
  if (s.meId === previous.meId) return;
  const inbox = useInbox.getState();
  if (inbox.filters.assignee === 'me' && inbox.status !== 'idle') void inbox.load();
});

/**
 * How a conversation is called in lists and notices: the contact's name, else the phone, else
 * (a WhatsApp user who shares no phone) their user id.
 */
export const conversationTitle = (c: Pick<Conversation, 'contact'>): string =>
  contactLabel({ ...c.contact, name: c.contact.name?.trim() ?? null });

// After the stream was down, re-read what is on screen (events missed meanwhile included).
let streamWas = events.status;
events.onStatus((status) => {
  const resumed = status === 'open' && streamWas === 'reconnecting';
  streamWas = status;
  if (resumed && useInbox.getState().status === 'ready') void useInbox.getState().refreshTop();
});
