import { formatMicros } from '../../../../shared/money.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useSession } from '../../stores/session.ts';
import { selectIsLowBalance, useWallet } from '../../stores/wallet.ts';
import { LedgerTable } from './ledger-table.tsx';
import { TopupForm } from './topup-form.tsx';

export function WalletScreen() {
  const environment = useSession((s) => s.environment);
  const wallet = useWallet((s) => s.wallet);
  const status = useWallet((s) => s.status);
  const error = useWallet((s) => s.error);
  const load = useWallet((s) => s.load);
  const low = useWallet(selectIsLowBalance);

  useLoadWhenIdle(status, load);

  return (
    <div className="screen" data-testid="screen-wallet">
      <PageHeader
        title="Wallet"
        description={
          <>
            The prepaid balance of this workspace. Each live message deducts its price; a send that
            later fails is refunded.
          </>
        }
      />

      {environment === 'test' ? (
        <div className="banner banner-info" role="note" data-testid="wallet-test-note">
          You are in test mode. Test-mode sends never touch the wallet — only live messages are
          charged. The balance below is the workspace&apos;s real balance.
        </div>
      ) : null}

      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}

      <div className="grid-2">
        <section className="card balance-card">
          <h2 className="card-title">Balance</h2>
          <p className={`balance${low ? ' balance-low' : ''}`} data-testid="wallet-balance">
            {wallet ? formatMicros(wallet.balanceMicros, wallet.currency) : '—'}
          </p>
          {wallet ? (
            <p className="muted small">
              {wallet.currency} · updated {formatDateTime(wallet.updatedAt)}
            </p>
          ) : null}
          {wallet && low ? (
            <div className="banner banner-warning" role="status" data-testid="low-balance">
              Balance is below {formatMicros(wallet.lowBalanceThresholdMicros, wallet.currency)}.
              Top up so live messages and campaigns keep sending.
            </div>
          ) : null}
        </section>

        <section className="card">
          <h2 className="card-title">Top up</h2>
          <TopupForm currency={wallet?.currency ?? 'USD'} />
        </section>
      </div>

      <section className="card card-flush">
        <div className="card-header">
          <h2 className="card-title">Transactions</h2>
        </div>
        <LedgerTable />
      </section>
    </div>
  );
}
