import { useEffect, useRef, type CSSProperties, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { notifyError } from '../stores/toasts.ts';
import { EmptyState } from './table.tsx';

const ROW_HEIGHT = 48;
/** Start fetching the next page this many rows before the end comes into view. */
const LOAD_AHEAD = 30;

/** What a row's element takes from the table: its role, position and place in the scroll. */
export interface VirtualRowProps {
  role: 'row';
  'aria-rowindex': number;
  style: CSSProperties;
}

interface VirtualTableProps<T> {
  /** The table's accessible name. */
  label: string;
  /** The class that lays out the columns, on the heading row and on every row. */
  gridClassName: string;
  /** The heading row's cells (`role="columnheader"`). */
  columns: ReactNode;
  rows: T[];
  nextCursor: string | null;
  loadingMore: boolean;
  loadMore: () => Promise<void>;
  /** A class beside `vtable-scroll`, for the screen's own sizing. */
  scrollClassName?: string;
  scrollTestId: string;
  /** What shows instead of rows while there are none (loading, nothing yet, nothing matching). */
  empty: ReactNode;
  emptyTestId: string;
  /** When this changes, the list scrolls back to the top (a new search starts there). */
  topKey?: string;
  /** A row's element (keyed), spreading `props`. */
  renderRow: (row: T, props: VirtualRowProps) => ReactNode;
}

/**
 * A paged list as an ARIA table that renders only the rows in view (a list may have 100,000),
 * reading the next page as its end comes near.
 */
export function VirtualTable<T>({
  label,
  gridClassName,
  columns,
  rows,
  nextCursor,
  loadingMore,
  loadMore,
  scrollClassName,
  scrollTestId,
  empty,
  emptyTestId,
  topKey,
  renderRow,
}: VirtualTableProps<T>) {
  const scrollRef = useRef<HTMLDivElement>(null);

  const rowCount = rows.length + (nextCursor ? 1 : 0);
  // TanStack Virtual returns fresh functions each render by design; nothing here is memoised on them.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const lastVisible = items.length > 0 ? items[items.length - 1]!.index : -1;

  useEffect(() => {
    if (nextCursor && !loadingMore && lastVisible >= rows.length - LOAD_AHEAD) {
      loadMore().catch(notifyError);
    }
  }, [lastVisible, rows.length, nextCursor, loadingMore, loadMore]);

  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [topKey]);

  return (
    <div className="vtable" role="table" aria-label={label} aria-rowcount={rowCount}>
      <div className="vtable-head" role="rowgroup">
        <div className={`vtable-row ${gridClassName}`} role="row">
          {columns}
        </div>
      </div>
      <div
        className={scrollClassName ? `vtable-scroll ${scrollClassName}` : 'vtable-scroll'}
        ref={scrollRef}
        data-testid={scrollTestId}
      >
        {rows.length === 0 ? (
          <EmptyState testId={emptyTestId}>{empty}</EmptyState>
        ) : (
          <div
            role="rowgroup"
            className="vtable-body"
            style={{ height: virtualizer.getTotalSize() }}
          >
            {items.map((item) => {
              const row = rows[item.index];
              const style = { height: item.size, transform: `translateY(${item.start}px)` };
              if (row === undefined) {
                return (
                  <div key="loader" className="vtable-row vtable-loader" role="row" style={style}>
                    <div role="cell">Loading more…</div>
                  </div>
                );
              }
              return renderRow(row, { role: 'row', 'aria-rowindex': item.index + 1, style });
            })}
          </div>
        )}
      </div>
    </div>
  );
}
