import { useState } from 'react';
import type { ApiKey, CreatedKey } from '../../../../shared/schemas/index.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LoadMore } from '../../components/load-more.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useKeys } from '../../stores/keys.ts';
import { useSession } from '../../stores/session.ts';
import { CreateKeyForm } from './create-key-form.tsx';
import { KeyRevealDialog } from './key-reveal-dialog.tsx';
import { KeysTable } from './keys-table.tsx';
import { RevokeKeyDialog } from './revoke-key-dialog.tsx';

export function ApiKeysScreen() {
  const environment = useSession((s) => s.environment);
  const status = useKeys((s) => s.status);
  const error = useKeys((s) => s.error);
  const load = useKeys((s) => s.load);
  const nextCursor = useKeys((s) => s.nextCursor);
  const loadingMore = useKeys((s) => s.loadingMore);
  const loadMore = useKeys((s) => s.loadMore);

  // The secret lives only in this state while its dialog is open, never in a store.
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  useLoadWhenIdle(status, load);

  return (
    <div className="screen" data-testid="screen-keys">
      <PageHeader
        eyebrow="Settings"
        title="API keys"
        description={
          <>
            Keys authenticate calls to this desk&apos;s local API with the <code>X-API-Key</code>{' '}
            header. Test keys (<code>svc_test_…</code>) work on simulated data and never charge the
            wallet; live keys (<code>svc_live_…</code>) do. Keys are shared by the whole workspace.
          </>
        }
      />

      <section className="card">
        <h2 className="card-title">Create a key</h2>
        <CreateKeyForm key={environment} defaultEnvironment={environment} onCreated={setCreated} />
      </section>

      <section className="card card-flush">
        <div className="card-header">
          <h2 className="card-title">Keys</h2>
        </div>
        {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
        <KeysTable onRevoke={setRevoking} loading={status === 'loading' || status === 'idle'} />
        <LoadMore nextCursor={nextCursor} loadingMore={loadingMore} loadMore={loadMore} />
      </section>

      {created ? <KeyRevealDialog created={created} onClose={() => setCreated(null)} /> : null}
      {revoking ? <RevokeKeyDialog apiKey={revoking} onClose={() => setRevoking(null)} /> : null}
    </div>
  );
}
