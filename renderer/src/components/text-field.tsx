import type { ReactNode } from 'react';
import { errorAria, FieldError } from './field-error.tsx';

interface TextFieldProps {
  /** The input's id, also its test id (its error's and hint's ids follow from it). */
  id: string;
  label: ReactNode;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  /** Under the field while it has no error. */
  hint?: ReactNode;
  placeholder?: string;
  type?: 'text' | 'email' | 'url' | 'password';
  inputMode?: 'numeric';
  /** A textarea of this many rows instead of an input. */
  rows?: number;
  mono?: boolean;
  autoComplete?: string;
  /** More classes for the field around the input. */
  className?: string;
  /** Under the error or hint, inside the field (a way out, like "Keep the saved one"). */
  children?: ReactNode;
}

/** A settings text field: its label, the input, then its error or else its hint. */
export function TextField({
  id,
  label,
  value,
  error,
  onChange,
  hint,
  placeholder,
  type = 'text',
  inputMode,
  rows,
  mono = false,
  autoComplete = 'off',
  className,
  children,
}: TextFieldProps) {
  const hintId = hint && !error ? `${id}-hint` : undefined;
  const props = {
    id,
    value,
    placeholder,
    className: `input${rows ? ' textarea' : ''}${mono ? ' mono' : ''}${error ? ' invalid' : ''}`,
    autoComplete,
    spellCheck: false,
    ...errorAria(id, error, hintId),
    'data-testid': id,
  };
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {rows ? (
        <textarea {...props} rows={rows} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input
          {...props}
          type={type}
          inputMode={inputMode}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      <FieldError fieldId={id} message={error} />
      {hintId ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {children}
    </div>
  );
}
