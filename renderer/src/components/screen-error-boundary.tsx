import { Component, type ErrorInfo, type ReactNode } from 'react';

/** When the page last reloaded itself for a missing chunk (ms), so it does so once, not in a loop. */
const AUTO_RELOAD_KEY = 'parley.chunk-reload-at';
const AUTO_RELOAD_QUIET_MS = 60_000;

/** A part of the app (a lazy chunk) that could not be fetched: the app was updated or rebuilt. */
export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /dynamically imported module|Importing a module script failed|ChunkLoadError|Unable to preload CSS/i.test(
    message,
  );
}

/**
 * Reloads the page for a missing chunk when that is safe: the failure happens as a screen part
 * opens (nothing typed in it yet) and the page has not reloaded itself in the last minute (a chunk
 * still missing after a reload shows the message instead of reloading again). Returns whether it
 * reloads.
 */
function reloadOnceForChunk(): boolean {
  try {
    const last = Number(sessionStorage.getItem(AUTO_RELOAD_KEY) ?? 0);
    if (Date.now() - last < AUTO_RELOAD_QUIET_MS) return false;
    sessionStorage.setItem(AUTO_RELOAD_KEY, String(Date.now()));
  } catch {
    return false; // no session storage: never reload unasked
  }
  location.reload();
  return true;
}

interface State {
  error: unknown;
}

/**
 * A screen that fails to render (most often a lazy chunk a rebuilt or updated app no longer has)
 * says so with a Reload button instead of leaving the whole window blank. Keyed by the route in
 * App, so opening another screen tries again.
 */
export class ScreenErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('A screen failed to render', error, info.componentStack);
    if (isChunkLoadError(error)) reloadOnceForChunk();
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const chunk = isChunkLoadError(error);
    return (
      <div className="screen-error" role="alert" data-testid="screen-error">
        <h1 className="screen-error-title">
          {chunk ? 'Parley was updated' : 'This screen stopped working'}
        </h1>
        <p>
          {chunk
            ? 'A part of this screen could not be loaded because the app changed since this window opened. Reload the window to use the new version.'
            : 'Something went wrong while showing this screen. Reload the window to start it again.'}
        </p>
        <button
          type="button"
          className="button button-primary"
          onClick={() => location.reload()}
          data-testid="screen-error-reload"
        >
          Reload
        </button>
      </div>
    );
  }
}
