import type { ReactNode } from 'react';
import { TextField } from './text-field.tsx';
import './secret-field.css';

/** What happens to a saved secret: kept (not sent), replaced by the one typed, or removed. */
export type SecretMode = 'keep' | 'replace' | 'remove';

interface SecretFieldProps {
  /** The input's id, also its test id (`-state`, `-replace`, `-keep`, `-remove` follow from it). */
  id: string;
  label: string;
  /** One is saved (the core never sends it back). */
  isSet: boolean;
  mode: SecretMode;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  onMode: (mode: 'keep' | 'replace') => void;
  /** Offers "Remove" beside "Replace" (a password may be dropped; an API token may not). */
  onRemove?: () => void;
  /** A textarea (a PEM key) instead of a password input. */
  multiline?: boolean;
  placeholder?: string;
  hint?: ReactNode;
}

/** The badge a secret (or a setting that is on or off) shows: green when set, grey when not. */
export const stateBadgeClass = (isSet: boolean): string =>
  `badge ${isSet ? 'secret-set' : 'secret-unset'}`;

/** A write-only secret: "set" or "not set", kept unless the user replaces (or removes) it. */
export function SecretField({
  id,
  label,
  isSet,
  mode,
  value,
  error,
  onChange,
  onMode,
  onRemove,
  multiline = false,
  placeholder,
  hint,
}: SecretFieldProps) {
  const state = (
    <span className={stateBadgeClass(isSet)} data-testid={`${id}-state`}>
      {isSet ? 'Set' : 'Not set'}
    </span>
  );
  if (isSet && mode !== 'replace') {
    const removed = mode === 'remove';
    return (
      <div className="field">
        <span className="field-label" id={`${id}-label`}>
          {label}
        </span>
        <div className="secret-row" role="group" aria-labelledby={`${id}-label`}>
          {removed ? <span className={stateBadgeClass(false)}>Removed on save</span> : state}
          <span className="hint">
            {removed ? 'It is deleted when you save.' : 'Saved, and never shown again.'}
          </span>
          <button
            type="button"
            className="button button-small"
            onClick={() => onMode('replace')}
            data-testid={`${id}-replace`}
          >
            Replace
          </button>
          {onRemove ? (
            <button
              type="button"
              className="button button-small"
              onClick={() => (removed ? onMode('keep') : onRemove())}
              data-testid={`${id}-remove`}
            >
              {removed ? 'Keep it' : 'Remove'}
            </button>
          ) : null}
        </div>
        {hint ? <p className="hint">{hint}</p> : null}
      </div>
    );
  }
  return (
    <TextField
      id={id}
      label={
        <>
          {label} {state}
        </>
      }
      value={value}
      error={error}
      onChange={onChange}
      hint={hint}
      placeholder={placeholder}
      type="password"
      rows={multiline ? 6 : undefined}
      mono={multiline}
      autoComplete="new-password"
    >
      {isSet ? (
        <p>
          <button
            type="button"
            className="link-button"
            onClick={() => onMode('keep')}
            data-testid={`${id}-keep`}
          >
            Keep the saved one
          </button>
        </p>
      ) : null}
    </TextField>
  );
}
