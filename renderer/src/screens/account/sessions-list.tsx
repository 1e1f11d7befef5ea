import { useState } from 'react';
import type { Session } from '../../../../shared/schemas/members.ts';
import { api } from '../../api/client.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import { useRecord } from '../../components/record-loader.tsx';
import { EmptyState, RowsTable } from '../../components/table.tsx';
import { useSession } from '../../stores/session.ts';

interface SessionsListProps {
  /** Another member's sessions (admins); yours when left out. */
  memberId?: string;
  /** Whose they are, for the words ("your", or the member's name). */
  owner: string | null;
}

/**
 * Where a member is signed in: each browser session with its device, address and last use, and
 * a way to end it. Ending the session this page runs in signs it out.
 */
export function SessionsList({ memberId, owner }: SessionsListProps) {
  const { loaded, retry, setRecord } = useRecord(() => api.sessions.list(memberId));
  const [revoking, setRevoking] = useState<Session | null>(null);
  const forget = useSession((s) => s.forget);

  const revoke = async (session: Session) => {
    await api.sessions.revoke(session.id);
    if (session.current) return forget();
    if (loaded.state === 'ready') {
      const rest = loaded.record.data.filter((s) => s.id !== session.id);
      setRecord({ ...loaded.record, data: rest });
    }
  };

  if (loaded.state === 'error') return <ErrorBanner message={loaded.error} onRetry={retry} />;
  if (loaded.state === 'loading') {
    return <EmptyState testId="sessions-empty">Loading sessions…</EmptyState>;
  }
  const sessions = loaded.record.data;
  return (
    <>
      <RowsTable
        hasRows={sessions.length > 0}
        empty={
          owner ? `${owner} is not signed in anywhere.` : 'You are not signed in in any browser.'
        }
        emptyTestId="sessions-empty"
        testId="sessions-table"
        columns={['Device', 'Address', 'Signed in', 'Last seen']}
        actions
      >
        {sessions.map((session) => (
          <tr key={session.id} data-testid="session-row">
            <td className="cell-wrap">
              <span className="cell-strong">{session.device || 'Unknown browser'}</span>
              {session.current ? (
                <>
                  {' '}
                  <span className="badge" data-testid="session-current">
                    This session
                  </span>
                </>
              ) : null}
            </td>
            <td className="nowrap">{session.address}</td>
            <td className="nowrap">{formatDateTime(session.createdAt)}</td>
            <td className="nowrap">{formatDateTime(session.lastSeenAt)}</td>
            <td className="col-actions">
              <button
                type="button"
                className="button button-small button-danger-ghost"
                onClick={() => setRevoking(session)}
                // It begins with what it shows, so speech input can name it by that.
                aria-label={`${session.current ? 'Sign out' : 'Revoke'} ${session.device || 'a browser'} at ${session.address}`}
                data-testid="revoke-session"
              >
                {session.current ? 'Sign out' : 'Revoke'}
              </button>
            </td>
          </tr>
        ))}
      </RowsTable>
      {revoking ? (
        <ConfirmDialog
          title={revoking.current ? 'Sign out of this browser?' : 'End this session?'}
          onClose={() => setRevoking(null)}
          onConfirm={() => revoke(revoking)}
          doneMessage={revoking.current ? 'Signed out.' : 'Session ended.'}
          confirmLabel={revoking.current ? 'Sign out' : 'End session'}
          busyLabel="Ending…"
          testId="revoke-session-dialog"
          confirmTestId="confirm-revoke-session"
        >
          {revoking.current
            ? 'This is the session you are using: this page goes back to the sign-in form.'
            : `${revoking.device || 'The browser'} at ${revoking.address} is signed out at once; its open pages show the sign-in form.`}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
