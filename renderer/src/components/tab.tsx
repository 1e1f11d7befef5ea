import type { KeyboardEvent, ReactNode } from 'react';

interface TabProps {
  selected: boolean;
  onSelect: () => void;
  /** The tab's class; `selected` is added while it is. */
  className?: string;
  title?: string | undefined;
  testId?: string;
  children: ReactNode;
}

const MOVES: Record<string, (index: number, count: number) => number> = {
  ArrowRight: (i, n) => (i + 1) % n,
  ArrowDown: (i, n) => (i + 1) % n,
  ArrowLeft: (i, n) => (i - 1 + n) % n,
  ArrowUp: (i, n) => (i - 1 + n) % n,
  Home: () => 0,
  End: (_, n) => n - 1,
};

/**
 * Arrow keys, Home and End move between the tabs of one tablist; selection follows focus (the
 * tabs here only filter or switch a view, so selecting on arrival costs nothing).
 */
function moveFocus(event: KeyboardEvent<HTMLButtonElement>) {
  const move = MOVES[event.key];
  const list = event.currentTarget.closest('[role="tablist"]');
  if (!move || !list || event.altKey || event.ctrlKey || event.metaKey) return;
  const tabs = [...list.querySelectorAll<HTMLButtonElement>('[role="tab"]:not(:disabled)')];
  const at = tabs.indexOf(event.currentTarget);
  const next = tabs[move(at, tabs.length)];
  if (at < 0 || !next) return;
  event.preventDefault();
  // Keys must not also reach page-wide shortcuts (j / k, arrows in the inbox).
  event.stopPropagation();
  next.focus();
  next.click();
}

/**
 * One tab of a `role="tablist"`. The list is one tab stop (roving tabindex): only the selected
 * tab is in the tab order; the arrow keys reach the others.
 */
export function Tab({ selected, onSelect, className = 'tab', title, testId, children }: TabProps) {
  return (
    <button
      type="button"
      role="tab"
      aria-selected={selected}
      tabIndex={selected ? 0 : -1}
      className={`${className}${selected ? ' selected' : ''}`}
      title={title}
      onClick={onSelect}
      onKeyDown={moveFocus}
      data-testid={testId}
    >
      {children}
    </button>
  );
}
