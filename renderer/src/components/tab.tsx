import type { ReactNode } from 'react';

interface TabProps {
  selected: boolean;
  onSelect: () => void;
  /** The tab's class; `selected` is added while it is. */
  className?: string;
  title?: string | undefined;
  testId?: string;
  children: ReactNode;
}

/** One tab of a `role="tablist"`. */
export function Tab({ selected, onSelect, className = 'tab', title, testId, children }: TabProps) {
  return (
    <button
      type="button"
      role="tab"
      aria-selected={selected}
      className={`${className}${selected ? ' selected' : ''}`}
      title={title}
      onClick={onSelect}
      data-testid={testId}
    >
      {children}
    </button>
  );
}
