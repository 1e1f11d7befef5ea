import type { ReactNode } from 'react';
import { errorAria, FieldError } from './field-error.tsx';

/** How many characters a field has of the most it may have; red once over. */
export function Counter({ length, max }: { length: number; max: number }) {
  return (
    <span className={`counter${length > max ? ' over' : ''}`} aria-hidden="true">
      {length}/{max}
    </span>
  );
}

interface CountedFieldProps {
  id: string;
  label: ReactNode;
  value: string;
  /** The limit the counter shows (typing past it is allowed: the error says why it blocks). */
  max: number;
  error: string | undefined;
  onChange: (value: string) => void;
  onBlur?: () => void;
  placeholder?: string;
  /** Under the field while it has no error. */
  hint?: ReactNode;
  /** A textarea of this many rows instead of an input. */
  rows?: number;
  mono?: boolean;
  disabled?: boolean;
  testId: string;
}

/** A text field of an editor with a limit: its label and counter, the input, its error or hint. */
export function CountedField({
  id,
  label,
  value,
  max,
  error,
  onChange,
  onBlur,
  placeholder,
  hint,
  rows,
  mono = false,
  disabled,
  testId,
}: CountedFieldProps) {
  const props = {
    id,
    value,
    placeholder,
    disabled,
    spellCheck: !mono,
    ...errorAria(id, error),
    onBlur,
    'data-testid': testId,
  };
  const invalid = error ? ' invalid' : '';
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        <Counter length={value.length} max={max} />
      </label>
      {rows ? (
        <textarea
          {...props}
          className={`input textarea${invalid}`}
          rows={rows}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <input
          {...props}
          className={`input${invalid}${mono ? ' mono' : ''}`}
          autoComplete="off"
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      <FieldError fieldId={id} message={error} />
      {hint && !error ? <p className="hint">{hint}</p> : null}
    </div>
  );
}
