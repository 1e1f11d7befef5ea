import { create } from 'zustand';
import type { CannedReply, CannedReplyBody } from '../../../shared/schemas/index.ts';
import { api } from '../api/client.ts';
import { createLibrary, emptyLibrary, type LibraryMeta } from './library.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

/**
 * Canned replies: the management screen's list (paged, searched by the core) and the composer's
 * library (every canned reply of the scope, loaded once and filtered as the agent types, so the
 * `/` picker answers each keystroke without a request). Saves and deletes update both.
 */
interface CannedRepliesState extends PagedListMeta, LibraryMeta<CannedReply> {
  replies: CannedReply[];
  /** The screen's search, as sent to the core (`?q=`). */
  query: string;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  search: (query: string) => Promise<void>;
  /** Loads the library once per scope (again after a failure). */
  ensureLibrary: () => void;
  /** Reads the library again in the background (others may have saved replies meanwhile). */
  refreshLibrary: () => void;
  create: (body: CannedReplyBody) => Promise<CannedReply>;
  update: (id: string, body: CannedReplyBody) => Promise<CannedReply>;
  remove: (id: string) => Promise<void>;
  reset: () => void;
}

const PAGE_SIZE = 50;

const byShortcut = (a: CannedReply, b: CannedReply) => a.shortcut.localeCompare(b.shortcut);

/** The core's `q` rule (part of the shortcut or the text, ignoring case), for local updates. */
const matchesQuery = (reply: CannedReply, query: string): boolean => {
  const q = query.trim().toLowerCase();
  return !q || reply.shortcut.includes(q) || reply.text.toLowerCase().includes(q);
};

/** Puts a saved reply in its place (replacing its older copy), or drops it when it no longer belongs. */
const placed = (list: CannedReply[], reply: CannedReply, belongs: boolean): CannedReply[] => {
  const rest = list.filter((r) => r.id !== reply.id);
  return belongs ? [...rest, reply].sort(byShortcut) : rest;
};

const initial = () => ({
  ...emptyPagedList(),
  replies: [] as CannedReply[],
  query: '',
  ...emptyLibrary<CannedReply>(),
});

export const useCannedReplies = create<CannedRepliesState>()((set, get) => {
  const list = createPagedList({
    set,
    get,
    first: () => api.cannedReplies.list({ limit: PAGE_SIZE, q: get().query.trim() }),
    next: (cursor) => api.cannedReplies.list({ limit: PAGE_SIZE, q: get().query.trim(), cursor }),
    rows: (s) => s.replies,
    withRows: (replies) => ({ replies }),
  });

  const library = createLibrary<CannedReply>({
    set,
    get,
    readPage: (page) => api.cannedReplies.list(page),
  });

  const saved = (reply: CannedReply): CannedReply => {
    library.changed();
    set((s) => ({
      replies: placed(s.replies, reply, matchesQuery(reply, s.query)),
      library: placed(s.library, reply, true),
    }));
    return reply;
  };

  return {
    ...initial(),

    load: list.load,
    loadMore: list.loadMore,

    search: async (query) => {
      if (query === get().query && get().status !== 'idle') return;
      set({ query });
      await list.load();
    },

    ensureLibrary: library.ensure,
    refreshLibrary: library.refresh,

    create: async (body) => saved(await api.cannedReplies.create(body)),
    update: async (id, body) => saved(await api.cannedReplies.update(id, body)),

    remove: async (id) => {
      await api.cannedReplies.remove(id);
      library.changed();
      set((s) => ({
        replies: s.replies.filter((r) => r.id !== id),
        library: s.library.filter((r) => r.id !== id),
      }));
    },

    reset: () => {
      list.invalidate();
      set(initial());
    },
  };
});

registerScopedStore(() => useCannedReplies.getState().reset());

/**
 * The picker's matches for what follows `/`: shortcuts that start with it first, then those that
 * contain it, then replies whose text does; alphabetical within each.
 */
export function matchCannedReplies(library: CannedReply[], typed: string): CannedReply[] {
  const q = typed.toLowerCase();
  if (!q) return library;
  const rank = (r: CannedReply): number =>
    r.shortcut.startsWith(q)
      ? 0
      : r.shortcut.includes(q)
        ? 1
        : r.text.toLowerCase().includes(q)
          ? 2
          : 3;
  return library
    .map((r) => ({ r, rank: rank(r) }))
    .filter((x) => x.rank < 3)
    .sort((a, b) => a.rank - b.rank || byShortcut(a.r, b.r))
    .map((x) => x.r);
}
