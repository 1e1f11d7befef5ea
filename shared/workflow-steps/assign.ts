import type { StepBase, StepKind } from './step-kind.ts';

/** Who an `assign` step gives the conversation to: a member, or the next agent in turn. */
export const ROUND_ROBIN = 'round_robin';

/**
 * Hands the conversation to a person (a member, or round-robin over online agents with room)
 * and ends the run as `handed_off`: the bot stops talking here, on purpose.
 */
export interface AssignStep extends StepBase<'assign'> {
  to: string;
}

// Whether the member is an active one of this workspace is the core's check, at save (steps/assign.ts).
export const assign: StepKind<AssignStep> = {
  type: 'assign',
  label: 'Hand over to a person',
  fields: ['to'],
  required: ['to'],
  missing: { to: 'Choose who takes the conversation over' },
};
