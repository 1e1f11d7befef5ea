import { create } from 'zustand';
import type {
  InteractiveList,
  ListContentBody,
} from '../../../shared/schemas/interactive-lists.ts';
import { api } from '../api/client.ts';
import { createLibrary, emptyLibrary, type LibraryMeta } from './library.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

export type { InteractiveList, ListContentBody };

/**
 * Interactive lists: the screen's list (paged, newest first as the core answers) and the
 * library the inbox reads (the composer's list picker, the names shown beside a customer's
 * pick). Saves and deletes update both.
 */
interface InteractiveListsState extends PagedListMeta, LibraryMeta<InteractiveList> {
  lists: InteractiveList[];
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  /** Loads the library once per scope (again after a failure). */
  ensureLibrary: () => void;
  /** Reads the library again in the background (others may have saved lists meanwhile). */
  refreshLibrary: () => void;
  create: (body: ListContentBody) => Promise<InteractiveList>;
  update: (id: string, body: ListContentBody) => Promise<InteractiveList>;
  remove: (id: string) => Promise<void>;
  reset: () => void;
}

const PAGE_SIZE = 50;

/** A saved list in its place: a new one first (newest first), an edited one where it was. */
function placed(lists: InteractiveList[], list: InteractiveList): InteractiveList[] {
  const index = lists.findIndex((l) => l.id === list.id);
  if (index < 0) return [list, ...lists];
  const next = lists.slice();
  next[index] = list;
  return next;
}

const initial = () => ({
  ...emptyPagedList(),
  lists: [] as InteractiveList[],
  ...emptyLibrary<InteractiveList>(),
});

export const useInteractiveLists = create<InteractiveListsState>()((set, get) => {
  const list = createPagedList({
    set,
    get,
    first: () => api.interactiveLists.list({ limit: PAGE_SIZE }),
    next: (cursor) => api.interactiveLists.list({ limit: PAGE_SIZE, cursor }),
    rows: (s) => s.lists,
    withRows: (lists) => ({ lists }),
  });

  const library = createLibrary<InteractiveList>({
    set,
    get,
    readPage: (page) => api.interactiveLists.list(page),
  });

  const saved = (fresh: InteractiveList): InteractiveList => {
    library.changed();
    set((s) => ({
      // A list not loaded yet joins once the screen reads its first page.
      lists: s.status === 'ready' ? placed(s.lists, fresh) : s.lists,
      library: s.libraryStatus === 'ready' ? placed(s.library, fresh) : s.library,
    }));
    return fresh;
  };

  return {
    ...initial(),

    load: list.load,
    loadMore: list.loadMore,
    ensureLibrary: library.ensure,
    refreshLibrary: library.refresh,

    create: async (body) => saved(await api.interactiveLists.create(body)),
    update: async (id, body) => saved(await api.interactiveLists.update({ id, ...body })),

    remove: async (id) => {
      await api.interactiveLists.remove(id);
      library.changed();
      set((s) => ({
        lists: s.lists.filter((l) => l.id !== id),
        library: s.library.filter((l) => l.id !== id),
      }));
    },

    reset: () => {
      list.invalidate();
      set(initial());
    },
  };
});

registerScopedStore(() => useInteractiveLists.getState().reset());
