import { DurationInput, Field, StepTargetSelect } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

function WaitForReplyFields({ steps, index, step, at, id, err, set }: StepFieldsProps) {
  return (
    <div className="wf-field-row">
      <Field
        id={id('timeout')}
        label="Give up after"
        error={err(`${at}.timeout`)}
        hint="The reply is then {{reply.text}}."
      >
        <DurationInput
          id={id('timeout')}
          label="Give up after"
          value={step.timeout}
          error={err(`${at}.timeout`)}
          onChange={(timeout) => set('timeout', { timeout })}
        />
      </Field>
      <Field id={id('onTimeout')} label="On timeout, go to" error={err(`${at}.onTimeout`)}>
        <StepTargetSelect
          steps={steps}
          self={index}
          value={step.onTimeout}
          onChange={(onTimeout) => set('onTimeout', { onTimeout })}
          emptyLabel="End the run"
          id={id('onTimeout')}
          error={err(`${at}.onTimeout`)}
        />
      </Field>
    </div>
  );
}

export const waitForReply: StepEditor<'wait_for_reply'> = {
  type: 'wait_for_reply',
  hint: 'Pauses until the customer answers, or until a timeout.',
  idPrefix: 'reply',
  defaults: { timeout: 'P1D' },
  Fields: WaitForReplyFields,
  paths: (step, then, path) => [
    path('On a reply', then.target),
    path('On timeout', step.onTimeout),
  ],
};
