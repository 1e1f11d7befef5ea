import { useState, type FormEvent } from 'react';
import { ApiRequestError, errorMessage } from '../../api/client.ts';
import { AuthPage } from '../../components/auth-page.tsx';
import { FormError } from '../../components/form-error.tsx';
import { TextField } from '../../components/text-field.tsx';
import { useNow } from '../../components/use-now.ts';
import { useSession } from '../../stores/session.ts';

/** Without a Retry-After, a refused burst of sign-ins waits this long. */
const DEFAULT_WAIT_S = 30;

/**
 * A browser that is not signed in (or whose session ended): a member signs in with their email
 * and password. The desktop window never shows it; its session comes from the app itself.
 */
export function SignInPage() {
  const wasSignedIn = useSession((s) => s.wasSignedIn);
  const signIn = useSession((s) => s.signIn);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Refused for too many attempts: when it may be tried again, and what was said. */
  const [wait, setWait] = useState<{ until: number; seconds: number; message: string } | null>(
    null,
  );
  const now = useNow(1000);
  // `now` may be up to a tick old when the wait starts: never count above what was said.
  const waitLeft = wait
    ? Math.max(0, Math.min(wait.seconds, Math.ceil((wait.until - now) / 1000)))
    : 0;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy || waitLeft > 0) return;
    setError(null);
    setWait(null);
    if (!email.trim() || !password) {
      setError('Enter your email and your password.');
      return;
    }
    setBusy(true);
    try {
      await signIn({ email: email.trim(), password });
      const session = useSession.getState();
      if (session.status === 'error') setError(session.error);
    } catch (e) {
      if (e instanceof ApiRequestError && e.status === 429) {
        const seconds = Math.max(1, Math.ceil(e.retryAfter ?? DEFAULT_WAIT_S));
        setWait({
          until: Date.now() + seconds * 1000,
          seconds,
          message: `Too many attempts — try again in ${seconds} s.`,
        });
      } else if (e instanceof ApiRequestError && e.code === 'invalid_credentials') {
        // Never which of the two was wrong.
        setError('The email or password is not right.');
      } else {
        setError(errorMessage(e));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthPage
      title={wasSignedIn ? 'Your session has ended — sign in again' : 'Sign in to Parley'}
      testId="sign-in"
    >
      <form className="form-stack" onSubmit={submit} noValidate aria-label="Sign in">
        <TextField
          id="sign-in-email"
          label="Email"
          type="email"
          autoComplete="username"
          value={email}
          error={undefined}
          onChange={setEmail}
        />
        <TextField
          id="sign-in-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          error={undefined}
          onChange={setPassword}
        />
        {waitLeft > 0 && wait ? (
          <FormError error={wait.message} testId="sign-in-wait" />
        ) : (
          <FormError error={error} testId="sign-in-error" />
        )}
        <button
          type="submit"
          className="button button-primary"
          disabled={busy || waitLeft > 0}
          data-testid="sign-in-submit"
        >
          {busy ? 'Signing in…' : waitLeft > 0 ? `Sign in (wait ${waitLeft} s)` : 'Sign in'}
        </button>
      </form>
      <p className="hint">
        No password yet? Ask an admin for an invite. On the computer that runs Parley, its owner can
        run <code>parley login-url</code> for a one-click sign-in link.
      </p>
    </AuthPage>
  );
}
