import { useEffect } from 'react';
import { formatMicros } from '../../../shared/money.ts';
import { hrefFor } from '../stores/route.ts';
import { useSession, selectWorkspaceName } from '../stores/session.ts';
import { selectIsLowBalance, useWallet } from '../stores/wallet.ts';
import { AccountMenu } from './account-menu.tsx';
import { ModeSwitch } from './mode-switch.tsx';
import { useCan } from './use-can.ts';
import './top-bar.css';

/**
 * The low-balance warning (design.md §8): on every screen of live mode, while the wallet's
 * balance is under the workspace's threshold (Settings → Workspace), for those who may read the
 * wallet. The balance is read as live mode opens, when a charge crosses the threshold (the
 * `wallet.low_balance` event), when the window comes back into view (a top-up elsewhere), and
 * after a top-up or a new threshold here.
 */
function LowBalanceWarning() {
  const live = useSession((s) => s.environment === 'live');
  const workspaceId = useSession((s) => s.workspaceId);
  const mayRead = useCan('wallet.read');
  const wallet = useWallet((s) => s.wallet);
  const low = useWallet(selectIsLowBalance);
  const refresh = useWallet((s) => s.refreshBalance);
  const watching = live && mayRead;

  useEffect(() => {
    if (!watching) return;
    void refresh();
    const onBack = () => {
      if (document.visibilityState === 'visible') void refresh();
    };
    document.addEventListener('visibilitychange', onBack);
    window.addEventListener('focus', onBack);
    return () => {
      document.removeEventListener('visibilitychange', onBack);
      window.removeEventListener('focus', onBack);
    };
  }, [watching, workspaceId, refresh]);

  if (!watching || !wallet || !low) return null;
  const balance = formatMicros(wallet.balanceMicros, wallet.currency);
  const threshold = formatMicros(wallet.lowBalanceThresholdMicros, wallet.currency);
  return (
    <div
      className="topbar-low-balance"
      role="status"
      title={`The wallet's balance is under ${threshold}: live messages and campaigns stop when it runs out.`}
      data-testid="low-balance-warning"
    >
      <span>
        Low balance: <strong data-testid="low-balance-amount">{balance}</strong>
        <span className="topbar-low-balance-threshold"> (under {threshold})</span>
      </span>
      <a href={hrefFor('wallet')} data-testid="low-balance-topup">
        Top up
      </a>
    </div>
  );
}

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
        <LowBalanceWarning />
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
    // A landmark of its own (a named region), so it is not content outside every landmark.
    <section className="mode-banner" aria-label="Test mode" data-testid="test-mode-banner">
      <strong>Test mode</strong>
      <span>
        You are viewing test data. Test messages are simulated and never charge the wallet.
      </span>
    </section>
  );
}
