import type { StepBase, StepKind } from './step-kind.ts';

/** A saved interactive list (only inside the customer's 24-hour window). */
export interface SendListStep extends StepBase<'send_list'> {
  listId: string;
}

// Whether the list exists in the saving scope is the core's check, at save (steps/send-list.ts).
export const sendList: StepKind<SendListStep> = {
  type: 'send_list',
  label: 'Send an interactive list',
  fields: ['listId'],
  required: ['listId'],
  missing: { listId: 'Choose a list to send' },
};
