import { useState } from 'react';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PlusIcon } from '../../components/icons.tsx';
import { ListIntro } from '../../components/list-intro.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { PagedTable, type Column } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useNow } from '../../components/use-now.ts';
import { hrefFor } from '../../stores/route.ts';
import { useSession } from '../../stores/session.ts';
import { useWebhooks, type CreatedWebhook, type Webhook } from '../../stores/webhooks.ts';
import { WebhookFormDialog } from './webhook-form.tsx';
import {
  DeleteWebhookDialog,
  DeliveryStatusChip,
  EnableButton,
  EnabledChip,
  EventsSummary,
  useRefreshWhileOpen,
  WebhookSecretDialog,
} from './webhook-parts.tsx';
import { agoWords } from './webhook-words.ts';

const COLUMNS: Column[] = [
  { label: 'Endpoint and events', className: 'col-endpoint' },
  'State',
  { label: 'Last delivery', className: 'col-last-delivery' },
];

/** How often the list reads its endpoints' newest deliveries again while it is open. */
const REFRESH_MS = 5_000;

function LastDelivery({ webhook, now }: { webhook: Webhook; now: number }) {
  const last = webhook.lastDelivery;
  if (!last) return <span className="muted">None yet</span>;
  return (
    <span className="last-delivery">
      <DeliveryStatusChip status={last.status} />
      <span className="muted small">
        {last.lastStatusCode !== null ? `HTTP ${last.lastStatusCode} · ` : ''}
        {agoWords(last.lastAttemptAt ?? last.createdAt, now)}
      </span>
    </span>
  );
}

/** The endpoints of this mode: where events go, which, and how the last one went. */
export function WebhookList() {
  const environment = useSession((s) => s.environment);
  const webhooks = useWebhooks((s) => s.webhooks);
  const status = useWebhooks((s) => s.status);
  const error = useWebhooks((s) => s.error);
  const load = useWebhooks((s) => s.load);
  const loadMore = useWebhooks((s) => s.loadMore);
  const refresh = useWebhooks((s) => s.refresh);
  const nextCursor = useWebhooks((s) => s.nextCursor);
  const loadingMore = useWebhooks((s) => s.loadingMore);
  const now = useNow(5_000);
  const [adding, setAdding] = useState(false);
  // The secret lives only in this state while its dialog is open, never in a store.
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);

  useLoadWhenIdle(status, load);
  useRefreshWhileOpen(refresh, REFRESH_MS);
  const loading = status === 'idle' || status === 'loading';

  return (
    <div className="screen webhooks-screen" data-testid="screen-webhooks" aria-busy={loading}>
      <PageHeader
        eyebrow="Developers"
        title="Webhooks"
        description={
          <>
            Parley sends events — a customer writing in, a message delivered, a campaign’s progress
            — to your own server as they happen, signed so it can trust them. These are the
            endpoints of {environment} mode: they get {environment} mode’s events only.
          </>
        }
        actions={
          webhooks.length > 0 ? (
            <button
              type="button"
              className="button button-primary"
              onClick={() => setAdding(true)}
              data-testid="webhook-new"
            >
              <PlusIcon />
              Add endpoint
            </button>
          ) : null
        }
      />
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
      {!loading && status !== 'error' && webhooks.length === 0 ? (
        <section className="card">
          <ListIntro
            title="No endpoints yet"
            createLabel="Add endpoint"
            onCreate={() => setAdding(true)}
            testId="webhooks-empty"
            createTestId="webhook-new"
            right="webhooks"
          >
            <p>
              Add the address of a server you run — a CRM sync, an order system, a chat bot — and
              choose which events it gets. Each delivery is retried for up to 3 days until your
              server answers with a 2xx status; the log shows every try and its answer.
            </p>
          </ListIntro>
        </section>
      ) : (
        <section className="card card-flush" aria-label="Endpoints">
          <PagedTable
            hasRows={webhooks.length > 0}
            emptyTestId="webhooks-loading"
            empty={loading ? 'Loading endpoints…' : 'No endpoints.'}
            testId="webhooks-table"
            className="webhooks-table"
            columns={COLUMNS}
            actions
            nextCursor={nextCursor}
            loadingMore={loadingMore}
            loadMore={loadMore}
          >
            {webhooks.map((webhook) => (
              <tr key={webhook.id} data-testid="webhook-row" data-webhook-id={webhook.id}>
                <td className="col-endpoint">
                  <a
                    href={hrefFor('webhooks', webhook.id)}
                    className="cell-strong mono webhook-url"
                    title={webhook.url}
                    data-testid="webhook-link"
                  >
                    {webhook.url}
                  </a>
                  {webhook.description ? (
                    <span className="muted webhook-description">{webhook.description}</span>
                  ) : null}
                  <EventsSummary events={webhook.events} />
                </td>
                <td>
                  <EnabledChip enabled={webhook.enabled} />
                </td>
                <td className="col-last-delivery">
                  <LastDelivery webhook={webhook} now={now} />
                </td>
                <td className="col-actions">
                  <div className="row-actions">
                    <EnableButton webhook={webhook} small />
                    <button
                      type="button"
                      className="button button-small button-danger-ghost"
                      onClick={() => setDeleting(webhook)}
                      aria-label={`Delete ${webhook.url}`}
                      data-testid="webhook-delete"
                    >
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </PagedTable>
        </section>
      )}
      {adding ? (
        <WebhookFormDialog
          onClose={() => setAdding(false)}
          onCreated={(webhook) => {
            setAdding(false);
            setCreated(webhook);
          }}
        />
      ) : null}
      {created ? <WebhookSecretDialog created={created} onClose={() => setCreated(null)} /> : null}
      {deleting ? (
        <DeleteWebhookDialog webhook={deleting} onClose={() => setDeleting(null)} />
      ) : null}
    </div>
  );
}
