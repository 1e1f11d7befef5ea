import type { ReactNode } from 'react';

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
