import { sessionEndedMessage } from '../api/client.ts';
import { useSession } from '../stores/session.ts';

const reload = () => window.location.reload();

function ReloadButton() {
  return (
    <button type="button" className="button button-small" onClick={reload}>
      Reload
    </button>
  );
}

/**
 * Says in words when the core is gone or has restarted. The event stream reconnects by itself
 * meanwhile; reloading gives a fresh start after a restart.
 */
export function ConnectionBanner() {
  const connection = useSession((s) => s.connection);
  if (connection === 'unreachable') {
    return (
      <div className="banner banner-warning" role="alert" data-testid="connection-banner">
        <span className="banner-text">
          Lost the connection to Parley — reconnecting… Reload once it is running again.
        </span>
        <ReloadButton />
      </div>
    );
  }
  if (connection === 'stale') {
    return (
      <div className="banner banner-info" role="alert" data-testid="connection-banner">
        <span className="banner-text">
          Some updates happened while this window was away — reload to see everything up to date.
        </span>
        <ReloadButton />
      </div>
    );
  }
  if (connection === 'restarted') {
    return (
      <div className="banner banner-info" role="alert" data-testid="connection-banner">
        <span className="banner-text">Parley restarted — reload to see everything up to date.</span>
        <ReloadButton />
      </div>
    );
  }
  return null;
}

/**
 * The desktop window's session was refused: the shell's per-launch token no longer holds (the
 * core restarted with another), so reloading the window is the way back. A browser shows the
 * sign-in form instead.
 */
export function SessionEndedScreen() {
  return (
    <div className="loading-page" role="alert" data-testid="sign-in">
      <p>{sessionEndedMessage()}</p>
      <ReloadButton />
    </div>
  );
}
