import type { StepBase, StepKind } from './step-kind.ts';

/** Pauses the run for an ISO 8601 duration. */
export interface WaitStep extends StepBase<'wait'> {
  duration: string;
}

export const wait: StepKind<WaitStep> = {
  type: 'wait',
  label: 'Wait',
  fields: ['duration'],
  required: ['duration'],
  missing: { duration: 'Say how long to wait' },
  validate: (step, { at, duration }) => duration(`${at}.duration`, step.duration),
};
