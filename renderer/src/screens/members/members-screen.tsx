import { useState } from 'react';
import type { Invite, Member } from '../../../../shared/schemas/members.ts';
import { Avatar } from '../../components/avatar.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDate, formatDateTime } from '../../components/format.ts';
import { PlusIcon } from '../../components/icons.tsx';
import { PresenceWords, WithPresence } from '../../components/presence-dot.tsx';
import { memberStatus, ROLE_LABELS } from '../../components/member-labels.ts';
import { RowMenu } from '../../components/menu.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { RowsTable } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useMembers } from '../../stores/members.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import {
  ActiveDialog,
  EditMemberDialog,
  InviteDialog,
  MemberSessionsDialog,
} from './member-dialogs.tsx';
import { grantsText } from './role-fields.tsx';
import './members.css';

type Open =
  | { kind: 'edit' | 'active' | 'sessions'; member: Member }
  | { kind: 'invite' }
  | { kind: 'revoke-invite'; invite: Invite };

/** Short, so the actions column stays narrow; the whole reason is the title. */
const OWNER_FIXED = 'Not editable';
const OWNER_FIXED_WHY =
  'The owner always has every right: their role and access cannot be changed.';

function MemberActions({
  member,
  isMe,
  open,
}: {
  member: Member;
  isMe: boolean;
  open: (next: Open) => void;
}) {
  if (member.role === 'owner') {
    return (
      <span className="member-fixed" data-testid="member-owner-fixed" title={OWNER_FIXED_WHY}>
        {OWNER_FIXED}
      </span>
    );
  }
  return (
    <RowMenu
      label={`Actions for ${member.name}`}
      testId="member-menu"
      sections={[
        {
          items: [
            {
              label: 'Edit role and rights…',
              onSelect: () => open({ kind: 'edit', member }),
              testId: 'member-edit',
            },
            {
              label: 'Sessions…',
              onSelect: () => open({ kind: 'sessions', member }),
              disabled: !member.canSignIn,
              ...(member.canSignIn ? {} : { hint: 'They have not signed in yet.' }),
              testId: 'member-sessions',
            },
          ],
        },
        {
          items: [
            member.active
              ? {
                  label: 'Deactivate…',
                  onSelect: () => open({ kind: 'active', member }),
                  danger: true,
                  disabled: isMe,
                  ...(isMe ? { hint: 'You cannot deactivate yourself.' } : {}),
                  testId: 'member-deactivate',
                }
              : {
                  label: 'Reactivate…',
                  onSelect: () => open({ kind: 'active', member }),
                  testId: 'member-reactivate',
                },
          ],
        },
      ]}
    />
  );
}

function MembersTable({ open }: { open: (next: Open) => void }) {
  const members = useMembers((s) => s.members);
  const status = useMembers((s) => s.status);
  const meId = useSession(selectMemberId);

  return (
    <RowsTable
      hasRows={members.length > 0}
      empty={status === 'ready' ? 'No members yet.' : 'Loading members…'}
      emptyTestId="members-empty"
      testId="members-table"
      columns={['Name', 'Email', 'Role', 'Extra rights', 'Status', 'Last seen']}
      actions
    >
      {members.map((member) => {
        const state = memberStatus(member);
        return (
          <tr
            key={member.id}
            className={member.active ? undefined : 'row-muted'}
            data-testid="member-row"
            data-member-id={member.id}
          >
            <td>
              <span className="menu-person">
                <WithPresence memberId={member.id}>
                  <Avatar name={member.name} colorKey={member.id} size="small" />
                </WithPresence>
                <span className="cell-strong" data-testid="member-name">
                  {member.name}
                </span>
                <PresenceWords memberId={member.id} />
                {member.id === meId ? <span className="badge member-you">You</span> : null}
              </span>
            </td>
            <td>{member.email ?? <span className="muted">none yet</span>}</td>
            <td data-testid="member-role">{ROLE_LABELS[member.role]}</td>
            <td data-testid="member-rights">
              {member.role === 'agent' ? grantsText(member.rights) : 'All'}
            </td>
            <td className="nowrap" data-testid="member-status">
              <span className={state.className}>{state.label}</span>
            </td>
            <td className="nowrap">
              {member.lastSeenAt ? (
                formatDateTime(member.lastSeenAt)
              ) : (
                <span className="muted">never</span>
              )}
            </td>
            <td className="col-actions">
              <MemberActions member={member} isMe={member.id === meId} open={open} />
            </td>
          </tr>
        );
      })}
    </RowsTable>
  );
}

