import { useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { RECIPIENT_STATUSES } from '../../../../shared/campaign-rules.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import { SyncIcon } from '../../components/icons.tsx';
import { EmptyState } from '../../components/table.tsx';
import { useCampaignRecipients, type RecipientRow } from '../../stores/campaigns-recipients.ts';
import { notifyError } from '../../stores/toasts.ts';
import { explainError, formatSoon } from './campaign-format.ts';
import { RECIPIENT_STATUS_LABELS, RecipientStatusChip } from './campaign-status.tsx';

const ROW_HEIGHT = 48;
/** Start fetching the next page this many rows before the end comes into view. */
const LOAD_AHEAD = 30;

const errorAnchor = (code: string): string => `recipient-error-${code.replace(/[^\w-]/g, '_')}`;

/** Opens the explanation of an error code below the table and brings it into view. */
function showExplanation(code: string): void {
  const entry = document.getElementById(errorAnchor(code));
  const details = entry?.closest('details');
  if (details) details.open = true;
  entry?.scrollIntoView({ block: 'center', behavior: 'smooth' });
}

function Outcome({ recipient }: { recipient: RecipientRow }) {
  const { error } = recipient;
  if (error) {
    const { title, explanation } = explainError(error);
    return (
      <span className="recipient-error" data-testid="recipient-error">
        <button
          type="button"
          className="link-button recipient-error-title"
          title={explanation}
          aria-describedby={errorAnchor(error.code)}
          onClick={() => showExplanation(error.code)}
        >
          {title}
        </button>{' '}
        <code className="muted">{error.code}</code>
      </span>
    );
  }
  if (recipient.status === 'retrying' && recipient.nextAttemptAt) {
    return <span className="muted">Next try at {formatSoon(recipient.nextAttemptAt)}</span>;
  }
  return <span className="muted">—</span>;
}

/** The error codes among the rows shown, explained once each (RECIPIENT_ERRORS). */
function ErrorLegend({ recipients }: { recipients: RecipientRow[] }) {
  const seen = new Map<string, { code: string; message: string }>();
  for (const r of recipients)
    if (r.error && !seen.has(r.error.code)) seen.set(r.error.code, r.error);
  if (seen.size === 0) return null;
  return (
    <details className="recipient-legend" open data-testid="recipient-error-legend">
      <summary>What these errors mean</summary>
      <dl>
        {[...seen.values()].map((error) => {
          const { title, explanation } = explainError(error);
          return (
            <div key={error.code} id={errorAnchor(error.code)} className="recipient-legend-item">
              <dt>
                {title} <code className="muted">{error.code}</code>
              </dt>
              <dd>{explanation}</dd>
            </div>
          );
        })}
      </dl>
    </details>
  );
}

/** Everyone the campaign reaches, virtualised (a campaign may have 100,000), by status. */
export function RecipientsTable() {
  const recipients = useCampaignRecipients((s) => s.recipients);
  const status = useCampaignRecipients((s) => s.status);
  const error = useCampaignRecipients((s) => s.error);
  const filter = useCampaignRecipients((s) => s.filter);
  const setFilter = useCampaignRecipients((s) => s.setFilter);
  const outdated = useCampaignRecipients((s) => s.outdated);
  const nextCursor = useCampaignRecipients((s) => s.nextCursor);
  const loadingMore = useCampaignRecipients((s) => s.loadingMore);
  const loadMore = useCampaignRecipients((s) => s.loadMore);
  const load = useCampaignRecipients((s) => s.load);
  const scrollRef = useRef<HTMLDivElement>(null);

  const rowCount = recipients.length + (nextCursor ? 1 : 0);
  // TanStack Virtual returns fresh functions each render by design; nothing here is memoised on them.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const rows = virtualizer.getVirtualItems();
  const lastVisible = rows.length > 0 ? rows[rows.length - 1]!.index : -1;

  useEffect(() => {
    if (nextCursor && !loadingMore && lastVisible >= recipients.length - LOAD_AHEAD) {
      loadMore().catch(notifyError);
    }
  }, [lastVisible, recipients.length, nextCursor, loadingMore, loadMore]);

  const loading = status === 'idle' || status === 'loading';

  return (
    <section
      className="card card-flush campaign-recipients"
      aria-labelledby="campaign-recipients-title"
    >
      <div className="card-header">
        <h2 id="campaign-recipients-title" className="card-title">
          Recipients
        </h2>
        <button
          type="button"
          className={`button button-small${outdated ? ' button-primary' : ''}`}
          onClick={() => void load()}
          disabled={status === 'loading'}
          data-testid="recipients-refresh"
        >
          <SyncIcon />
          {outdated ? 'New results — refresh' : 'Refresh'}
        </button>
      </div>
      <div className="toolbar">
        <div className="filter-pills" role="group" aria-label="Filter recipients by status">
          {(['', ...RECIPIENT_STATUSES] as const).map((value) => (
            <button
              key={value || 'all'}
              type="button"
              className={`filter-pill${filter === value ? ' selected' : ''}`}
              aria-pressed={filter === value}
              onClick={() => setFilter(value)}
              data-testid={`recipient-filter-${value || 'all'}`}
            >
              {value ? RECIPIENT_STATUS_LABELS[value] : 'All'}
            </button>
          ))}
        </div>
        <span className="toolbar-meta" aria-live="polite">
          {loading
            ? 'Loading…'
            : nextCursor
              ? `${recipients.length.toLocaleString('en-US')} shown · scroll for more`
              : `${recipients.length.toLocaleString('en-US')} recipient${recipients.length === 1 ? '' : 's'}`}
        </span>
      </div>
      {status === 'error' && error ? (
        <ErrorBanner message={error} onRetry={() => void load()} />
      ) : null}
      <div className="vtable" role="table" aria-label="Recipients" aria-rowcount={rowCount}>
        <div className="vtable-head" role="rowgroup">
          <div className="vtable-row recipients-grid" role="row">
            <div role="columnheader">Phone</div>
            <div role="columnheader">Name</div>
            <div role="columnheader">Status</div>
            <div role="columnheader" className="num">
              Attempts
            </div>
            <div role="columnheader">Outcome</div>
            <div role="columnheader" className="col-optional">
              Updated
            </div>
          </div>
        </div>
        <div
          className="vtable-scroll recipients-scroll"
          ref={scrollRef}
          data-testid="recipients-scroll"
        >
          {recipients.length === 0 ? (
            <EmptyState testId="recipients-empty">
              {loading
                ? 'Loading recipients…'
                : filter
                  ? `No ${RECIPIENT_STATUS_LABELS[filter].toLowerCase()} recipients.`
                  : 'No recipients: they are fixed when the campaign is launched.'}
            </EmptyState>
          ) : (
            <div
              role="rowgroup"
              className="vtable-body"
              style={{ height: virtualizer.getTotalSize() }}
            >
              {rows.map((row) => {
                const recipient = recipients[row.index];
                const style = { height: row.size, transform: `translateY(${row.start}px)` };
                if (!recipient) {
                  return (
                    <div key="loader" className="vtable-row vtable-loader" role="row" style={style}>
                      <div role="cell">Loading more…</div>
                    </div>
                  );
                }
                return (
                  <div
                    key={recipient.id}
                    className="vtable-row recipients-grid"
                    role="row"
                    aria-rowindex={row.index + 1}
                    style={style}
                    data-testid="recipient-row"
                    data-status={recipient.status}
                  >
                    <div role="cell" className="mono">
                      {recipient.phone}
                    </div>
                    <div role="cell" className="truncate">
                      {recipient.name ?? <span className="muted">—</span>}
                    </div>
                    <div role="cell">
                      <RecipientStatusChip status={recipient.status} />
                    </div>
                    <div role="cell" className="num">
                      {recipient.attempts}
                    </div>
                    <div role="cell" className="truncate">
                      <Outcome recipient={recipient} />
                    </div>
                    <div role="cell" className="nowrap muted col-optional">
                      {formatDateTime(recipient.updatedAt)}
                    </div>
                  </div>
                );
              })}
            </div>
          )}
        </div>
      </div>
      <ErrorLegend recipients={recipients} />
    </section>
  );
}
