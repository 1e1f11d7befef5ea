import { DurationInput, Field, StepTargetField } from '../step-fields.tsx';
import { durationText } from '../workflow-draft.ts';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const waitForReply: StepEditor<'wait_for_reply'> = {
  type: 'wait_for_reply',
  hint: 'Pauses until the customer answers, or until a timeout.',
  idPrefix: 'reply',
  defaults: { timeout: 'P1D' },
  Fields: WaitForReplyFields,
  paths: (step, then, path) => [
    path('Replied', then.target, 'next'),
    path(`No reply after ${durationText(step.timeout)}`, step.onTimeout, 'onTimeout'),
  ],
};

function WaitForReplyFields({ step, field, set, target }: StepFieldsProps) {
  const timeout = field('timeout');
  return (
    <div className="wf-field-row">
      <Field {...timeout} label="Give up after" hint="The reply is then {{reply.text}}.">
        <DurationInput
          {...timeout}
          label="Give up after"
          value={step.timeout}
          onChange={(iso) => set('timeout', { timeout: iso })}
        />
      </Field>
      <StepTargetField
        {...target('onTimeout')}
        label="On timeout, go to"
        emptyLabel="End the run"
      />
    </div>
  );
}
