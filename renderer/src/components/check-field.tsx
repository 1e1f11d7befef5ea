import type { ReactNode } from 'react';
import type { RightGate } from './needs-right.tsx';

interface CheckFieldProps {
  /** The checkbox's id, also its test id; its help is `<id>-help`. */
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** What turning it on does, in a sentence or two. */
  help: ReactNode;
  disabled?: boolean;
  /** Disables it with the reason, for a member without the right to change it. */
  gate?: RightGate;
}

/** A setting that is on or off, saved as it changes: its label, then what it does. */
export function CheckField({
  id,
  label,
  checked,
  onChange,
  help,
  disabled = false,
  gate,
}: CheckFieldProps) {
  const helpId = `${id}-help`;
  const describedBy = [helpId, gate?.['aria-describedby']].filter(Boolean).join(' ');
  return (
    <div className="check-field">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        disabled={disabled || gate?.disabled}
        title={gate?.title}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.checked)}
        data-testid={id}
      />
      <div>
        <label htmlFor={id} className="radio-title">
          {label}
        </label>
        <div className="hint" id={helpId}>
          {help}
        </div>
      </div>
    </div>
  );
}
