import type { StepBase, StepKind } from './step-kind.ts';

/** Pauses until the customer answers (`{{reply.…}}`), or until `timeout` (then `onTimeout`). */
export interface WaitForReplyStep extends StepBase<'wait_for_reply'> {
  timeout: string;
  onTimeout?: string;
}

export const waitForReply: StepKind<WaitForReplyStep> = {
  type: 'wait_for_reply',
  label: 'Wait for a reply',
  fields: ['timeout', 'onTimeout'],
  required: ['timeout'],
  missing: { timeout: 'Say how long to wait for a reply' },
  validate: (step, { at, duration, refersTo }) => [
    ...duration(`${at}.timeout`, step.timeout),
    ...refersTo(`${at}.onTimeout`, step.onTimeout),
  ],
};
