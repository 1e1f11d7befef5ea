/**
 * What the contacts drawer's thread and the inbox's thread share: a list of messages kept oldest
 * first, paged backwards from the newest, and merged with message.* events as they arrive.
 */
import type { Message, MessageStatus } from '../../../shared/schemas/index.ts';
import { errorMessage, type Page, type PageParams } from '../api/client.ts';
import type { EventType } from '../api/events.ts';
import { createRequestGuard, type LoadStatus, type RequestGuard } from './scope.ts';

const MESSAGES_PAGE_SIZE = 30;
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * The events that carry a message as it now is: new, sent, delivered, read or failed; its file
 * fetched or not (`media.status`); a reaction put on it or taken back.
 */
export const MESSAGE_STATUS_EVENTS = [
  'message.received',
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'message.media_ready',
  'message.media_failed',
  'message.reaction',
] as const satisfies readonly EventType[];

/** Every message event, agents' private notes included. */
export const MESSAGE_EVENTS = [
  ...MESSAGE_STATUS_EVENTS,
  'message.note',
] as const satisfies readonly EventType[];

/** Statuses only move forward (README "API"): a late or replayed event never moves one back. */
export const STATUS_RANK: Record<MessageStatus, number> = {
  received: 0,
  note: 0,
  accepted: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  failed: 4,
};

const byTime = (a: Message, b: Message): number =>
  Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Merges fresher copies and new messages into a thread kept oldest first. */
export function mergeMessages(current: Message[], incoming: Message[]): Message[] {
  const byId = new Map(current.map((m) => [m.id, m]));
  let changed = false;
  for (const next of incoming) {
    const existing = byId.get(next.id);
    if (existing && STATUS_RANK[next.status] < STATUS_RANK[existing.status]) continue;
    if (existing === next) continue;
    byId.set(next.id, next);
    changed = true;
  }
  return changed ? [...byId.values()].sort(byTime) : current;
}

export interface MessageListData {
  /** Oldest first, as a chat reads. */
  messages: Message[];
  nextCursor: string | null;
  status: LoadStatus;
  loadingOlder: boolean;
  error: string | null;
}

export const emptyMessageList = (): MessageListData => ({
  messages: [],
  nextCursor: null,
  status: 'idle',
  loadingOlder: false,
  error: null,
});

/** The newest page merged in; only the first load decides where "load older" continues from. */
const withNewestPage = (
  state: MessageListData,
  page: Page<Message>,
): Pick<MessageListData, 'messages' | 'nextCursor' | 'status'> => ({
  messages: mergeMessages(state.messages, page.data),
  nextCursor: state.status !== 'ready' ? page.nextCursor : state.nextCursor,
  status: 'ready',
});

interface MessageListOptions<S extends MessageListData> {
  set: (
    partial:
      Partial<MessageListData> | Partial<S> | ((state: S) => Partial<MessageListData> | Partial<S>),
  ) => void;
  get: () => S;
  /** The store's state with nothing open. */
  empty: () => Partial<S>;
  /** The id of what is open (a contact, a conversation), or null. */
  openId: (state: S) => string | null;
  /** Reads a page of messages, newest first from `cursor` (or the newest). */
  fetchPage: (id: string, params: PageParams) => Promise<Page<Message>>;
}

interface NewestOptions<S extends MessageListData, R> {
  /** Reads something else along with the page (e.g. the conversation itself). */
  along?: (id: string) => Promise<R>;
  /** What to show with the page, from what was read along. */
  show?: (along: R, state: S) => Partial<S>;
  /** Runs once both show. */
  then?: (along: R) => void;
  /** Once messages show, a failure goes to the caller instead of replacing them. */
  keepShown?: boolean;
}

export interface MessageList<S extends MessageListData> {
  /** Shows `fields` (what is open) with no message yet; answers for what was open are dropped. */
  open: (fields: Partial<S>) => void;
  /** Shows nothing; answers still on their way are dropped. */
  clear: () => void;
  /**
   * (Re)reads the newest page and merges it in, unless something else was opened meanwhile; a
   * failure shows as the list's error.
   */
  loadNewest: <R = undefined>(options?: NewestOptions<S, R>) => Promise<void>;
  /** The page before the oldest message shown. */
  loadOlder: () => Promise<void>;
  /** For other requests about what is open: their answers are dropped once it closes. */
  guard: RequestGuard;
}

/** The opening, paging and stale-answer logic of a store holding one message list. */
export function createMessageList<S extends MessageListData>({
  set,
  get,
  empty,
  openId,
  fetchPage,
}: MessageListOptions<S>): MessageList<S> {
  // Invalidated whenever something else opens, so answers for the previous one are dropped.
  const guard = createRequestGuard();

  async function loadNewest<R = undefined>({
    along,
    show,
    then,
    keepShown = false,
  }: NewestOptions<S, R> = {}): Promise<void> {
    const id = openId(get());
    if (!id) return;
    const isCurrent = guard.start();
    if (get().status !== 'ready') set({ status: 'loading', error: null });
    try {
      const [page, alongResult] = await Promise.all([
        fetchPage(id, { limit: MESSAGES_PAGE_SIZE }),
        along?.(id),
      ]);
      if (!isCurrent()) return;
      // Without `along`, R is undefined, and so is what `show` and `then` are given.
      const extra = alongResult as R;
      set((s) => ({ ...withNewestPage(s, page), ...show?.(extra, s) }));
      then?.(extra);
    } catch (e) {
      if (!isCurrent()) return;
      if (keepShown && get().status === 'ready') throw e;
      set({ status: 'error', error: errorMessage(e) });
    }
  }

  return {
    guard,

    open: (fields) => {
      guard.invalidate();
      set({ ...empty(), ...fields });
    },

    clear: () => {
      guard.invalidate();
      set(empty());
    },

    loadNewest,

    loadOlder: async () => {
      const state = get();
      const id = openId(state);
      const { nextCursor, loadingOlder } = state;
      if (!id || !nextCursor || loadingOlder) return;
      const isCurrent = guard.start();
      set({ loadingOlder: true });
      try {
        const page = await fetchPage(id, { limit: MESSAGES_PAGE_SIZE, cursor: nextCursor });
        if (!isCurrent()) return;
        set((s) => ({
          messages: mergeMessages(s.messages, page.data),
          nextCursor: page.nextCursor,
        }));
      } finally {
        if (isCurrent()) set({ loadingOlder: false });
      }
    },
  };
}

/** What a thread on screen reads from its store (select it with `useShallow`). */
export interface MessageListView extends Pick<
  MessageListData,
  'messages' | 'status' | 'nextCursor' | 'loadingOlder'
> {
  loadOlder: () => Promise<void>;
}

export const selectMessageList = (s: MessageListView): MessageListView => ({
  messages: s.messages,
  status: s.status,
  nextCursor: s.nextCursor,
  loadingOlder: s.loadingOlder,
  loadOlder: s.loadOlder,
});
