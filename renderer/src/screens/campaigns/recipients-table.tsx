import { RECIPIENT_STATUSES } from '../../../../shared/campaign-rules.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FilterToolbar } from '../../components/filter-toolbar.tsx';
import { formatDateTime } from '../../components/format.ts';
import { SyncIcon } from '../../components/icons.tsx';
import { VirtualTable } from '../../components/virtual-table.tsx';
import {
  useCampaignRecipients,
  type RecipientFilter,
  type RecipientRow,
} from '../../stores/campaigns-recipients.ts';
import { explainError, formatSoon } from './campaign-format.ts';
import { RECIPIENT_STATUS_LABELS, RecipientStatusChip } from './campaign-status.tsx';

const FILTERS: readonly RecipientFilter[] = ['', ...RECIPIENT_STATUSES];

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
  const filter = useCampaignRecipients((s) => s.statusFilter);
  const setFilter = useCampaignRecipients((s) => s.setStatusFilter);
  const outdated = useCampaignRecipients((s) => s.outdated);
  const nextCursor = useCampaignRecipients((s) => s.nextCursor);
  const loadingMore = useCampaignRecipients((s) => s.loadingMore);
  const loadMore = useCampaignRecipients((s) => s.loadMore);
  const load = useCampaignRecipients((s) => s.load);

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
      <FilterToolbar
        label="Filter recipients by status"
        options={FILTERS}
        value={filter}
        onChange={setFilter}
        labels={RECIPIENT_STATUS_LABELS}
        testId={(value) => `recipient-filter-${value || 'all'}`}
      >
        {loading
          ? 'Loading…'
          : nextCursor
            ? `${recipients.length.toLocaleString('en-US')} shown · scroll for more`
            : `${recipients.length.toLocaleString('en-US')} recipient${recipients.length === 1 ? '' : 's'}`}
      </FilterToolbar>
      {status === 'error' && error ? (
        <ErrorBanner message={error} onRetry={() => void load()} />
      ) : null}
      <VirtualTable
        label="Recipients"
        gridClassName="recipients-grid"
        columns={
          <>
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
          </>
        }
        rows={recipients}
        nextCursor={nextCursor}
        loadingMore={loadingMore}
        loadMore={loadMore}
        scrollClassName="recipients-scroll"
        scrollTestId="recipients-scroll"
        emptyTestId="recipients-empty"
        empty={
          loading
            ? 'Loading recipients…'
            : filter
              ? `No ${RECIPIENT_STATUS_LABELS[filter].toLowerCase()} recipients.`
              : 'No recipients: they are fixed when the campaign is launched.'
        }
        renderRow={(recipient, rowProps) => (
          <div
            key={recipient.id}
            className="vtable-row recipients-grid"
            {...rowProps}
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
        )}
      />
      <ErrorLegend recipients={recipients} />
    </section>
  );
}
