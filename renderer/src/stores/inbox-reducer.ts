/**
 * The inbox list's rules, as pure functions: what a conversation event, a message event or rows
 * the API has just listed do to the list on screen, the tabs' counts, the unread total and the
 * labels seen. No React, zustand, timers or requests here: the store (inbox.ts) feeds events in,
 * keeps the state that comes out, and runs the two follow-ups the rules ask for but cannot do
 * themselves (`recheck`, `reconcileCounts`), since only the API can judge a message-text search.
 */
import type { Conversation, ConversationStatus, Message } from '../../../shared/schemas/index.ts';
import type { ConversationCounts } from '../api/client.ts';
import type { KnownConversations } from './known-conversations.ts';
import { STATUS_RANK } from './message-list.ts';
import type { LoadStatus } from './scope.ts';

export type AssigneeFilter = 'all' | 'me' | 'unassigned';

export interface InboxFilters {
  status: ConversationStatus;
  assignee: AssigneeFilter;
  label: string;
  q: string;
  /** Only conversations with unread messages. */
  unread: boolean;
}

/** A conversation.updated event's `changes`: each changed field's value before and after. */
export type Changes = Record<string, { from: unknown; to: unknown }>;

/** What the list's rules read and write (the store holds it beside its actions). */
export interface InboxView {
  /** Rows are placed only into a loaded list (`ready`); before that the first page brings them. */
  status: LoadStatus;
  /** The current view's rows, in `compareConversations` order. */
  conversations: Conversation[];
  /** Set while more pages follow: a row sorting past the last loaded one arrives with them. */
  nextCursor: string | null;
  /** Per-status counts under the current filters (all but status), for the tabs. */
  counts: ConversationCounts | null;
  /** Bumped by every local change to the counts: a counts read started before it is stale. */
  countsVersion: number;
  /** Unread messages over the open and pending conversations this desk knows of. */
  unreadTotal: number;
  /** Conversation labels seen so far, sorted, offered by the label filter. */
  knownLabels: string[];
  /** The freshest copy of every conversation seen (any tab, any event): names and unread totals. */
  known: KnownConversations;
  /**
   * The conversation open in the thread. Reading it under the Unread filter does not pull it out
   * of the list under the agent (as mail clients do): it stays until the view is loaded again.
   */
  heldId: string | null;
  /** Rows ticked for a bulk action; a row that leaves the view leaves the selection. */
  selection: ReadonlySet<string>;
}

export type InboxEvent =
  /**
   * A fresher copy of a conversation: from a conversation.created (`changes: 'created'`) or
   * conversation.updated event (its `changes` also move the counts), or an API answer (none).
   */
  | { type: 'conversation'; conversation: Conversation; changes?: Changes | 'created' }
  /** A message event: the row previews the last message exchanged. */
  | { type: 'message'; message: Message }
  /**
   * Rows the API has just listed under the current filters and search (a re-check or a re-read
   * of the first page), with the counts that came with them when these are still current.
   */
  | { type: 'listed'; conversations: Conversation[]; counts?: ConversationCounts };

export interface Reduced {
  /** The same object when nothing changed. */
  state: InboxView;
  /** Rows that may now match the search: the API must say whether they belong in the view. */
  recheck: string[];
  /** The counts could not be worked out here (a search is on): the API must give them. */
  reconcileCounts: boolean;
}