function InvitesTable({ open }: { open: (next: Open) => void }) {
  const invites = useMembers((s) => s.invites);
  return (
    <RowsTable
      hasRows={invites.length > 0}
      empty="No invites waiting. Invite a teammate to give them their own sign-in."
      emptyTestId="invites-empty"
      testId="invites-table"
      columns={['Email', 'Name', 'Role', 'Extra rights', 'Invited by', 'Expires']}
      actions
    >
      {invites.map((invite) => (
        <tr key={invite.id} data-testid="invite-row">
          <td className="cell-strong">{invite.email}</td>
          <td>{invite.name}</td>
          <td>{ROLE_LABELS[invite.role]}</td>
          <td>{invite.role === 'agent' ? grantsText(invite.rights) : 'All'}</td>
          <td>{invite.invitedBy ?? '—'}</td>
          <td className="nowrap">{formatDate(invite.expiresAt)}</td>
          <td className="col-actions">
            <button
              type="button"
              className="button button-small button-danger-ghost"
              onClick={() => open({ kind: 'revoke-invite', invite })}
              aria-label={`Revoke the invite for ${invite.email}`}
              data-testid="revoke-invite"
            >
              Revoke
            </button>
          </td>
        </tr>
      ))}
    </RowsTable>
  );
}

/** Settings → Members: who works in this workspace, with what role, and who is invited. */
export function MembersScreen() {
  const status = useMembers((s) => s.status);
  const error = useMembers((s) => s.error);
  const load = useMembers((s) => s.load);
  const revokeInvite = useMembers((s) => s.revokeInvite);
  const [open, setOpen] = useState<Open | null>(null);
  const close = () => setOpen(null);

  useLoadWhenIdle(status, load);

  return (
    <div className="screen" data-testid="screen-members">
      <PageHeader
        eyebrow="Settings"
        title="Members"
        description="Everyone who works in this workspace. Admins manage members, keys, money and settings; agents answer customers, and build campaigns or workflows only when granted."
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={() => setOpen({ kind: 'invite' })}
            data-testid="invite-open"
          >
            <PlusIcon />
            Invite a teammate
          </button>
        }
      />

      <section className="card card-flush" aria-labelledby="members-title">
        <div className="card-header">
          <h2 className="card-title" id="members-title">
            Members
          </h2>
        </div>
        {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
        <MembersTable open={setOpen} />
      </section>

      <section className="card card-flush" aria-labelledby="invites-title">
        <div className="card-header">
          <h2 className="card-title" id="invites-title">
            Pending invites
          </h2>
        </div>
        <InvitesTable open={setOpen} />
      </section>

      {open?.kind === 'invite' ? <InviteDialog onClose={close} /> : null}
      {open?.kind === 'edit' ? <EditMemberDialog member={open.member} onClose={close} /> : null}
      {open?.kind === 'active' ? <ActiveDialog member={open.member} onClose={close} /> : null}
      {open?.kind === 'sessions' ? (
        <MemberSessionsDialog member={open.member} onClose={close} />
      ) : null}
      {open?.kind === 'revoke-invite' ? (
        <ConfirmDialog
          title={`Revoke the invite for ${open.invite.email}?`}
          onClose={close}
          onConfirm={() => revokeInvite(open.invite.id)}
          doneMessage="Invite revoked."
          confirmLabel="Revoke invite"
          busyLabel="Revoking…"
          testId="revoke-invite-dialog"
          confirmTestId="confirm-revoke-invite"
        >
          The link stops working at once; whoever opens it is told to ask for a new invite.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
