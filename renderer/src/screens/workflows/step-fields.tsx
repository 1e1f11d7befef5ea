/** The inputs a workflow step's form is made of: labelled fields, step pickers, durations, labels. */
import { useEffect, useState, type ReactNode } from 'react';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { CloseIcon } from '../../components/icons.tsx';
import { normalizeLabels, splitLabels } from '../../../../shared/labels.ts';
import { isAssignable, useAgents } from '../../stores/agents.ts';
import {
  DURATION_UNITS,
  fromIsoDuration,
  stepName,
  toIsoDuration,
  type DurationUnit,
  type StepDraft,
} from './workflow-draft.ts';

export const TEMPLATE_STRING_HINT = (
  <>
    Insert values with <code>{'{{payload.X}}'}</code> (the event’s data),{' '}
    <code>{'{{contact.name}}'}</code>, <code>{'{{reply.text}}'}</code> (the customer’s last reply)
    or <code>{'{{steps.ID.FIELD}}'}</code> (a webhook step’s answer).
  </>
);

/** A labelled field with its error (or hint) under it; `children` is the control, given `id`. */
export function Field({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: ReactNode;
  error: string | undefined;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      <FieldError fieldId={id} message={error} />
      {hint && !error ? <p className="hint">{hint}</p> : null}
    </div>
  );
}

/** The props that tie a control to its field: id, test id, and its error for assistive tech. */
export const controlProps = (id: string, error: string | undefined) => ({
  id,
  'data-testid': id,
  ...errorAria(id, error),
});

/** Another step of the workflow, or `emptyLabel` (the default: the next step, the end…). */
export function StepTargetSelect({
  steps,
  self,
  value,
  onChange,
  emptyLabel,
  id,
  error,
}: {
  steps: readonly StepDraft[];
  self: number;
  value: string | undefined;
  onChange: (id: string) => void;
  emptyLabel: string;
  id: string;
  error: string | undefined;
}) {
  const known = !value || steps.some((s) => s.id === value);
  return (
    <select
      className={`select${error ? ' invalid' : ''}`}
      value={value ?? ''}
      onChange={(event) => onChange(event.target.value)}
      {...controlProps(id, error)}
    >
      <option value="">{emptyLabel}</option>
      {steps.map((step, i) =>
        i === self ? null : (
          <option key={step.key} value={step.id}>
            {stepName(steps, step.id)} ({step.id})
          </option>
        ),
      )}
      {known ? null : <option value={value}>“{value}” (no such step)</option>}
    </select>
  );
}

/** What a step's `next`-like field is wired to: its id and problem, the steps, its value. */
export interface StepTargetProps {
  steps: readonly StepDraft[];
  self: number;
  value: string | undefined;
  onChange: (id: string) => void;
  id: string;
  error: string | undefined;
}

/** A labelled choice of where the step goes (`next`, `onTimeout`, `onError`, `else`). */
export function StepTargetField({
  label,
  hint,
  emptyLabel,
  ...target
}: StepTargetProps & { label: ReactNode; hint?: ReactNode; emptyLabel: string }) {
  return (
    <Field id={target.id} label={label} error={target.error} hint={hint}>
      <StepTargetSelect {...target} emptyLabel={emptyLabel} />
    </Field>
  );
}

/** A number and a unit, kept as an ISO 8601 duration (`PT15M`, `P1D`). */
export function DurationInput({
  value,
  onChange,
  id,
  error,
  label,
}: {
  value: string | undefined;
  onChange: (iso: string) => void;
  id: string;
  error: string | undefined;
  label: string;
}) {
  const parsed = fromIsoDuration(value);
  // The unit stays as chosen while the number is blank (a blank duration has none).
  const [unit, setUnit] = useState<DurationUnit>(parsed?.unit ?? 'M');
  const shownUnit = parsed?.unit ?? unit;
  return (
    <div className="wf-duration">
      <input
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        className={`input${error ? ' invalid' : ''}`}
        value={parsed?.amount ?? ''}
        onChange={(event) => onChange(toIsoDuration(event.target.value, shownUnit))}
        {...controlProps(id, error)}
      />
      <select
        className="select"
        aria-label={`${label}: unit`}
        value={shownUnit}
        onChange={(event) => {
          const next = event.target.value as DurationUnit;
          setUnit(next);
          if (parsed) onChange(toIsoDuration(parsed.amount, next));
        }}
        data-testid={`${id}-unit`}
      >
        {DURATION_UNITS.map((u) => (
          <option key={u.unit} value={u.unit}>
            {u.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * Chips (labels, keywords), with a box to add one (Enter or the Add button). What is typed but
 * not added is the draft's (`text`), so saving adds it rather than losing it.
 */
export function LabelsInput({
  labels,
  onChange,
  text,
  onText,
  id,
  error,
  what = 'label',
  placeholder = 'e.g. interested',
}: {
  labels: readonly string[];
  onChange: (labels: string[]) => void;
  text: string;
  onText: (text: string) => void;
  id: string;
  error: string | undefined;
  /** What a chip is, for the remove buttons' names: "Remove label vip". */
  what?: string;
  placeholder?: string;
}) {
  const add = () => {
    // The one label rule (shared/labels.ts): "vip, urgent" adds two.
    const next = normalizeLabels([...labels, ...splitLabels(text)]);
    if (next.length > labels.length) onChange(next);
    onText('');
  };
  return (
    <div className="wf-labels">
      {labels.length > 0 ? (
        <div className="wf-label-chips" data-testid={`${id}-chips`}>
          {labels.map((label) => (
            <span key={label} className="chip chip-removable">
              {label}
              <button
                type="button"
                aria-label={`Remove ${what} ${label}`}
                onClick={() => onChange(labels.filter((l) => l !== label))}
              >
                <CloseIcon />
              </button>
            </span>
          ))}
        </div>
      ) : null}
      <div className="wf-inline">
        <input
          className="input"
          value={text}
          placeholder={placeholder}
          onChange={(event) => onText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              add();
            }
          }}
          {...controlProps(id, error)}
        />
        <button
          type="button"
          className="button button-small"
          onClick={add}
          disabled={!text.trim()}
          data-testid={`${id}-add`}
        >
          Add
        </button>
      </div>
      {text.trim() ? (
        <p className="hint" data-testid={`${id}-typed`}>
          “{text.trim()}” is added when you save (or press Enter now).
        </p>
      ) : null}
    </div>
  );
}

/**
 * The workspace's members as options (the active ones, and the one chosen even if deactivated
 * or gone, so a saved step still reads right), after the caller's own options.
 */
export function MemberOptions({ value, gone }: { value: string | undefined; gone: string }) {
  const agents = useAgents((s) => s.agents);
  const ensureAgents = useAgents((s) => s.ensureLoaded);
  useEffect(() => ensureAgents(), [ensureAgents]);
  return (
    <>
      {agents
        .filter((a) => isAssignable(a) || a.id === value)
        .map((a) => (
          <option key={a.id} value={a.id}>
            {isAssignable(a) ? a.name : `${a.name} (deactivated)`}
          </option>
        ))}
      {value && !agents.some((a) => a.id === value) ? <option value={value}>{gone}</option> : null}
    </>
  );
}
