import { isDesktop, sessionEndedMessage } from '../api/client.ts';
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
 * Shown instead of the screens when the core refuses the session: how to sign in, never the
 * API's "API key is missing or invalid".
 */
export function SignInScreen() {
  const wasSignedIn = useSession((s) => s.wasSignedIn);
  const bootstrap = useSession((s) => s.bootstrap);
  if (isDesktop()) {
    return (
      <div className="loading-page" role="alert" data-testid="sign-in">
        <p>{sessionEndedMessage()}</p>
        <ReloadButton />
      </div>
    );
  }
  return (
    <div className="loading-page" role="alert" data-testid="sign-in">
      <h2>{wasSignedIn ? 'Your session has ended — sign in again' : 'Sign in to Parley'}</h2>
      <p>
        Open the link <code>parley serve</code> printed in its terminal (it starts with{' '}
        <code>{window.location.origin}/login?token=</code>). Lost it? Run{' '}
        <code>parley login-url</code> on the same data dir.
      </p>
      <button type="button" className="button button-small" onClick={() => void bootstrap()}>
        Try again
      </button>
    </div>
  );
}
