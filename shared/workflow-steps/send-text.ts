import type { StepBase, StepKind } from './step-kind.ts';

/** Free text (only inside the customer's 24-hour window). */
export interface SendTextStep extends StepBase<'send_text'> {
  text: string;
}

export const MAX_TEXT_LENGTH = 4096;

export const sendText: StepKind<SendTextStep> = {
  type: 'send_text',
  label: 'Send a text',
  fields: ['text'],
  required: ['text'],
  missing: { text: 'Write the message to send' },
  validate: (step, { at, strings }) => [
    ...strings(`${at}.text`, step.text),
    ...(typeof step.text === 'string' && step.text.length > MAX_TEXT_LENGTH
      ? [
          {
            param: `${at}.text`,
            message: `Keep the message to ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters or fewer`,
          },
        ]
      : []),
  ],
};
