import { ROUND_ROBIN } from '../../../../../shared/workflow-steps/assign.ts';
import { controlProps, Field, MemberOptions } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const assign: StepEditor<'assign'> = {
  type: 'assign',
  hint: 'Gives the conversation to a person and ends the run: the bot stops talking here.',
  idPrefix: 'assign',
  defaults: { to: ROUND_ROBIN },
  Fields: AssignFields,
  next: false,
  paths: () => [],
};

function AssignFields({ step, field, set }: StepFieldsProps) {
  const { id, error } = field('to');
  const to = step.to ?? '';
  return (
    <Field id={id} label="Hand over to" error={error}>
      <select
        className={`select${error ? ' invalid' : ''}`}
        value={to}
        onChange={(e) => set('to', { to: e.target.value })}
        {...controlProps(id, error)}
      >
        <option value="">Choose who…</option>
        <option value={ROUND_ROBIN}>The next agent in turn (round robin)</option>
        <MemberOptions value={to === ROUND_ROBIN ? undefined : to} gone="A member no longer here" />
      </select>
    </Field>
  );
}
