import { scopeGeneration } from '../api/client.ts';

/**
 * Every store whose data belongs to a workspace or an environment registers its reset here.
 * Switching the mode or the workspace resets them all; a screen that is showing one reloads it
 * at once (its status is back to `idle`), the others when they are next shown.
 */
type Reset = () => void;

const resets = new Set<Reset>();

export function registerScopedStore(reset: Reset): void {
  resets.add(reset);
}

export function resetScopedStores(): void {
  for (const reset of resets) reset();
}

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

/**
 * Drops answers that arrive too late: one started before the last `invalidate()` (another
 * contact opened, a new search) or before the scope changed no longer belongs on screen.
 */
export interface RequestGuard {
  /** Makes every answer to a request started so far stale. */
  invalidate: () => void;
  /** Called as a request starts: the check says whether its answer may still be shown. */
  start: () => () => boolean;
  /** `invalidate()`, then `start()`: a new first-page load that supersedes all before it. */
  restart: () => () => boolean;
}

export function createRequestGuard(): RequestGuard {
  let seq = 0;
  const start = () => {
    const started = seq;
    const generation = scopeGeneration();
    return () => started === seq && generation === scopeGeneration();
  };
  return {
    invalidate: () => {
      seq += 1;
    },
    start,
    restart: () => {
      seq += 1;
      return start();
    },
  };
}
