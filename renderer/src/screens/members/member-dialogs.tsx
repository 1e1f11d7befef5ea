import { useId, useState, type FormEvent } from 'react';
import type { AssignableRole, Grant } from '../../../../shared/permissions.ts';
import type { CreatedInvite, Member } from '../../../../shared/schemas/members.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { FormDialog } from '../../components/form-dialog.tsx';
import { formatDateTime } from '../../components/format.ts';
import { SecretBox } from '../../components/secret-box.tsx';
import { onFieldError, type FieldErrors } from '../../components/server-errors.ts';
import { TextField } from '../../components/text-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useMembers } from '../../stores/members.ts';
import { notify } from '../../stores/toasts.ts';
import { SessionsList } from '../account/sessions-list.tsx';
import { RoleFields } from './role-fields.tsx';

type Fields = 'email' | 'name';
const FIELDS: readonly Fields[] = ['email', 'name'];

/** A member's name, role and extra rights. The owner's are not offered here. */
export function EditMemberDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  const update = useMembers((s) => s.update);
  const [name, setName] = useState(member.name);
  const [role, setRole] = useState<AssignableRole>(member.role === 'admin' ? 'admin' : 'agent');
  const [rights, setRights] = useState<Grant[]>([...member.rights]);
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const { busy, error, run } = useAction();
  const formId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    if (!name.trim()) return setErrors({ name: 'Enter a name.' });
    void run(
      async () => {
        await update(member.id, {
          ...(name.trim() !== member.name ? { name: name.trim() } : {}),
          role,
          // An admin holds every grant already: none is kept for them.
          rights: role === 'agent' ? rights : [],
        });
        notify('success', `${name.trim()} was updated.`);
        onClose();
      },
      onFieldError(FIELDS, setErrors),
    );
  };

  return (
    <FormDialog
      title={`Edit ${member.name}`}
      onClose={onClose}
      onSubmit={submit}
      submitLabel={busy ? 'Saving…' : 'Save'}
      submitTestId="member-save"
      busy={busy}
      error={error}
      testId="member-dialog"
      formId={formId}
      lead={
        <p className="dialog-lead">
          The change holds from {member.name}’s next request; pages they have open show it when they
          next come back to them.
        </p>
      }
    >
      <TextField
        id="member-name"
        label="Name"
        value={name}
        error={errors.name}
        onChange={setName}
      />
      <RoleFields id="member" role={role} rights={rights} onRole={setRole} onRights={setRights} />
    </FormDialog>
  );
}

/** Deactivating signs a member out everywhere; reactivating lets them sign in again. */
export function ActiveDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  const update = useMembers((s) => s.update);
  const deactivating = member.active;
  return (
    <ConfirmDialog
      title={deactivating ? `Deactivate ${member.name}?` : `Reactivate ${member.name}?`}
      onClose={onClose}
      onConfirm={() => update(member.id, { active: !deactivating })}
      doneMessage={
        deactivating ? `${member.name} was deactivated.` : `${member.name} was reactivated.`
      }
      confirmLabel={deactivating ? 'Deactivate' : 'Reactivate'}
      busyLabel={deactivating ? 'Deactivating…' : 'Reactivating…'}
      testId="member-active-dialog"
      confirmTestId="confirm-member-active"
    >
      {deactivating
        ? `${member.name} is signed out everywhere at once and can no longer sign in or be assigned conversations. What they did keeps their name. You can reactivate them later.`
        : `${member.name} can sign in again with their password and be assigned conversations.`}
    </ConfirmDialog>
  );
}

/** Where a member is signed in, each session with a way to end it. */
export function MemberSessionsDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  return (
    <Dialog
      title={`${member.name}’s sessions`}
      onClose={onClose}
      size="large"
      testId="member-sessions-dialog"
      footer={
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      }
    >
      <SessionsList memberId={member.id} owner={member.name} />
    </Dialog>
  );
}

/** Whether a link's host is this computer's own (loopback or a `*.localhost` name): such a
 *  link opens only here, not on a teammate's computer. */
const opensOnlyHere = (url: string): boolean => {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host)
  );
};

/** The link of an invite just made: shown once here, to copy and hand over. */
function CreatedInviteView({ created, onClose }: { created: CreatedInvite; onClose: () => void }) {
  return (
    <Dialog
      title={`Invite for ${created.invite.name}`}
      onClose={onClose}
      testId="invite-created-dialog"
      footer={
        <button
          type="button"
          className="button button-primary"
          onClick={onClose}
          data-testid="invite-done"
        >
          Done
        </button>
      }
    >
      <p className="dialog-lead" data-testid="invite-emailed">
        {created.emailed
          ? `The link was emailed to ${created.invite.email}. You can also hand it over yourself:`
          : `Email is not set up, so nothing was sent: copy the link and send it to ${created.invite.email} yourself.`}
      </p>
      <SecretBox secret={created.inviteUrl} testId="invite-url" copyTestId="invite-copy" />
      <p className="hint">
        It works once, until {formatDateTime(created.expiresAt)}. Whoever opens it picks a password
        and joins as {created.invite.name}; revoke it below if it went astray.
      </p>
      {opensOnlyHere(created.inviteUrl) && (
        <div className="banner banner-warning" role="note" data-testid="invite-local-only">
          {/* One text run: the banner is a flex box, and a bare link would be a column of its own. */}
          <span>
            This link opens only on this computer, because the desk is not shared on your network.
            For {created.invite.name} to join from their own computer, turn on{' '}
            <a href="#/settings/team">Share this desk on my network</a> in Settings → Team, then
            invite them again.
          </span>
        </div>
      )}
    </Dialog>
  );
}

/** Email, name, role and extra rights of a teammate to invite; then their link. */
export function InviteDialog({ onClose }: { onClose: () => void }) {
  const invite = useMembers((s) => s.invite);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<AssignableRole>('agent');
  const [rights, setRights] = useState<Grant[]>([]);
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [created, setCreated] = useState<CreatedInvite | null>(null);
  const { busy, error, run } = useAction();
  const formId = useId();

  if (created) return <CreatedInviteView created={created} onClose={onClose} />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing: FieldErrors<Fields> = {
      ...(email.trim() ? {} : { email: 'Enter their email address.' }),
      ...(name.trim() ? {} : { name: 'Enter their name.' }),
    };
    setErrors(missing);
    if (Object.keys(missing).length > 0) return;
    void run(
      async () => {
        setCreated(
          await invite({
            email: email.trim(),
            name: name.trim(),
            role,
            ...(role === 'agent' && rights.length ? { rights } : {}),
          }),
        );
      },
      onFieldError(FIELDS, setErrors),
    );
  };

  return (
    <FormDialog
      title="Invite a teammate"
      onClose={onClose}
      onSubmit={submit}
      submitLabel={busy ? 'Inviting…' : 'Invite'}
      submitTestId="invite-submit"
      busy={busy}
      error={error}
      testId="invite-dialog"
      formId={formId}
      lead={
        <p className="dialog-lead">
          They get a one-use link, valid for 7 days, to choose a password and join this workspace.
        </p>
      }
    >
      <TextField
        id="invite-email"
        label="Email"
        type="email"
        autoComplete="off"
        value={email}
        error={errors.email}
        onChange={setEmail}
      />
      <TextField
        id="invite-name"
        label="Name"
        value={name}
        error={errors.name}
        hint="They can change it when they join."
        onChange={setName}
      />
      <RoleFields id="invite" role={role} rights={rights} onRole={setRole} onRights={setRights} />
    </FormDialog>
  );
}
