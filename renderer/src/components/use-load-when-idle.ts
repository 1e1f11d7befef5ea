import { useEffect } from 'react';
import type { LoadStatus } from '../stores/scope.ts';

/** Loads a screen's store when it shows and has nothing yet (at first, and after a scope switch). */
export function useLoadWhenIdle(status: LoadStatus, load: () => Promise<void>): void {
  useEffect(() => {
    if (status === 'idle') void load();
  }, [status, load]);
}
