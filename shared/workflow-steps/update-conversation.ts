import type { WorkflowProblem } from '../workflow-rules.ts';
import type { StepBase, StepKind } from './step-kind.ts';

export const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'] as const;

/** Changes the contact's conversation: status, assignee (null unassigns), labels. */
export interface UpdateConversationStep extends StepBase<'update_conversation'> {
  status?: string;
  assignee?: string | null;
  addLabels?: string[];
  removeLabels?: string[];
}

export const updateConversation: StepKind<UpdateConversationStep> = {
  type: 'update_conversation',
  label: 'Update the conversation',
  fields: ['status', 'assignee', 'addLabels', 'removeLabels'],
  required: [],
  missing: {},
  validate(step, { at }) {
    const out: WorkflowProblem[] = [];
    if (
      step.status !== undefined &&
      !(CONVERSATION_STATUSES as readonly string[]).includes(step.status)
    ) {
      out.push({
        param: `${at}.status`,
        message: `Choose a status: ${CONVERSATION_STATUSES.join(', ')}`,
      });
    }
    if (
      step.status === undefined &&
      step.assignee === undefined &&
      !step.addLabels?.length &&
      !step.removeLabels?.length
    ) {
      out.push({ param: at, message: 'Choose what to change in the conversation' });
    }
    return out;
  },
};
