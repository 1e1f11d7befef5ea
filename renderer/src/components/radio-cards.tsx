import type { ReactNode } from 'react';

export interface RadioChoice<V extends string> {
  value: V;
  label: string;
  /** A line under the label: what choosing it means. */
  help: ReactNode;
}

interface RadioCardsProps<V extends string> {
  /** The radios' shared name. */
  name: string;
  /** The group's name; said to screen readers only when `legendHidden` (a dialog's title says it). */
  legend: string;
  legendHidden?: boolean;
  choices: readonly RadioChoice<V>[];
  value: V;
  onChange: (value: V) => void;
  /** A radio's test id. */
  testId: (value: V) => string;
}

/** One choice among a few, each a card with its label and what it means. */
export function RadioCards<V extends string>({
  name,
  legend,
  legendHidden = false,
  choices,
  value,
  onChange,
  testId,
}: RadioCardsProps<V>) {
  return (
    <fieldset className="radio-list">
      <legend className={legendHidden ? 'visually-hidden' : 'field-label'}>{legend}</legend>
      {choices.map((choice) => (
        <label
          key={choice.value}
          className={`radio-card${value === choice.value ? ' selected' : ''}`}
        >
          <input
            type="radio"
            name={name}
            value={choice.value}
            checked={value === choice.value}
            onChange={() => onChange(choice.value)}
            data-testid={testId(choice.value)}
          />
          <span>
            <span className="radio-title">{choice.label}</span>
            <span className="hint">{choice.help}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
