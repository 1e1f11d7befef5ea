import { useSession, selectWorkspaceName } from '../stores/session.ts';
import { AccountMenu } from './account-menu.tsx';
import { ModeSwitch } from './mode-switch.tsx';

export function TopBar() {
  const name = useSession(selectWorkspaceName);
  const workspaceId = useSession((s) => s.workspaceId);
  const workspaces = useSession((s) => s.workspaces);
  const account = useSession((s) => s.me?.businessAccount.name ?? null);
  const setWorkspace = useSession((s) => s.setWorkspace);

  return (
    <header className="topbar">
      <div className="workspace">
        <span className="workspace-label">Workspace</span>
        {workspaces.length > 1 ? (
          <select
            className="select workspace-select"
            aria-label="Workspace"
            data-testid="workspace-select"
            value={workspaceId ?? ''}
            onChange={(event) => setWorkspace(event.target.value)}
          >
            {workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        ) : (
          <span className="workspace-name" data-testid="workspace-name">
            {name}
          </span>
        )}
        {account ? <span className="workspace-account">· {account}</span> : null}
      </div>
      <div className="topbar-actions">
        <AccountMenu />
        <ModeSwitch />
      </div>
    </header>
  );
}

export function ModeBanner() {
  const environment = useSession((s) => s.environment);
  if (environment !== 'test') return null;
  return (
    <div className="mode-banner" role="note" data-testid="test-mode-banner">
      <strong>Test mode</strong>
      <span>
        You are viewing test data. Test messages are simulated and never charge the wallet.
      </span>
    </div>
  );
}
