import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Right } from '../../../shared/permissions.ts';
import { LoadMore } from './load-more.tsx';
import './table.css';
import { useRightGate } from './needs-right.tsx';

/** A column heading: its label, or the label and the cell class it shares with its column. */
export type Column = string | { label: string; className: string };

interface TableHeadProps {
  columns: Column[];
  /** Ends with an unlabelled column for each row's buttons. */
  actions?: boolean;
}

export function TableHead({ columns, actions = false }: TableHeadProps) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          typeof column === 'string' ? (
            <th key={column}>{column}</th>
          ) : (
            <th key={column.label} className={column.className}>
              {column.label}
            </th>
          ),
        )}
        {actions ? (
          <th className="col-actions">
            <span className="visually-hidden">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}

/** What a list shows instead of rows: loading, nothing yet, nothing matching. */
export function EmptyState({ testId, children }: { testId: string; children: ReactNode }) {
  return (
    <div className="empty-state" data-testid={testId}>
      {children}
    </div>
  );
}

/**
 * Whether a box's content is wider than the box (it scrolls sideways): such a box is a named,
 * focusable region, so the keyboard can scroll it too (arrow keys).
 */
function useScrollsSideways<E extends HTMLElement>() {
  const ref = useRef<E>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return { ref, scrolls };
}

interface RowsTableProps {
  /** What the table lists ("Campaigns"): names its box when it scrolls sideways. */
  label?: string;
  /** Without rows, `empty` shows instead of the table. */
  hasRows: boolean;
  empty: ReactNode;
  emptyTestId: string;
  /** A class beside `table`. */
  className?: string;
  testId: string;
  columns: Column[];
  actions?: boolean;
  /** The rows (`<tr>`s). */
  children: ReactNode;
}

/** A list's table, or what it shows while it has no rows. */
export function RowsTable({
  label = 'Table',
  hasRows,
  empty,
  emptyTestId,
  className,
  testId,
  columns,
  actions,
  children,
}: RowsTableProps) {
  if (!hasRows) return <EmptyState testId={emptyTestId}>{empty}</EmptyState>;
  return (
    <WideTableWrap label={label} testId={testId}>
      <table className={className ? `table ${className}` : 'table'} data-testid={testId}>
        <TableHead columns={columns} actions={actions} />
        <tbody>{children}</tbody>
      </table>
    </WideTableWrap>
  );
}

/**
 * A table's box: wider than the screen, the table scrolls inside it, with a shadow on the side
 * that has more (styles.css `.table-wrap`), and the box takes the focus to scroll by keyboard.
 */
function WideTableWrap({
  label,
  testId,
  children,
}: {
  label: string;
  testId: string;
  children: ReactNode;
}) {
  const { ref, scrolls } = useScrollsSideways<HTMLDivElement>();
  return (
    <div
      ref={ref}
      className={`table-wrap${scrolls ? ' table-wrap-scrolls' : ''}`}
      {...(scrolls
        ? { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` }
        : {})}
      data-testid={`${testId}-wrap`}
      data-scrolls={scrolls}
    >
      {children}
    </div>
  );
}

interface PagedTableProps extends RowsTableProps {
  nextCursor: string | null;
  loadingMore: boolean;
  loadMore: () => Promise<void>;
}

/** A paged list's table (or what it shows while it has no rows), then its "Load more" footer. */
export function PagedTable({ nextCursor, loadingMore, loadMore, ...table }: PagedTableProps) {
  return (
    <>
      <RowsTable {...table} />
      <LoadMore nextCursor={nextCursor} loadingMore={loadingMore} loadMore={loadMore} />
    </>
  );
}

interface EditDeleteCellProps {
  /** What the row is, for the buttons' accessible names ("Edit /thanks"). */
  what: string;
  /** What editing and deleting need: without it both are disabled, saying why. */
  right: Right;
  onEdit: () => void;
  /** Asks first (a confirmation dialog): deleting is not undone. */
  onDelete: () => void;
  editTestId: string;
  deleteTestId: string;
}

/** The last cell of a row of saved things (a table with `actions`): Edit, and Delete. */
export function EditDeleteCell({
  what,
  right,
  onEdit,
  onDelete,
  editTestId,
  deleteTestId,
}: EditDeleteCellProps) {
  const { gate } = useRightGate(right);
  return (
    <td className="col-actions">
      <div className="row-actions">
        <button
          type="button"
          className="button button-small"
          {...gate}
          onClick={onEdit}
          aria-label={`Edit ${what}`}
          data-testid={editTestId}
        >
          Edit
        </button>
        <button
          type="button"
          className="button button-small button-danger-ghost"
          {...gate}
          onClick={onDelete}
          aria-label={`Delete ${what}`}
          data-testid={deleteTestId}
        >
          Delete
        </button>
      </div>
    </td>
  );
}
