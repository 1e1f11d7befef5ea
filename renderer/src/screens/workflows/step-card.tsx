import { ItemTools } from '../../components/item-tools.tsx';
import { STEP_FIELDS } from '../../../../shared/workflow-rules.ts';
import { stepLabel } from '../../../../shared/workflow-steps/index.ts';
import { controlProps, Field, StepTargetField, type StepTargetProps } from './step-fields.tsx';
import {
  STEP_EDITORS,
  type AnyStepEditor,
  type StepFieldsProps,
  type TargetField,
} from './steps/index.ts';
import { fieldId, type StepDraft, type WorkflowProblem } from './workflow-draft.ts';

interface StepCardProps {
  steps: readonly StepDraft[];
  index: number;
  /** The problems to show on this step (the rules' and the core's), by param. */
  problems: readonly WorkflowProblem[];
  /** A field changed: `param` names it (its error from the core is dropped). */
  onChange: (patch: Partial<StepDraft>, param: string) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  /** The user has been in this step: blank fields may now say so. */
  onTouch: () => void;
}

/**
 * One step of the flow, the frame every type shares: its title, its id, where it goes next and
 * its problems; the form of its type (and the hint under the title) is its editor's (steps/).
 */
export function StepCard({
  steps,
  index,
  problems,
  onChange,
  onMove,
  onRemove,
  onTouch,
}: StepCardProps) {
  const step = steps[index]!;
  const at = `steps.${index}`;
  const err = (param: string): string | undefined =>
    problems.find((p) => p.param === param)?.message;
  const id = (field: string) => fieldId(`${at}.${field}`);
  const set = (field: string, patch: Partial<StepDraft>) => onChange(patch, `${at}.${field}`);
  const field = (name: string) => ({ id: id(name), error: err(`${at}.${name}`) });
  const target = (name: TargetField): StepTargetProps => ({
    ...field(name),
    steps,
    self: index,
    value: step[name],
    onChange: (value) => set(name, { [name]: value }),
  });

  const editor: AnyStepEditor | undefined = STEP_EDITORS[step.type];
  const Fields = editor?.Fields;
  const props: StepFieldsProps = { steps, index, step, at, field, err, set, target };
  const form = Fields ? <Fields {...props} /> : null;

  const hasNext = editor?.next !== false;
  const nextField = hasNext ? (
    <StepTargetField
      {...target('next')}
      label="Then go to"
      emptyLabel={index < steps.length - 1 ? 'The next step' : 'End the run'}
    />
  ) : null;
  const idError = err(`${at}.id`);
  // Each field shows its own problem; what no field shows is listed at the card's foot.
  const shown = new Set(['id', 'next', ...(STEP_FIELDS[step.type] ?? [])]);
  const others = problems.filter((p) => !shown.has(p.param.slice(at.length + 1).split('.')[0]!));

  return (
    <article
      className={`wf-step card${problems.length > 0 ? ' has-problems' : ''}`}
      aria-labelledby={`${id('title')}`}
      data-testid="wf-step"
      data-step-type={step.type}
      onBlur={onTouch}
    >
      <header className="wf-step-head">
        <span className="wf-step-number" aria-hidden="true">
          {index + 1}
        </span>
        <div className="wf-step-title">
          <h3 id={id('title')}>
            <span className="visually-hidden">Step {index + 1}: </span>
            {stepLabel(step.type)}
          </h3>
          <p className="hint">{editor?.hint}</p>
        </div>
        <ItemTools
          what={`step ${index + 1}`}
          index={index}
          count={steps.length}
          onMove={onMove}
          onRemove={onRemove}
          testId={`wf-step-${index}`}
        />
      </header>
      <div className="wf-step-body">
        {form}
        <div className="wf-field-row">
          {nextField}
          <Field
            id={id('id')}
            label="Step ID"
            error={idError}
            hint={
              <>
                Other steps use its output as <code>{`{{steps.${step.id || 'ID'}.FIELD}}`}</code>.
              </>
            }
          >
            <input
              className={`input mono${idError ? ' invalid' : ''}`}
              value={step.id}
              spellCheck={false}
              onChange={(e) => set('id', { id: e.target.value })}
              {...controlProps(id('id'), idError)}
            />
          </Field>
        </div>
        {others.length > 0 ? (
          <ul className="wf-step-problems" data-testid={`${id('problems')}`}>
            {others.map((p) => (
              <li key={`${p.param}:${p.message}`} className="field-error">
                {p.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </article>
  );
}
