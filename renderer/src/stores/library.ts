import { errorMessage, scopeGeneration, type Page } from '../api/client.ts';
import type { LoadStatus } from './scope.ts';

/**
 * Every record of a kind in the scope, read once and then looked up locally as the agent types
 * (the composer's canned replies, its interactive lists): what a store keeps of it.
 */
export interface LibraryMeta<T> {
  library: T[];
  libraryStatus: LoadStatus;
  libraryError: string | null;
}

export const emptyLibrary = <T>(): LibraryMeta<T> => ({
  library: [],
  libraryStatus: 'idle',
  libraryError: null,
});

/** The core's largest page: a library is read in as few requests as it allows. */
const LIBRARY_PAGE = 200;

export interface Library {
  /** Loads the library once per scope (again after a failure). */
  ensure: () => void;
  /** Reads it again in the background (others may have saved records meanwhile). */
  refresh: () => void;
  /** Call on every local save or delete: a read under way may predate it, so it reads again. */
  changed: () => void;
}

export function createLibrary<T>({
  set,
  get,
  readPage,
}: {
  set: (partial: Partial<LibraryMeta<T>>) => void;
  get: () => LibraryMeta<T>;
  readPage: (page: { limit: number; cursor: string | null }) => Promise<Page<T>>;
}): Library {
  // One read at a time; a local save or delete makes a read under way stale.
  let changes = 0;
  let inFlight: Promise<void> | null = null;

  const read = async (): Promise<void> => {
    const generation = scopeGeneration();
    // A refresh keeps showing what is loaded; only a first load says it is loading.
    if (get().libraryStatus !== 'ready') set({ libraryStatus: 'loading', libraryError: null });
    try {
      for (;;) {
        const before = changes;
        const all: T[] = [];
        let cursor: string | null = null;
        do {
          const page: Page<T> = await readPage({ limit: LIBRARY_PAGE, cursor });
          all.push(...page.data);
          cursor = page.nextCursor;
        } while (cursor);
        if (generation !== scopeGeneration()) return;
        // A save or delete landed while reading: this list may predate it, so read again.
        if (before === changes) {
          set({ library: all, libraryStatus: 'ready' });
          return;
        }
      }
    } catch (e) {
      if (generation === scopeGeneration()) {
        set({ libraryStatus: 'error', libraryError: errorMessage(e) });
      }
    }
  };

  const load = (): Promise<void> => (inFlight ??= read().finally(() => (inFlight = null)));

  return {
    ensure: () => {
      const { libraryStatus } = get();
      if (libraryStatus === 'idle' || libraryStatus === 'error') void load();
    },
    refresh: () => void load(),
    changed: () => {
      changes++;
    },
  };
}
