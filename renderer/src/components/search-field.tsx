import type { KeyboardEventHandler, ReactNode } from 'react';
import { SearchIcon } from './icons.tsx';

interface SearchFieldProps {
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  /** The accessible name of the box. */
  label: string;
  testId: string;
  /** The wrapper's class, which places the magnifier. */
  className?: string;
  onKeyDown?: KeyboardEventHandler<HTMLInputElement>;
  /** Shown after the box, e.g. its keyboard shortcut. */
  children?: ReactNode;
}

/** A search box with a magnifier in front. */
export function SearchField({
  value,
  onChange,
  placeholder,
  label,
  testId,
  className = 'search-input',
  onKeyDown,
  children,
}: SearchFieldProps) {
  return (
    <div className={className}>
      <SearchIcon />
      <input
        type="search"
        className="input"
        placeholder={placeholder}
        aria-label={label}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={onKeyDown}
        data-testid={testId}
      />
      {children}
    </div>
  );
}