/** The list's order: last activity first, the id breaking ties (as the API pages). */
export function compareConversations(a: Conversation, b: Conversation): number {
  const at = Date.parse(b.lastMessageAt) - Date.parse(a.lastMessageAt);
  if (at !== 0) return at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Not older than `current` (an equal copy counts as fresh: it changes nothing). */
const isNewer = (next: Conversation, current: Conversation): boolean =>
  !(Date.parse(next.updatedAt) < Date.parse(current.updatedAt));

const unreadOf = (c: Conversation | undefined): number =>
  c && (c.status === 'open' || c.status === 'pending') ? c.unreadCount : 0;

/** The server's filters, all but status and the search (which only the API can judge). */
export function matchesExceptStatus(c: Conversation, f: InboxFilters, me: string | null): boolean {
  if (f.assignee === 'me' && (me === null || c.assignee !== me)) return false;
  if (f.assignee === 'unassigned' && c.assignee !== null) return false;
  if (f.label.trim() && !c.labels.includes(f.label.trim())) return false;
  if (f.unread && c.unreadCount === 0) return false;
  return true;
}

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

/** `compareConversations(c, row) < 0`, with c's time (`at`) parsed once for a whole list. */
function sortsBefore(c: Conversation, at: number, row: Conversation): boolean {
  const rowAt = Date.parse(row.lastMessageAt);
  return rowAt < at || (rowAt === at && c.id > row.id);
}

function insertSorted(list: Conversation[], c: Conversation, hasMore: boolean): Conversation[] {
  const at = Date.parse(c.lastMessageAt);
  let index = list.findIndex((row) => sortsBefore(c, at, row));
  if (index < 0) {
    // Past the last loaded row: it arrives with a later page, in order.
    if (hasMore) return list;
    index = list.length;
  }
  const next = list.slice();
  next.splice(index, 0, c);
  return next;
}

const unchanged = (state: InboxView): Reduced => ({
  state,
  recheck: [],
  reconcileCounts: false,
});

/**
 * Keeps the freshest copy of each conversation (the unread total and the labels seen follow);
 * `kept` is what the desk now holds for each of them, in order: a stale copy is swapped for the
 * fresher one already known.
 */
export function rememberConversations(
  state: InboxView,
  list: readonly Conversation[],
): { state: InboxView; kept: Conversation[] } {
  const fresher: Conversation[] = [];
  const fresherById = new Map<string, Conversation>();
  let delta = 0;
  const labels = new Set(state.knownLabels);
  const before = labels.size;
  const kept = list.map((c) => {
    const current = fresherById.get(c.id) ?? state.known.get(c.id);
    if (current && !isNewer(c, current)) return current;
    fresher.push(c);
    fresherById.set(c.id, c);
    delta += unreadOf(c) - unreadOf(current);
    for (const label of c.labels) labels.add(label);
    return c;
  });
  if (fresher.length === 0) return { state, kept };
  return {
    state: {
      ...state,
      known: state.known.with(fresher),
      unreadTotal: state.unreadTotal + delta,
      ...(labels.size !== before ? { knownLabels: [...labels].sort() } : {}),
    },
    kept,
  };
}

/** The tabs' counts after an event, worked out locally when no search is on. */
function countEvent(
  state: InboxView,
  c: Conversation,
  changes: Changes | 'created',
  filters: InboxFilters,
  me: string | null,
): Reduced {
  if (!state.counts) return unchanged(state);
  if (filters.q.trim()) {
    // Message-text search cannot be judged here: the API must count (a read already on its way
    // is now stale).
    return {
      state: { ...state, countsVersion: state.countsVersion + 1 },
      recheck: [],
      reconcileCounts: true,
    };
  }
  let previous: Conversation | null = null;
  if (changes !== 'created') {
    // Only these move a conversation between tabs or in and out of the filters.
    const moves =
      'status' in changes ||
      'assignee' in changes ||
      'labels' in changes ||
      (filters.unread && 'unreadCount' in changes);
    if (!moves) return unchanged(state);
    previous = previousOf(c, changes);
  }
  const counts = { ...state.counts };
  if (previous && matchesExceptStatus(previous, filters, me)) {
    counts[previous.status] = Math.max(0, counts[previous.status] - 1);
  }
  if (matchesExceptStatus(c, filters, me)) counts[c.status] += 1;
  return unchanged({ ...state, counts, countsVersion: state.countsVersion + 1 });
}

/**
 * Puts a fresher copy where it belongs in the view, or takes it out. `confirmed`: the API has
 * just listed it under the current filters, search included.
 */
function placeRow(
  state: InboxView,
  c: Conversation,
  filters: InboxFilters,
  me: string | null,
  confirmed: boolean,
): Reduced {
  if (state.status !== 'ready') return unchanged(state);
  const index = state.conversations.findIndex((row) => row.id === c.id);
  const shown = index >= 0;
  const view = shown && c.id === state.heldId ? { ...filters, unread: false } : filters;
  const matches = c.status === view.status && matchesExceptStatus(c, view, me);
  if (matches && !shown && !confirmed && filters.q.trim()) {
    // It may match the search now (a new message, a reopened or woken conversation).
    return { state, recheck: [c.id], reconcileCounts: false };
  }
  if (shown) {
    if (!isNewer(c, state.conversations[index]!)) return unchanged(state);
    const without = state.conversations.slice();
    without.splice(index, 1);
    if (!matches) {
      return unchanged({
        ...state,
        conversations: without,
        selection: without1(state.selection, c.id),
      });
    }
    return unchanged({ ...state, conversations: insertSorted(without, c, false) });
  }
  if (!matches) return unchanged(state);
  const conversations = insertSorted(state.conversations, c, state.nextCursor !== null);
  return conversations === state.conversations
    ? unchanged(state)
    : unchanged({ ...state, conversations });
}

/** A message event: the row (and the copy known) previews the last message exchanged. */
function reduceMessage(state: InboxView, message: Message): Reduced {
  // Like the API, a row previews the last message exchanged: private notes stay in the thread.
  if (message.type === 'note') return unchanged(state);
  const current = state.known.get(message.conversationId);
  if (!current) return unchanged(state);
  const last = current.lastMessage;
  if (
    last &&
    (message.id < last.id ||
      (message.id === last.id && STATUS_RANK[message.status] < STATUS_RANK[last.status]))
  ) {
    return unchanged(state);
  }
  const next = { ...current, lastMessage: message };
  const known = state.known.with([next]);
  const index = state.conversations.findIndex((c) => c.id === next.id);
  if (index < 0) return unchanged({ ...state, known });
  const conversations = state.conversations.slice();
  conversations[index] = next;
  return unchanged({ ...state, known, conversations });
}

/**
 * What one event does to the inbox: the state after it, and what only the API can settle
 * (rows to re-check against the search, counts to read). `filters` is the view on screen; `me`
 * the agent the desk acts as (the Mine filter), or null.
 */
export function reduceConversationEvent(
  state: InboxView,
  event: InboxEvent,
  filters: InboxFilters,
  me: string | null,
): Reduced {
  switch (event.type) {
    case 'conversation': {
      const c = event.conversation;
      const remembered = rememberConversations(state, [c]);
      const counted = event.changes
        ? countEvent(remembered.state, c, event.changes, filters, me)
        : unchanged(remembered.state);
      // Only a copy at least as fresh as the one known moves its row.
      if (remembered.kept[0] !== c) return counted;
      const placed = placeRow(counted.state, c, filters, me, false);
      return { ...placed, reconcileCounts: counted.reconcileCounts };
    }
    case 'message':
      return reduceMessage(state, event.message);
    case 'listed': {
      let next = event.counts
        ? { ...state, counts: event.counts, countsVersion: state.countsVersion + 1 }
        : state;
      const remembered = rememberConversations(next, event.conversations);
      next = remembered.state;
      for (const c of remembered.kept) next = placeRow(next, c, filters, me, true).state;
      return unchanged(next);
    }
  }
}
