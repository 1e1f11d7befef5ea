import type { ReactNode } from 'react';

interface PillChoiceProps<T extends string> {
  legend: string;
  /** The radio group's name. */
  name: string;
  options: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
  testId: string;
  /** Each option's test id: `<testIdPrefix>-<value>`. */
  testIdPrefix?: string;
  /** After the options (a note on the choice). */
  children?: ReactNode;
}

/** One of a few choices as pills in a row: a radio group, so arrows move between them. */
export function PillChoice<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  testId,
  testIdPrefix,
  children,
}: PillChoiceProps<T>) {
  return (
    <fieldset className="email-format" data-testid={testId}>
      <legend className="email-format-legend">{legend}</legend>
      {options.map((o) => (
        <label key={o.value} className={value === o.value ? 'is-selected' : undefined}>
          <input
            type="radio"
            name={name}
            value={o.value}
            checked={value === o.value}
            onChange={() => onChange(o.value)}
            data-testid={testIdPrefix ? `${testIdPrefix}-${o.value}` : undefined}
          />
          {o.label}
        </label>
      ))}
      {children}
    </fieldset>
  );
}
