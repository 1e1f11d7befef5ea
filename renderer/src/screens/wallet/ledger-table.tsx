import type { LedgerEntry } from '../../../../shared/schemas/index.ts';
import { formatMicros } from '../../../../shared/money.ts';
import { formatDateTime } from '../../components/format.ts';
import { LoadMore } from '../../components/load-more.tsx';
import { EmptyState, TableHead } from '../../components/table.tsx';
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
      <EmptyState testId="ledger-empty">
        {status === 'ready'
          ? 'No transactions yet. Top-ups, charges and refunds will appear here.'
          : 'Loading transactions…'}
      </EmptyState>
    );
  }

  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid="ledger-table">
          <TableHead
            columns={[
              'Date',
              'Type',
              'Description',
              { label: 'Amount', className: 'num' },
              { label: 'Balance after', className: 'num' },
            ]}
          />
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
      <LoadMore
        nextCursor={nextCursor}
        loadingMore={loadingMore}
        loadMore={loadMore}
        testId="ledger-load-more"
      />
    </>
  );
}
