import { errorMessage, type Page } from '../api/client.ts';
import { createRequestGuard, type LoadStatus, type RequestGuard } from './scope.ts';

/** The state every paged list keeps beside its rows. */
export interface PagedListMeta {
  nextCursor: string | null;
  status: LoadStatus;
  loadingMore: boolean;
  error: string | null;
}

export const emptyPagedList = (): PagedListMeta => ({
  nextCursor: null,
  status: 'idle',
  loadingMore: false,
  error: null,
});

interface PagedListOptions<S extends PagedListMeta, T extends { id: string }, P extends Page<T>> {
  set: (partial: Partial<PagedListMeta> | Partial<S> | ((state: S) => Partial<S>)) => void;
  get: () => S;
  /** Reads the first page (with whatever comes along with it). */
  first: () => Promise<P>;
  /** Reads the page after `cursor`. */
  next: (cursor: string) => Promise<Page<T>>;
  /** The rows shown. */
  rows: (state: S) => T[];
  /** The state that shows these rows. */
  withRows: (rows: T[]) => Partial<S>;
  /** What the first page sets besides its rows and cursor (e.g. counts); called once it is current. */
  onFirst?: (page: P) => Partial<S>;
  /** Sees fresh rows before they are shown, and may swap them for fresher copies it knows. */
  keep?: (rows: T[]) => T[];
}

export interface PagedList {
  /** (Re)loads the first page; an answer for an older load or scope is dropped. */
  load: () => Promise<void>;
  /** Appends the next page, skipping rows already shown. */
  loadMore: () => Promise<void>;
  /**
   * Reads the rows shown again, quietly: no loading state, the rows and the filter kept until the
   * fresh ones arrive (as many as are shown, at least a page); rows "load more" appended
   * meanwhile are kept after them. False when it did not (a load or another read is under way,
   * or the read failed: what is shown stays).
   */
  refresh: () => Promise<boolean>;
  /** Drops every answer still on its way (the store resets itself). */
  invalidate: () => void;
  /** The guard of the current load, for other requests that belong to it. */
  guard: RequestGuard;
}

/** The load / load-more / stale-answer logic shared by the stores of paged lists. */
export function createPagedList<
  S extends PagedListMeta,
  T extends { id: string },
  P extends Page<T> = Page<T>,
>({
  set,
  get,
  first,
  next,
  rows,
  withRows,
  onFirst,
  keep = (fresh) => fresh,
}: PagedListOptions<S, T, P>): PagedList {
  const guard = createRequestGuard();
  /** Counts the pages `loadMore` appended: a refresh that ran meanwhile keeps what they added. */
  let appended = 0;

  const load = async (): Promise<void> => {
    const isCurrent = guard.restart();
    set({ status: 'loading', error: null, loadingMore: false });
    try {
      const page = await first();
      if (!isCurrent()) return;
      const extra = onFirst?.(page);
      set({ ...extra, ...withRows(keep(page.data)), nextCursor: page.nextCursor, status: 'ready' });
    } catch (e) {
      if (isCurrent()) set({ status: 'error', error: errorMessage(e) });
    }
  };

  const loadMore = async (): Promise<void> => {
    const { nextCursor, loadingMore, status } = get();
    if (!nextCursor || loadingMore || status !== 'ready') return;
    const isCurrent = guard.start();
    set({ loadingMore: true });
    try {
      const page = await next(nextCursor);
      if (!isCurrent()) return;
      const seen = new Set(rows(get()).map((row) => row.id));
      const fresh = keep(page.data.filter((row) => !seen.has(row.id)));
      appended += 1;
      set((s) => ({ ...withRows([...rows(s), ...fresh]), nextCursor: page.nextCursor }));
    } finally {
      if (isCurrent()) set({ loadingMore: false });
    }
  };

  const refresh = async (): Promise<boolean> => {
    const { status, loadingMore } = get();
    if (status !== 'ready' || loadingMore) return false;
    const isCurrent = guard.start();
    const before = rows(get());
    const appendedBefore = appended;
    const shown = Math.max(before.length, 1);
    try {
      let page: Page<T> = await first();
      let fresh = page.data;
      while (page.nextCursor && fresh.length < shown && isCurrent()) {
        page = await next(page.nextCursor);
        fresh = [...fresh, ...page.data];
      }
      if (!isCurrent() || get().loadingMore) return false;
      if (appended === appendedBefore) {
        set({ ...withRows(keep(fresh)), nextCursor: page.nextCursor });
        return true;
      }
      // "Load more" appended rows while this read ran: they stay below the fresh ones (the rows
      // under the pointer do not vanish), and the list goes on after them, not after this read.
      const had = new Set(before.map((row) => row.id));
      const read = new Set(fresh.map((row) => row.id));
      const added = rows(get()).filter((row) => !had.has(row.id) && !read.has(row.id));
      set({ ...withRows([...keep(fresh), ...added]) });
      return true;
    } catch {
      return false;
    }
  };

  return { load, loadMore, refresh, invalidate: guard.invalidate, guard };
}

