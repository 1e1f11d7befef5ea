import { useEffect, useState } from 'react';
import { DELIVERY_STATUSES } from '../../../../shared/schemas/webhooks.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FilterToolbar } from '../../components/filter-toolbar.tsx';
import { formatClockSeconds, formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { PagedTable, type Column } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useNow } from '../../components/use-now.ts';
import { useAction } from '../../components/use-action.ts';
import { statusClass } from '../playground/response-view.tsx';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { notify } from '../../stores/toasts.ts';
import {
  useWebhookLog,
  type DeliveryFilter,
  type Webhook,
  type WebhookDelivery,
} from '../../stores/webhooks.ts';
import { WebhookFormDialog } from './webhook-form.tsx';
import {
  DeleteWebhookDialog,
  DeliveryStatusChip,
  EnableButton,
  EnabledChip,
  EventsSummary,
  useRefreshWhileOpen,
} from './webhook-parts.tsx';
import {
  DELIVERY_STATUS_LABELS,
  eventWords,
  firstLine,
  readableBody,
  sentence,
  untilWords,
} from './webhook-words.ts';

const FILTERS: readonly DeliveryFilter[] = ['', ...DELIVERY_STATUSES];
const COLUMNS: Column[] = [
  { label: 'Event', className: 'col-event' },
  { label: 'Status', className: 'col-delivery-status' },
  { label: 'Attempts', className: 'num col-attempts' },
  { label: 'Answer', className: 'col-answer' },
];

/** How often an open log reads its newest deliveries again. */
const REFRESH_MS = 2_000;

/** What the receiver answered: its status, and its body's beginning to unfold. */
function AnswerCell({ delivery }: { delivery: WebhookDelivery }) {
  const { lastStatusCode: code, responseExcerpt: excerpt, responseTruncated: truncated } = delivery;
  if (code === null) {
    return <span className="muted">{delivery.attempts === 0 ? 'Not tried yet' : 'No answer'}</span>;
  }
  const readable = excerpt ? readableBody(excerpt, truncated) : null;
  const line = excerpt ? firstLine(excerpt) : null;
  return (
    <div className="answer">
      <span className={`status-pill ${statusClass(code)}`} data-testid="delivery-code">
        HTTP {code}
      </span>
      {excerpt === null || readable === null || line === null ? (
        <span className="muted">Empty answer</span>
      ) : !truncated && readable === line ? (
        // A short answer on one line reads in full as it is.
        <span className="answer-line answer-whole" data-testid="delivery-answer">
          {line}
        </span>
      ) : (
        <details className="answer-body" data-testid="delivery-answer">
          <summary>
            <span className="answer-line">{line}</span>
            <span className="answer-hide">Hide the answer</span>
          </summary>
          <pre className="answer-text" data-testid="delivery-answer-text">
            {readable}
          </pre>
          {truncated ? (
            <p className="hint">The answer was longer: only its first 1 KiB is kept.</p>
          ) : null}
        </details>
      )}
    </div>
  );
}

function RedeliverButton({ delivery, webhook }: { delivery: WebhookDelivery; webhook: Webhook }) {
  const redeliver = useWebhookLog((s) => s.redeliver);
  const { busy, run } = useAction();
  const refusal = webhook.enabled ? undefined : 'Enable the endpoint to redeliver.';
  const title =
    refusal ??
    (delivery.status === 'pending'
      ? 'Send it now instead of waiting for its next try.'
      : 'Send this event to the endpoint again now.');
  return (
    <button
      type="button"
      className="button button-small"
      disabled={busy || refusal !== undefined}
      title={title}
      aria-label={`Redeliver ${delivery.eventType} ${delivery.eventId}`}
      onClick={() =>
        void run(
          async () => {
            const shown = new Set(useWebhookLog.getState().deliveries.map((d) => d.id));
            const sent = await redeliver(delivery.id);
            notify(
              'success',
              sent.id === delivery.id
                ? `Sending ${delivery.eventType} now instead of at its next try.`
                : shown.has(sent.id)
                  ? `Another delivery of this event was waiting: it is sent now.`
                  : `Sending ${delivery.eventType} again as a new delivery.`,
            );
          },
          (e) => {
            notify('error', sentence(e instanceof Error ? e.message : String(e)));
            return true;
          },
        )
      }
      data-testid="delivery-redeliver"
    >
      {busy ? 'Sending…' : 'Redeliver'}
    </button>
  );
}

function DeliveryRow({
  delivery,
  webhook,
  now,
}: {
  delivery: WebhookDelivery;
  webhook: Webhook;
  now: number;
}) {
  const words = eventWords(delivery.eventType);
  return (
    <tr data-testid="delivery-row" data-delivery-id={delivery.id} data-status={delivery.status}>
      <td className="col-event">
        <span className="cell-strong mono">{delivery.eventType}</span>
        {words ? <span className="muted small event-words">{words}</span> : null}
        <span className="muted small mono" data-testid="delivery-event-id">
          {delivery.eventId}
        </span>
        <span className="muted small">{formatDateTime(delivery.createdAt)}</span>
      </td>
      <td className="col-delivery-status">
        <DeliveryStatusChip status={delivery.status} />
        {delivery.lastError ? (
          <span className="delivery-reason" data-testid="delivery-reason">
            {sentence(delivery.lastError)}
          </span>
        ) : null}
        {delivery.status === 'pending' && delivery.nextAttemptAt ? (
          <span className="muted small" data-testid="delivery-next">
            Next try {untilWords(delivery.nextAttemptAt, now)}
          </span>
        ) : null}
      </td>
      <td className="num col-attempts">
        <span data-testid="delivery-attempts">{delivery.attempts}</span>
        {delivery.lastAttemptAt ? (
          <span className="muted small attempt-time">
            last {formatClockSeconds(new Date(delivery.lastAttemptAt))}
          </span>
        ) : null}
      </td>
      <td className="col-answer">
        <AnswerCell delivery={delivery} />
      </td>
      <td className="col-actions">
        <RedeliverButton delivery={delivery} webhook={webhook} />
      </td>
    </tr>
  );
}

