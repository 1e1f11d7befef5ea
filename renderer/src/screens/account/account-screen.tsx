import { useState, type FormEvent } from 'react';
import { api, ApiRequestError, isDesktop } from '../../api/client.ts';
import { FormError } from '../../components/form-error.tsx';
import { ROLE_LABELS } from '../../components/member-labels.ts';
import { newPasswordProblem, NewPasswordFields } from '../../components/new-password-fields.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { onFieldError, type FieldErrors } from '../../components/server-errors.ts';
import { TextField } from '../../components/text-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { selectMember, useSession, type SignedInMember } from '../../stores/session.ts';
import { notify } from '../../stores/toasts.ts';
import { SessionsList } from './sessions-list.tsx';

function ProfileForm({ member }: { member: SignedInMember }) {
  const setMember = useSession((s) => s.setMember);
  const [name, setName] = useState(member.name);
  const [email, setEmail] = useState(member.email ?? '');
  const [errors, setErrors] = useState<FieldErrors<'name' | 'email'>>({});
  const { busy, error, run } = useAction();
  const changed = name.trim() !== member.name || email.trim() !== (member.email ?? '');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    if (!name.trim()) return setErrors({ name: 'Enter your name.' });
    void run(
      async () => {
        const body = {
          ...(name.trim() !== member.name ? { name: name.trim() } : {}),
          ...(email.trim() && email.trim() !== member.email ? { email: email.trim() } : {}),
        };
        if (Object.keys(body).length === 0) return;
        setMember(await api.account.update(body));
        notify('success', 'Your details were saved.');
      },
      onFieldError(['name', 'email'], setErrors),
    );
  };

  return (
    <form className="form-stack" onSubmit={submit} noValidate>
      <TextField
        id="account-name"
        label="Name"
        autoComplete="name"
        value={name}
        error={errors.name}
        hint="Shown to teammates on conversations, notes and the audit trail."
        onChange={setName}
      />
      <TextField
        id="account-email"
        label="Email"
        type="email"
        autoComplete="email"
        value={email}
        error={errors.email}
        hint="You sign in with it in a browser."
        onChange={setEmail}
      />
      <FormError error={error} />
      <div>
        <button
          type="submit"
          className="button button-primary"
          disabled={busy || !changed}
          data-testid="account-save"
        >
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/** Changing the password ends every other session of the member; this one goes on. */
function PasswordForm({ member, onChanged }: { member: SignedInMember; onChanged: () => void }) {
  const setMember = useSession((s) => s.setMember);
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [errors, setErrors] = useState<FieldErrors<'currentPassword' | 'password'>>({});
  const { busy, error, run } = useAction();
  // The desktop's owner may have none yet: their first one needs no current password.
  const hasPassword = member.canSignIn;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    setErrors({});
    if (hasPassword && !current) {
      return setErrors({ currentPassword: 'Enter your current password.' });
    }
    if (newPasswordProblem(password, confirm)) return;
    void run(
      async () => {
        await api.account.changePassword({
          ...(hasPassword ? { currentPassword: current } : {}),
          password,
        });
        setCurrent('');
        setPassword('');
        setConfirm('');
        setSubmitted(false);
        if (!hasPassword) setMember({ ...member, canSignIn: true });
        notify(
          'success',
          hasPassword
            ? 'Password changed. Your other sessions were signed out.'
            : 'Password set: you can now sign in with your email in a browser.',
        );
        onChanged();
      },
      (e) => {
        if (e instanceof ApiRequestError && e.code === 'invalid_credentials') {
          setErrors({ currentPassword: 'Your current password is not right.' });
          return true;
        }
        return onFieldError(['password', 'currentPassword'], setErrors)(e);
      },
    );
  };

  return (
    <form className="form-stack" onSubmit={submit} noValidate>
      {hasPassword ? (
        <TextField
          id="account-current-password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
          error={errors.currentPassword}
          onChange={setCurrent}
        />
      ) : (
        <p className="hint">
          You have no password yet. Set one to sign in with your email from a browser
          {member.email ? '' : ' (save your email above first)'}.
        </p>
      )}
      <NewPasswordFields
        id="account-new-password"
        label={hasPassword ? 'New password' : 'Password'}
        password={password}
        confirm={confirm}
        onPassword={setPassword}
        onConfirm={setConfirm}
        error={errors.password}
        submitted={submitted}
      />
      <FormError error={error} />
      <div>
        <button
          type="submit"
          className="button button-primary"
          disabled={busy}
          data-testid="account-password-save"
        >
          {busy ? 'Saving…' : hasPassword ? 'Change password' : 'Set password'}
        </button>
      </div>
    </form>
  );
}

/** The signed-in member's own page: their details, their password, where they are signed in. */
export function AccountScreen() {
  const member = useSession(selectMember);
  // The sessions list reads again after a password change (the others were signed out).
  const [sessionsKey, setSessionsKey] = useState(0);

  if (!member) {
    return (
      <div className="screen" data-testid="screen-account">
        <PageHeader
          eyebrow="Settings"
          title="Your account"
          description="This window is not signed in as a member of the workspace."
        />
      </div>
    );
  }

  return (
    <div className="screen" data-testid="screen-account">
      <PageHeader
        eyebrow="Settings"
        title="Your account"
        description={
          <>
            Signed in as <strong>{member.name}</strong> ({ROLE_LABELS[member.role]}).
            {isDesktop()
              ? ' This window is the desktop app: it acts as the workspace’s owner and needs no sign-in.'
              : null}
          </>
        }
      />
      <div className="grid-2">
        <section className="card" aria-labelledby="account-profile-title">
          <h2 className="card-title" id="account-profile-title">
            Your details
          </h2>
          <ProfileForm key={member.id} member={member} />
        </section>
        <section className="card" aria-labelledby="account-password-title">
          <h2 className="card-title" id="account-password-title">
            {member.canSignIn ? 'Change your password' : 'Set a password'}
          </h2>
          <PasswordForm member={member} onChanged={() => setSessionsKey((n) => n + 1)} />
        </section>
      </div>
      <section className="card card-flush" aria-labelledby="account-sessions-title">
        <div className="card-header">
          <h2 className="card-title" id="account-sessions-title">
            Where you are signed in
          </h2>
        </div>
        <SessionsList key={sessionsKey} owner={null} />
      </section>
    </div>
  );
}