/** The actions of a list the core filters by status (`?status=`, '' for all). */
export interface StatusFilteredActions<F extends string> {
  setStatusFilter: (filter: F) => void;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
}

/**
 * A paged list filtered by the store's `statusFilter`: reads pages of `pageSize` through `read`,
 * and reads the list again when the filter changes.
 */
export function createStatusFilteredList<
  S extends PagedListMeta & { statusFilter: string } & StatusFilteredActions<S['statusFilter']>,
  T extends { id: string },
>({
  set,
  get,
  read,
  pageSize,
  rows,
  withRows,
}: Pick<PagedListOptions<S, T, Page<T>>, 'set' | 'get' | 'rows' | 'withRows'> & {
  read: (query: { status: S['statusFilter']; limit: number; cursor?: string }) => Promise<Page<T>>;
  pageSize: number;
}): PagedList & { actions: StatusFilteredActions<S['statusFilter']> } {
  const query = (cursor?: string) => ({
    status: get().statusFilter,
    limit: pageSize,
    ...(cursor ? { cursor } : {}),
  });
  const list = createPagedList({
    set,
    get,
    first: () => read(query()),
    next: (cursor) => read(query(cursor)),
    rows,
    withRows,
  });
  const actions = {
    setStatusFilter: filterSetter(set, get, 'statusFilter'),
    load: list.load,
    loadMore: list.loadMore,
  };
  return { ...list, actions };
}

/**
 * The setter of a list's filter: a new value is kept and the list read again with it, through the
 * store's own `load`.
 */
function filterSetter<S extends { load: () => Promise<void> }, K extends keyof S>(
  set: (partial: Partial<S>) => void,
  get: () => S,
  key: K,
): (value: S[K]) => void {
  return (value) => {
    if (value === get()[key]) return;
    const patch: Partial<S> = {};
    patch[key] = value;
    set(patch);
    void get().load();
  };
}

/**
 * A list filtered by status with a fresher copy of one row (an answer, an event): where the row is
 * shown, `merge` says what it becomes; one not shown joins at the top (the list is newest first)
 * once the list is loaded, if its filter shows it. The same array when nothing changes.
 */
export function withFresherRow<T extends { id: string; status: string }>(
  rows: T[],
  row: T,
  list: { status: LoadStatus; statusFilter: string },
  merge: (current: T, next: T) => T,
): T[] {
  const index = rows.findIndex((r) => r.id === row.id);
  if (index >= 0) {
    const merged = merge(rows[index]!, row);
    if (merged === rows[index]) return rows;
    const next = rows.slice();
    next[index] = merged;
    return next;
  }
  if (list.status !== 'ready') return rows;
  if (list.statusFilter && row.status !== list.statusFilter) return rows;
  return [row, ...rows];
}
