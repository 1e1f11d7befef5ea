import { useEffect, type ReactNode } from 'react';
import type { StoreApi, UseBoundStore } from 'zustand';
import type { Download } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { ExportButton } from '../../components/export-button.tsx';
import { FilterToolbar } from '../../components/filter-toolbar.tsx';
import { SyncIcon } from '../../components/icons.tsx';
import { VirtualTable } from '../../components/virtual-table.tsx';
import type { RecipientsState } from '../../stores/campaign-stores.ts';

interface RecipientsCardProps<R extends { id: string; status: string }, F extends string> {
  store: UseBoundStore<StoreApi<RecipientsState<R, F>>>;
  /** The id of the card's title. */
  titleId: string;
  /** Starts the test ids: `<prefix>recipients-refresh`, `<prefix>recipient-row`, … */
  testIdPrefix: string;
  filters: readonly F[];
  labels: Record<Exclude<F, ''>, string>;
  /** The class that lays out the columns. */
  gridClassName: string;
  /** The heading row's cells. */
  columns: ReactNode;
  /** What the table says while the campaign has no recipients yet. */
  noneYet: string;
  /** A row's cells. */
  cells: (recipient: R) => ReactNode;
  /** What follows the table. */
  children?: ReactNode;
  /** The campaign's recipients of a status ('' for all) as a CSV file (README "Exports"). */
  exportCsv: (campaignId: string, status: F) => Promise<Download>;
}

/**
 * Everyone a campaign reaches, virtualised (a campaign may have 100,000), by status: while it is
 * on screen it follows the campaign by itself (the store reads the rows shown again, quietly, as
 * progress arrives), and
 * offers a refresh when too many rows are shown to follow.
 */
export function RecipientsCard<R extends { id: string; status: string }, F extends string>({
  store,
  titleId,
  testIdPrefix,
  filters,
  labels,
  gridClassName,
  columns,
  noneYet,
  cells,
  children,
  exportCsv,
}: RecipientsCardProps<R, F>) {
  const recipients = store((s) => s.recipients);
  const status = store((s) => s.status);
  const error = store((s) => s.error);
  const filter = store((s) => s.statusFilter);
  const setFilter = store((s) => s.setStatusFilter);
  const outdated = store((s) => s.outdated);
  const nextCursor = store((s) => s.nextCursor);
  const loadingMore = store((s) => s.loadingMore);
  const loadMore = store((s) => s.loadMore);
  const load = store((s) => s.load);
  const refresh = store((s) => s.refresh);
  // The rows follow the campaign only while the table is on screen.
  useEffect(() => store.getState().watch(), [store]);

  const loading = status === 'idle' || status === 'loading';
  const count = recipients.length.toLocaleString('en-US');

  return (
    <section className="card card-flush campaign-recipients" aria-labelledby={titleId}>
      <div className="card-header">
        <h2 id={titleId} className="card-title">
          Recipients
        </h2>
        <div className="row-actions">
          <ExportButton
            small
            // The rows the filter shows, all of them (the table holds only the pages read).
            load={() => {
              const { campaignId, statusFilter } = store.getState();
              return exportCsv(campaignId ?? '', statusFilter);
            }}
            testId={`${testIdPrefix}recipients-export`}
          />
          <button
            type="button"
            className={`button button-small${outdated ? ' button-primary' : ''}`}
            // Quietly when rows are shown (the scroll and the pages read stay).
            onClick={() => void (status === 'ready' ? refresh() : load())}
            disabled={status === 'loading'}
            data-testid={`${testIdPrefix}recipients-refresh`}
          >
            <SyncIcon />
            {outdated ? 'New results — refresh' : 'Refresh'}
          </button>
        </div>
      </div>
      <FilterToolbar
        label="Filter recipients by status"
        options={filters}
        value={filter}
        onChange={setFilter}
        labels={labels}
        testId={(value) => `${testIdPrefix}recipient-filter-${value || 'all'}`}
      >
        {loading
          ? 'Loading…'
          : nextCursor
            ? `${count} shown · scroll for more`
            : `${count} recipient${recipients.length === 1 ? '' : 's'}`}
      </FilterToolbar>
      {status === 'error' && error ? (
        <ErrorBanner message={error} onRetry={() => void load()} />
      ) : null}
      <VirtualTable
        label="Recipients"
        gridClassName={gridClassName}
        columns={columns}
        rows={recipients}
        nextCursor={nextCursor}
        loadingMore={loadingMore}
        loadMore={loadMore}
        scrollClassName="recipients-scroll"
        scrollTestId={`${testIdPrefix}recipients-scroll`}
        emptyTestId={`${testIdPrefix}recipients-empty`}
        empty={
          loading
            ? 'Loading recipients…'
            : filter
              ? `No ${labels[filter as Exclude<F, ''>].toLowerCase()} recipients.`
              : noneYet
        }
        // Most rows hold nothing to tab to: the rows are the table's tab stop.
        focusRows
        renderRow={(recipient, rowProps) => (
          <div
            key={recipient.id}
            className={`vtable-row ${gridClassName}`}
            {...rowProps}
            data-testid={`${testIdPrefix}recipient-row`}
            data-status={recipient.status}
          >
            {cells(recipient)}
          </div>
        )}
      />
      {children}
    </section>
  );
}
