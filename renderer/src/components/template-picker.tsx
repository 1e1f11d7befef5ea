/**
 * Choosing an approved template and filling in its {{n}} variables, as the contacts drawer's
 * composer and the inbox's reply box both do.
 */
import { useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import type { Template } from '../../../shared/schemas/index.ts';
import { SendIcon } from './icons.tsx';
import { isUsable } from '../stores/approved-templates.ts';
import { sendableFrom } from './template-wait.ts';

/** The longest a timer waits before looking again (setTimeout cannot wait ~25 days or more). */
const MAX_TIMER_MS = 3_600_000;

/**
 * The current time, moved on exactly when the next of `templates` leaves its wait, so a picker
 * enables it by itself at that moment.
 */
export function useTemplatesReadyClock(templates: readonly Template[]): number {
  const [now, setNow] = useState(() => Date.now());
  const next = templates
    .map((t) => (t.usableAt === null ? NaN : Date.parse(t.usableAt)))
    .filter((at) => at > now)
    .reduce((a, b) => Math.min(a, b), Infinity);
  useEffect(() => {
    if (next === Infinity) return;
    const timer = window.setTimeout(
      () => setNow(Date.now()),
      Math.min(MAX_TIMER_MS, Math.max(0, next - Date.now()) + 50),
    );
    return () => window.clearTimeout(timer);
  }, [next]);
  return now;
}

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
  /**
   * The caller's clock (from useTemplatesReadyClock over the same templates), so what the
   * select enables and what the caller accepts as chosen change at the same instant.
   */
  now?: number;
}

/** Approved templates; one still inside its post-approval wait is shown but cannot be chosen. */
export function TemplateSelect({
  templates,
  value,
  onChange,
  loading,
  id,
  testId,
  now: callerNow,
}: TemplateSelectProps) {
  const ownNow = useTemplatesReadyClock(callerNow === undefined ? templates : []);
  const now = callerNow ?? ownNow;
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
      {templates.map((t) =>
        t.usableAt !== null && !isUsable(t, now) ? (
          <option key={t.id} value={t.id} disabled data-waiting="true">
            {t.name} · {t.language} — sendable from {sendableFrom(t.usableAt, now)}
          </option>
        ) : (
          <option key={t.id} value={t.id}>
            {t.name} · {t.language}
          </option>
        ),
      )}
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
