import { DurationInput, Field } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

function WaitFields({ step, at, id, err, set }: StepFieldsProps) {
  return (
    <Field id={id('duration')} label="Wait for" error={err(`${at}.duration`)}>
      <DurationInput
        id={id('duration')}
        label="Wait for"
        value={step.duration}
        error={err(`${at}.duration`)}
        onChange={(duration) => set('duration', { duration })}
      />
    </Field>
  );
}

export const wait: StepEditor<'wait'> = {
  type: 'wait',
  hint: 'Pauses the run for a while.',
  idPrefix: 'wait',
  defaults: { duration: 'PT15M' },
  Fields: WaitFields,
};