/** One endpoint: what it gets, its state, and every delivery with its tries and answers. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const show = useWebhookLog((s) => s.show);
  const shownFor = useWebhookLog((s) => s.webhookId);
  const webhook = useWebhookLog((s) => s.webhook);
  const webhookStatus = useWebhookLog((s) => s.webhookStatus);
  const webhookError = useWebhookLog((s) => s.webhookError);
  const notFound = useWebhookLog((s) => s.notFound);
  const deliveries = useWebhookLog((s) => s.deliveries);
  const status = useWebhookLog((s) => s.status);
  const error = useWebhookLog((s) => s.error);
  const filter = useWebhookLog((s) => s.statusFilter);
  const setFilter = useWebhookLog((s) => s.setStatusFilter);
  const load = useWebhookLog((s) => s.load);
  const loadMore = useWebhookLog((s) => s.loadMore);
  const refresh = useWebhookLog((s) => s.refresh);
  const nextCursor = useWebhookLog((s) => s.nextCursor);
  const loadingMore = useWebhookLog((s) => s.loadingMore);
  const navigate = useRoute((s) => s.navigate);
  const now = useNow(1_000);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  // Shown again after a mode switch reset the store.
  useEffect(() => {
    if (shownFor !== webhookId) show(webhookId);
  }, [show, shownFor, webhookId]);
  useLoadWhenIdle(shownFor === webhookId ? status : 'loading', load);
  useRefreshWhileOpen(refresh, REFRESH_MS);

  const back = (
    <a href={hrefFor('webhooks')} className="link-button">
      ← Webhooks
    </a>
  );

  if (webhookStatus === 'error' || !webhook) {
    const busy = webhookStatus !== 'error';
    return (
      <div className="screen" data-testid="webhook-log" aria-busy={busy}>
        <PageHeader
          eyebrow={back}
          title="Webhook endpoint"
          description={
            busy
              ? 'Loading…'
              : notFound
                ? 'No such endpoint in this mode: it was deleted, or it belongs to the other mode.'
                : 'The endpoint could not be read.'
          }
        />
        {!busy && !notFound && webhookError ? (
          <ErrorBanner message={webhookError} onRetry={() => void refresh()} />
        ) : null}
      </div>
    );
  }

  const loading = status === 'idle' || status === 'loading';
  return (
    <div
      className="screen webhooks-screen"
      data-testid="webhook-log"
      data-webhook-id={webhook.id}
      aria-busy={loading}
    >
      <PageHeader
        eyebrow={back}
        title={<span className="mono webhook-title">{webhook.url}</span>}
        titleClassName="webhook-heading"
        description={
          <span className="webhook-summary">
            <EnabledChip enabled={webhook.enabled} />
            <EventsSummary events={webhook.events} max={4} />
            {webhook.description ? <span>{webhook.description}</span> : null}
          </span>
        }
        actions={
          <>
            <EnableButton webhook={webhook} onChanged={() => void refresh()} />
            <button
              type="button"
              className="button"
              onClick={() => setEditing(true)}
              data-testid="webhook-edit"
            >
              Edit
            </button>
            <button
              type="button"
              className="button button-danger-ghost"
              onClick={() => setDeleting(true)}
              data-testid="webhook-delete"
            >
              Delete
            </button>
          </>
        }
      />
      {!webhook.enabled ? (
        <div className="banner banner-info" role="note" data-testid="webhook-disabled-note">
          <span className="banner-text">
            This endpoint is disabled: new events are not sent to it. Enable it to get them again
            and to redeliver what it missed.
          </span>
        </div>
      ) : null}
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
      <section className="card card-flush" aria-labelledby="delivery-log-title">
        <div className="card-header">
          <h2 className="card-title" id="delivery-log-title">
            Deliveries
          </h2>
          <span className="muted small">Updates by itself while open</span>
        </div>
        <FilterToolbar
          label="Filter by status"
          options={FILTERS}
          value={filter}
          onChange={setFilter}
          labels={DELIVERY_STATUS_LABELS}
          testId={(value) => `delivery-filter-${value || 'all'}`}
        >
          {loading
            ? 'Loading…'
            : `${deliveries.length}${nextCursor ? '+' : ''} ${deliveries.length === 1 ? 'delivery' : 'deliveries'}`}
        </FilterToolbar>
        <PagedTable
          hasRows={deliveries.length > 0}
          emptyTestId="deliveries-none"
          empty={
            loading
              ? 'Loading deliveries…'
              : filter
                ? `No ${DELIVERY_STATUS_LABELS[filter].toLowerCase()} deliveries.`
                : 'No deliveries yet: one appears here as soon as an event this endpoint gets happens.'
          }
          testId="deliveries-table"
          className="deliveries-table"
          columns={COLUMNS}
          actions
          nextCursor={nextCursor}
          loadingMore={loadingMore}
          loadMore={loadMore}
        >
          {deliveries.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} webhook={webhook} now={now} />
          ))}
        </PagedTable>
      </section>
      {editing ? <WebhookFormDialog webhook={webhook} onClose={() => setEditing(false)} /> : null}
      {deleting ? (
        <DeleteWebhookDialog
          webhook={webhook}
          onClose={() => setDeleting(false)}
          onDeleted={() => navigate('webhooks')}
        />
      ) : null}
    </div>
  );
}
