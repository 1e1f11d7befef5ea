import type { ReactNode } from 'react';

interface FilterToolbarProps<F extends string> {
  /** What the pills filter by, for the group's accessible name. */
  label: string;
  /** The values in order, '' (all) first. */
  options: readonly F[];
  value: F;
  onChange: (value: F) => void;
  /** Each value's pill label; '' reads "All". */
  labels: Record<Exclude<F, ''>, string>;
  /** A pill's test id. */
  testId: (value: F) => string;
  /** The count beside the pills (announced as it changes). */
  children: ReactNode;
}

/** A paged list's toolbar: status filter pills, and how many rows it shows. */
export function FilterToolbar<F extends string>({
  label,
  options,
  value,
  onChange,
  labels,
  testId,
  children,
}: FilterToolbarProps<F>) {
  return (
    <div className="toolbar">
      <div className="filter-pills" role="group" aria-label={label}>
        {options.map((option) => (
          <button
            key={option || 'all'}
            type="button"
            className={`filter-pill${value === option ? ' selected' : ''}`}
            aria-pressed={value === option}
            onClick={() => onChange(option)}
            data-testid={testId(option)}
          >
            {option ? labels[option as Exclude<F, ''>] : 'All'}
          </button>
        ))}
      </div>
      <span className="toolbar-meta" aria-live="polite">
        {children}
      </span>
    </div>
  );
}
