import { useEffect, useState, type FormEvent } from 'react';
import type { InvitePreview } from '../../../../shared/schemas/members.ts';
import { api, ApiRequestError, errorMessage } from '../../api/client.ts';
import { AuthPage } from '../../components/auth-page.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FormError } from '../../components/form-error.tsx';
import { formatDateTime } from '../../components/format.ts';
import { ROLE_LABELS } from '../../components/member-labels.ts';
import { newPasswordProblem, NewPasswordFields } from '../../components/new-password-fields.tsx';
import { onFieldError, type FieldErrors } from '../../components/server-errors.ts';
import { TextField } from '../../components/text-field.tsx';

/** The address an invite link opens: `<base>/join#token=…` (the hash never reaches a server). */
export const isJoinPage = (): boolean => /\/join\/?$/.test(location.pathname);

const joinToken = (): string | null =>
  new URLSearchParams(location.hash.replace(/^#/, '')).get('token') || null;

type Loaded =
  | { state: 'loading' }
  | { state: 'ready'; preview: InvitePreview }
  /** The link cannot be used (unknown, used, revoked, expired): the core's words. */
  | { state: 'invalid'; message: string }
  /** The core could not be asked: try again. */
  | { state: 'error'; message: string };

const isGone = (e: unknown): boolean => e instanceof ApiRequestError && e.status === 404;

function InvalidInvite({ message }: { message: string }) {
  return (
    <AuthPage title="This invite link can’t be used" testId="join-invalid">
      <p role="alert">{message}</p>
      {/new invite/i.test(message) ? null : <p>Ask your admin for a new invite.</p>}
    </AuthPage>
  );
}

function JoinForm({
  token,
  preview,
  onJoined,
  onGone,
}: {
  token: string;
  preview: InvitePreview;
  onJoined: () => void;
  onGone: (message: string) => void;
}) {
  const [name, setName] = useState(preview.name);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [errors, setErrors] = useState<FieldErrors<'name' | 'password' | 'form'>>({});

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setSubmitted(true);
    if (!name.trim()) return setErrors({ name: 'Enter your name.' });
    setErrors({});
    if (newPasswordProblem(password, confirm)) return;
    setBusy(true);
    try {
      await api.invites.accept({ token, name: name.trim(), password });
      onJoined();
    } catch (e) {
      setBusy(false);
      if (isGone(e)) return onGone(errorMessage(e));
      if (!onFieldError(['name', 'password'], setErrors)(e)) setErrors({ form: errorMessage(e) });
    }
  };

  return (
    <AuthPage title={`Join ${preview.workspace}`} testId="join">
      <dl className="auth-facts" data-testid="join-preview">
        <dt>Workspace</dt>
        <dd>{preview.workspace}</dd>
        <dt>Your role</dt>
        <dd data-testid="join-role">{ROLE_LABELS[preview.role]}</dd>
        <dt>Email</dt>
        <dd>{preview.email}</dd>
        <dt>Invited by</dt>
        <dd>{preview.invitedBy ?? 'An admin of the workspace'}</dd>
        <dt>Link valid until</dt>
        <dd>{formatDateTime(preview.expiresAt)}</dd>
      </dl>
      <form className="form-stack" onSubmit={submit} noValidate aria-label="Accept the invite">
        <TextField
          id="join-name"
          label="Your name"
          autoComplete="name"
          value={name}
          error={errors.name}
          hint="How teammates see you on conversations and notes."
          onChange={setName}
        />
        <NewPasswordFields
          id="join-password"
          label="Choose a password"
          password={password}
          confirm={confirm}
          onPassword={(value) => {
            setPassword(value);
            if (errors.password) setErrors({});
          }}
          onConfirm={setConfirm}
          error={errors.password}
          submitted={submitted}
        />
        <FormError error={errors.form ?? null} testId="join-error" />
        <button
          type="submit"
          className="button button-primary"
          disabled={busy}
          data-testid="join-submit"
        >
          {busy ? 'Joining…' : 'Join and sign in'}
        </button>
      </form>
    </AuthPage>
  );
}

/**
 * The page an invite link opens: who invited whom to what, then the invitee's name and a
 * password. Accepting signs them in; `onJoined` then opens the app.
 */
export function JoinPage({ onJoined }: { onJoined: () => void }) {
  const [token] = useState(joinToken);
  const [loaded, setLoaded] = useState<Loaded>(() =>
    token
      ? { state: 'loading' }
      : { state: 'invalid', message: 'This link has no invite in it: it may have been cut short.' },
  );
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!token) return;
    let cancelled = false;
    api.invites.preview(token).then(
      (preview) => !cancelled && setLoaded({ state: 'ready', preview }),
      (e: unknown) =>
        !cancelled &&
        setLoaded({ state: isGone(e) ? 'invalid' : 'error', message: errorMessage(e) }),
    );
    return () => {
      cancelled = true;
    };
  }, [token, attempt]);

  if (loaded.state === 'invalid') return <InvalidInvite message={loaded.message} />;
  if (loaded.state === 'ready' && token) {
    return (
      <JoinForm
        token={token}
        preview={loaded.preview}
        onJoined={onJoined}
        onGone={(message) => setLoaded({ state: 'invalid', message })}
      />
    );
  }
  return (
    <AuthPage title="Join a Parley workspace" testId="join">
      {loaded.state === 'error' ? (
        <ErrorBanner
          message={loaded.message}
          onRetry={() => {
            setLoaded({ state: 'loading' });
            setAttempt((n) => n + 1);
          }}
        />
      ) : (
        <p className="muted" aria-busy="true">
          Reading the invite…
        </p>
      )}
    </AuthPage>
  );
}
