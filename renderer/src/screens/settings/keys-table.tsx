import type { ApiKey } from '../../../../shared/schemas/index.ts';
import { EnvBadge } from '../../components/env-badge.tsx';
import { formatDate, formatDateTime } from '../../components/format.ts';
import { EmptyState, TableHead } from '../../components/table.tsx';
import { useKeys } from '../../stores/keys.ts';

interface KeysTableProps {
  onRevoke: (key: ApiKey) => void;
  loading: boolean;
}

export function KeysTable({ onRevoke, loading }: KeysTableProps) {
  const keys = useKeys((s) => s.keys);

  if (keys.length === 0) {
    return (
      <EmptyState testId="keys-empty">
        {loading ? 'Loading keys…' : 'No keys yet. Create one above to call the local API.'}
      </EmptyState>
    );
  }

  return (
    <div className="table-wrap">
      <table className="table" data-testid="keys-table">
        <TableHead
          columns={['Name', 'Key', 'Environment', 'Created', 'Last used', 'Status']}
          actions
        />
        <tbody>
          {keys.map((key) => (
            <tr
              key={key.id}
              className={key.revokedAt ? 'row-muted' : undefined}
              data-testid="key-row"
              data-key-id={key.id}
            >
              <td className="cell-strong" data-testid="key-name-cell">
                {key.name}
              </td>
              <td>
                <code className="key-prefix" data-testid="key-prefix">
                  {key.prefix}…
                </code>
              </td>
              <td>
                <EnvBadge environment={key.environment} />
              </td>
              <td className="nowrap">{formatDate(key.createdAt)}</td>
              <td className="nowrap" data-testid="key-last-used">
                {key.lastUsedAt ? (
                  formatDateTime(key.lastUsedAt)
                ) : (
                  <span className="muted">never</span>
                )}
              </td>
              <td className="nowrap" data-testid="key-status">
                {key.revokedAt ? (
                  <span className="status status-revoked">Revoked {formatDate(key.revokedAt)}</span>
                ) : (
                  <span className="status status-active">Active</span>
                )}
              </td>
              <td className="col-actions">
                {key.revokedAt ? null : (
                  <button
                    type="button"
                    className="button button-small button-danger-ghost"
                    onClick={() => onRevoke(key)}
                    data-testid="revoke-key"
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
