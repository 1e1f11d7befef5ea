/**
 * Choosing an approved template and filling in its {{n}} variables, as the contacts drawer's
 * composer and the inbox's reply box both do.
 */
import { useState, type Dispatch, type SetStateAction } from 'react';
import type { Template } from '../../../shared/schemas/index.ts';
import { SendIcon } from './icons.tsx';

/**
 * The values typed for a template's variables, their numbers ("1", "2", …), and the error to
 * show while some are empty ("Fill in {{1}}, {{3}}.").
 */
export function useTemplateVariables(template: Template | null) {
  const [values, setValues] = useState<Record<string, string>>({});
  const numbers = Array.from({ length: template?.variableCount ?? 0 }, (_, i) => String(i + 1));
  const missing = numbers.filter((n) => !values[n]?.trim());
  const missingError =
    missing.length > 0 ? `Fill in ${missing.map((n) => `{{${n}}}`).join(', ')}.` : null;
  return { values, setValues, numbers, missingError };
}

interface TemplateSelectProps {
  templates: Template[];
  /** The chosen template's id, '' for none. */
  value: string;
  onChange: (id: string) => void;
  loading: boolean;
  id?: string;
  testId: string;
}

export function TemplateSelect({
  templates,
  value,
  onChange,
  loading,
  id,
  testId,
}: TemplateSelectProps) {
  return (
    <select
      id={id}
      className="select"
      aria-label="Template"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      data-testid={testId}
    >
      <option value="">{loading ? 'Loading templates…' : 'Choose an approved template…'}</option>
      {templates.map((t) => (
        <option key={t.id} value={t.id}>
          {t.name} · {t.language}
        </option>
      ))}
    </select>
  );
}

interface VariableInputsProps {
  numbers: string[];
  values: Record<string, string>;
  onChange: Dispatch<SetStateAction<Record<string, string>>>;
  /** Each input's test id is this prefix and its number. */
  testIdPrefix: string;
  /** Whether an empty input says what it is for. */
  placeholders?: boolean;
}

/** One labelled input per variable, {{1}} first. */
export function VariableInputs({
  numbers,
  values,
  onChange,
  testIdPrefix,
  placeholders = false,
}: VariableInputsProps) {
  return numbers.map((n) => (
    <label key={n} className="composer-var">
      <code>{`{{${n}}}`}</code>
      <input
        className="input"
        value={values[n] ?? ''}
        placeholder={placeholders ? `Value for {{${n}}}` : undefined}
        onChange={(event) => {
          const value = event.target.value;
          onChange((v) => ({ ...v, [n]: value }));
        }}
        aria-label={`Value for {{${n}}}`}
        data-testid={`${testIdPrefix}-${n}`}
      />
    </label>
  ));
}

export function SendTemplateButton({ busy, disabled }: { busy: boolean; disabled: boolean }) {
  return (
    <button
      type="submit"
      className="button button-primary"
      disabled={disabled}
      data-testid="send-template"
    >
      <SendIcon />
      {busy ? 'Sending…' : 'Send template'}
    </button>
  );
}
