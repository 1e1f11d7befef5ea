import { DurationInput, Field } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const wait: StepEditor<'wait'> = {
  type: 'wait',
  hint: 'Pauses the run for a while.',
  idPrefix: 'wait',
  defaults: { duration: 'PT15M' },
  Fields: WaitFields,
};

function WaitFields({ step, field, set }: StepFieldsProps) {
  const duration = field('duration');
  return (
    <Field {...duration} label="Wait for">
      <DurationInput
        {...duration}
        label="Wait for"
        value={step.duration}
        onChange={(iso) => set('duration', { duration: iso })}
      />
    </Field>
  );
}
