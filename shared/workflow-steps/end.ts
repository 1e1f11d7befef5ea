import type { StepBase, StepKind } from './step-kind.ts';

/** Ends the run here. */
export type EndStep = StepBase<'end'>;

export const end: StepKind<EndStep> = {
  type: 'end',
  label: 'End the run',
  fields: [],
  required: [],
  missing: {},
};
