import type { StepExecutor } from './step-executor.ts';
import { failureOf } from './step-executor.ts';

export const updateConversation: StepExecutor<'update_conversation'> = {
  type: 'update_conversation',
  execute(s, { scope, contact, conversations, members }) {
    try {
      const conversationId = conversations.applyForRunner(scope, contact, {
        ...(s.status !== undefined ? { status: s.status as 'open' } : {}),
        ...(s.assignee !== undefined ? { assignee: s.assignee } : {}),
        ...(s.addLabels ? { addLabels: s.addLabels } : {}),
        ...(s.removeLabels ? { removeLabels: s.removeLabels } : {}),
      });
      // What changed, in readable fields for the run history.
      const assignee = s.assignee ?? null;
      return {
        kind: 'next',
        next: null,
        output: {
          conversationId,
          ...(s.status !== undefined ? { status: s.status } : {}),
          ...(s.assignee !== undefined
            ? {
                assignee,
                assigneeName:
                  assignee === null
                    ? null
                    : (members.findActive(scope.workspaceId, assignee)?.name ?? null),
              }
            : {}),
          ...(s.addLabels?.length ? { addedLabels: s.addLabels } : {}),
          ...(s.removeLabels?.length ? { removedLabels: s.removeLabels } : {}),
        },
      };
    } catch (e) {
      return failureOf(e);
    }
  },
  // An agent of this workspace: a workflow acts for no agent, so never "me".
  checkScope(s, at, { scope, refuse, members }) {
    const assignee: unknown = s.assignee;
    if (assignee === undefined || assignee === null) return;
    if (assignee === 'me') {
      refuse(`${at}.assignee`, 'Choose a member: a workflow acts for no one, so not "me"');
    }
    if (typeof assignee !== 'string' || !members.findActive(scope.workspaceId, assignee)) {
      refuse(
        `${at}.assignee`,
        `Choose a member of this workspace ("${String(assignee)}" is no active member)`,
      );
    }
  },
};
