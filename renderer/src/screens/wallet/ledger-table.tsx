import type { LedgerEntry } from '../../../../shared/schemas/index.ts';
import { formatMicros } from '../../../../shared/money.ts';
import { formatDateTime } from '../../components/format.ts';
import { notifyError } from '../../stores/toasts.ts';
import { useWallet } from '../../stores/wallet.ts';

const TYPE_LABELS: Record<LedgerEntry['type'], string> = {
  topup: 'Top-up',
  charge: 'Charge',
  refund: 'Refund',
  adjustment: 'Adjustment',
};

function signedAmount(micros: number, currency: string): string {
  return micros > 0 ? `+${formatMicros(micros, currency)}` : formatMicros(micros, currency);
}

export function LedgerTable() {
  const entries = useWallet((s) => s.entries);
  const currency = useWallet((s) => s.wallet?.currency ?? 'USD');
  const status = useWallet((s) => s.status);
  const nextCursor = useWallet((s) => s.nextCursor);
  const loadingMore = useWallet((s) => s.loadingMore);
  const loadMore = useWallet((s) => s.loadMore);

  if (entries.length === 0) {
    return (
      <div className="empty-state" data-testid="ledger-empty">
        {status === 'ready'
          ? 'No transactions yet. Top-ups, charges and refunds will appear here.'
          : 'Loading transactions…'}
      </div>
    );
  }

  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid="ledger-table">
          <thead>
            <tr>
              <th>Date</th>
              <th>Type</th>
              <th>Description</th>
              <th className="num">Amount</th>
              <th className="num">Balance after</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-testid="ledger-row">
                <td className="nowrap">{formatDateTime(entry.createdAt)}</td>
                <td>
                  <span className={`badge badge-ledger-${entry.type}`}>
                    {TYPE_LABELS[entry.type]}
                  </span>
                </td>
                <td className="cell-wrap">
                  {entry.description || <span className="muted">—</span>}
                  {entry.reference ? (
                    <span className="muted small"> · {entry.reference}</span>
                  ) : null}
                </td>
                <td
                  className={`num amount ${entry.amountMicros >= 0 ? 'amount-credit' : 'amount-debit'}`}
                  data-testid="ledger-amount"
                >
                  {signedAmount(entry.amountMicros, currency)}
                </td>
                <td className="num">{formatMicros(entry.balanceAfterMicros, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {nextCursor ? (
        <div className="card-footer">
          <button
            type="button"
            className="button"
            disabled={loadingMore}
            onClick={() => loadMore().catch(notifyError)}
            data-testid="ledger-load-more"
          >
            {loadingMore ? 'Loading…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </>
  );
}
