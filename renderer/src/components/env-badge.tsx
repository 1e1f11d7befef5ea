import type { Environment } from '../api/client.ts';

export function EnvBadge({ environment }: { environment: Environment }) {
  return (
    <span className={`badge badge-${environment}`} data-testid="env-badge">
      {environment === 'test' ? 'Test' : 'Live'}
    </span>
  );
}
