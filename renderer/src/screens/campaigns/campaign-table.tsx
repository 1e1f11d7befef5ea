import type { ReactNode } from 'react';
import type { StoreApi, UseBoundStore } from 'zustand';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FilterToolbar } from '../../components/filter-toolbar.tsx';
import { PagedTable, type Column } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import type { CampaignListState, CampaignRecord } from '../../stores/campaign-stores.ts';

interface CampaignTableProps<C extends CampaignRecord, P, F extends string> {
  store: UseBoundStore<StoreApi<CampaignListState<C, P, F>>>;
  /** The card's accessible name: "Campaigns". */
  label: string;
  /** What the list holds, in the singular: "campaign", "email campaign". */
  noun: string;
  filters: readonly F[];
  labels: Record<Exclude<F, ''>, string>;
  /** What shows instead of the table before there is any campaign at all. */
  intro: ReactNode;
  testIds: { filter: string; table: string; empty: string };
  /** A class beside `table`. */
  className: string;
  columns: Column[];
  /** A campaign's row (`<tr>`, keyed). */
  row: (campaign: C) => ReactNode;
}

/**
 * A kind's campaigns, read when shown, filtered by status and paged: the table, or an
 * introduction while there are none yet.
 */
export function CampaignTable<C extends CampaignRecord, P, F extends string>({
  store,
  label,
  noun,
  filters,
  labels,
  intro,
  testIds,
  className,
  columns,
  row,
}: CampaignTableProps<C, P, F>) {
  const campaigns = store((s) => s.campaigns);
  const status = store((s) => s.status);
  const error = store((s) => s.error);
  const filter = store((s) => s.statusFilter);
  const setFilter = store((s) => s.setStatusFilter);
  const load = store((s) => s.load);
  const nextCursor = store((s) => s.nextCursor);
  const loadingMore = store((s) => s.loadingMore);
  const loadMore = store((s) => s.loadMore);

  useLoadWhenIdle(status, load);

  const loading = status === 'idle' || status === 'loading';
  const nothingYet = !loading && status !== 'error' && campaigns.length === 0 && !filter;

  return (
    <>
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}

      <section className="card card-flush" aria-label={label}>
        {nothingYet ? (
          intro
        ) : (
          <>
            <FilterToolbar
              label="Filter by status"
              options={filters}
              value={filter}
              onChange={setFilter}
              labels={labels}
              testId={(value) => `${testIds.filter}-${value || 'all'}`}
            >
              {loading
                ? 'Loading…'
                : `${campaigns.length}${nextCursor ? '+' : ''} campaign${campaigns.length === 1 ? '' : 's'}`}
            </FilterToolbar>
            <PagedTable
              label={label}
              hasRows={campaigns.length > 0}
              emptyTestId={testIds.empty}
              empty={
                loading
                  ? `Loading ${noun}s…`
                  : filter
                    ? `No ${labels[filter as Exclude<F, ''>].toLowerCase()} ${noun}s.`
                    : `No ${noun}s.`
              }
              className={className}
              testId={testIds.table}
              columns={columns}
              nextCursor={nextCursor}
              loadingMore={loadingMore}
              loadMore={loadMore}
            >
              {campaigns.map((campaign) => row(campaign))}
            </PagedTable>
          </>
        )}
      </section>
    </>
  );
}
