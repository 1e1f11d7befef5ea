/**
 * A step's form in the builder's panel, the frame every type shares: its title and hint, its
 * type's fields (the step registry's editor, steps/), where it goes next, its paths with a way
 * to add a step on each (the keyboard's way, besides the canvas's "+"), its id, the problems no
 * field shows, and Remove.
 */
import { STEP_FIELDS } from '../../../../../shared/workflow-rules.ts';
import { stepLabel } from '../../../../../shared/workflow-steps/index.ts';
import { TrashIcon } from '../../../components/icons.tsx';
import { controlProps, Field, StepTargetField, type StepTargetProps } from '../step-fields.tsx';
import { STEP_EDITORS, type StepFieldsProps, type TargetField } from '../steps/index.ts';
import { pathsOf } from '../workflow-definition.ts';
import { fieldId, stepName, type StepDraft, type WorkflowProblem } from '../workflow-draft.ts';
import type { PathRef } from './flow-edits.ts';

interface StepFormProps {
  steps: readonly StepDraft[];
  index: number;
  /** The problems to show on this step (the rules' and the core's), by param. */
  problems: readonly WorkflowProblem[];
  /** A field changed: `param` names it (for its problem and for undo). */
  onChange: (patch: Partial<StepDraft>, param: string) => void;
  /** The step's id changed: the paths naming it follow. */
  onRename: (id: string) => void;
  onRemove: () => void;
  onAdd: (at: PathRef, where: string) => void;
}

export function StepForm({
  steps,
  index,
  problems,
  onChange,
  onRename,
  onRemove,
  onAdd,
}: StepFormProps) {
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

  const editor = STEP_EDITORS[step.type];
  const Fields = editor?.Fields;
  const props: StepFieldsProps = { steps, index, step, at, field, err, set, target };
  const following = steps[index + 1];
  const name = stepName(steps, step.id);
  const paths = pathsOf(steps, index);
  // Each field shows its own problem; what no field shows is listed at the foot.
  const shown = new Set(['id', 'next', ...(STEP_FIELDS[step.type] ?? [])]);
  const others = problems.filter((p) => !shown.has(p.param.slice(at.length + 1).split('.')[0]!));

  return (
    <div className="wf-step-form" data-testid="wf-step-form" data-step-type={step.type}>
      <header className="wf-panel-head">
        <h2 id={id('title')} tabIndex={-1}>
          <span className="wf-node-number" aria-hidden="true">
            {index + 1}
          </span>
          <span className="visually-hidden">Step {index + 1}: </span>
          {stepLabel(step.type)}
        </h2>
        <p className="hint">{editor?.hint}</p>
      </header>
      {Fields ? <Fields {...props} /> : null}
      {editor?.next !== false ? (
        <StepTargetField
          {...target('next')}
          label="Then go to"
          emptyLabel={
            following ? `The following step (${stepName(steps, following.id)})` : 'End the run'
          }
        />
      ) : null}

      <section className="wf-form-paths" aria-labelledby={id('paths')}>
        <h3 id={id('paths')}>Where it goes</h3>
        {paths.length === 0 ? (
          <p className="hint">The run ends here.</p>
        ) : (
          <ul>
            {paths.map((path) => {
              const to = path.target
                ? stepName(steps, path.target)
                : path.target === ''
                  ? 'not chosen yet'
                  : 'the end of the run';
              const words = `after ${name}${path.label ? ` (${path.label})` : ''}`;
              return (
                <li key={path.field}>
                  <span>
                    {path.label ? <strong>{path.label}: </strong> : null}
                    {to}
                  </span>
                  <button
                    type="button"
                    className="button button-small"
                    onClick={() => onAdd({ step: step.key, field: path.field }, words)}
                    data-testid={`${id(path.field)}-add-step`}
                  >
                    Add a step here<span className="visually-hidden"> ({words})</span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </section>

      <Field
        id={id('id')}
        label="Step ID"
        error={err(`${at}.id`)}
        hint={
          <>
            Other steps use its output as <code>{`{{steps.${step.id || 'ID'}.FIELD}}`}</code>.
          </>
        }
      >
        <input
          className={`input mono${err(`${at}.id`) ? ' invalid' : ''}`}
          value={step.id}
          spellCheck={false}
          onChange={(e) => onRename(e.target.value)}
          {...controlProps(id('id'), err(`${at}.id`))}
        />
      </Field>
      {others.length > 0 ? (
        <ul className="wf-step-problems" data-testid={id('problems')}>
          {others.map((p) => (
            <li key={`${p.param}:${p.message}`} className="field-error">
              {p.message}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="wf-panel-foot">
        <button
          type="button"
          className="button button-small button-danger-ghost"
          onClick={onRemove}
          data-testid="wf-step-remove"
        >
          <TrashIcon />
          Remove this step
        </button>
      </div>
    </div>
  );
}
