import {
  useEffect,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { notifyError } from '../stores/toasts.ts';
import { EmptyState } from './table.tsx';

const ROW_HEIGHT = 48;
/** Start fetching the next page this many rows before the end comes into view. */
const LOAD_AHEAD = 30;
/** How far Page Up and Page Down move the focus between rows (`focusRows`). */
const PAGE_ROWS = 8;

/** Where a key moves the focus from a row (the index is clamped to the rows there are). */
const ROW_KEYS: Record<string, (index: number, last: number) => number> = {
  ArrowDown: (i) => i + 1,
  ArrowUp: (i) => i - 1,
  PageDown: (i) => i + PAGE_ROWS,
  PageUp: (i) => i - PAGE_ROWS,
  Home: () => 0,
  End: (_, last) => last,
};

/**
 * What a row's element takes from the table: its role, position and place in the scroll, and
 * (with `focusRows`) what makes it reachable by keyboard.
 */
export interface VirtualRowProps {
  role: 'row';
  'aria-rowindex': number;
  style: CSSProperties;
  tabIndex?: number;
  onFocus?: () => void;
  onKeyDown?: (event: KeyboardEvent<HTMLElement>) => void;
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
  /**
   * The rows are the tab stop (for rows with nothing of their own to tab to, whose table could
   * not be reached by keyboard otherwise): the row last focused is one tab stop, and the arrow,
   * page, Home and End keys move between rows, scrolling them into view.
   */
  focusRows?: boolean;
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
  focusRows = false,
  renderRow,
}: VirtualTableProps<T>) {
  const tableRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const [focusIndex, setFocusIndex] = useState(0);

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

  const tabStop = Math.min(focusIndex, Math.max(0, rows.length - 1));
  const rowElement = (index: number) =>
    tableRef.current?.querySelector<HTMLElement>(`[aria-rowindex="${index + 1}"]`) ?? null;
  const moveFocus = (event: KeyboardEvent<HTMLElement>, index: number) => {
    const last = rows.length - 1;
    const to = ROW_KEYS[event.key]?.(index, last);
    if (to === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    const target = Math.max(0, Math.min(last, to));
    setFocusIndex(target);
    const shown = rowElement(target);
    if (shown) {
      shown.focus();
      return;
    }
    // Not rendered yet (virtualised): scroll it near, then focus it once drawn.
    if (scrollRef.current) scrollRef.current.scrollTop = target * ROW_HEIGHT;
    window.requestAnimationFrame(() =>
      window.requestAnimationFrame(() => rowElement(target)?.focus()),
    );
  };
  const rowProps = (index: number, style: CSSProperties): VirtualRowProps => ({
    role: 'row',
    'aria-rowindex': index + 1,
    style,
    ...(focusRows
      ? {
          tabIndex: index === tabStop ? 0 : -1,
          onFocus: () => setFocusIndex(index),
          onKeyDown: (event) => moveFocus(event, index),
        }
      : {}),
  });

  return (
    <div
      className={focusRows ? 'vtable vtable-focus-rows' : 'vtable'}
      role="table"
      aria-label={label}
      aria-rowcount={rowCount}
      ref={tableRef}
    >
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
              return renderRow(row, rowProps(item.index, style));
            })}
          </div>
        )}
      </div>
    </div>
  );
}
