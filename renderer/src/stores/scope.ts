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
