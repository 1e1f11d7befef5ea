import type { StepExecutor } from './step-executor.ts';
import { failureOf } from './step-executor.ts';

export const updateConversation: StepExecutor<'update_conversation'> = {
  type: 'update_conversation',
  execute(s, { scope, contact, conversations }) {
    try {
      const conversationId = conversations.applyForRunner(scope, contact, {
        ...(s.status !== undefined ? { status: s.status as 'open' } : {}),
        ...(s.assignee !== undefined ? { assignee: s.assignee } : {}),
        ...(s.addLabels ? { addLabels: s.addLabels } : {}),
        ...(s.removeLabels ? { removeLabels: s.removeLabels } : {}),
      });
      return { kind: 'next', next: null, output: { conversationId } };
    } catch (e) {
      return failureOf(e);
    }
  },
  // An agent of this workspace: a workflow acts for no agent, so never "me".
  checkScope(s, at, { scope, refuse, members }) {
    const assignee: unknown = s.assignee;
    if (assignee === undefined || assignee === null) return;
    if (assignee === 'me') {
      refuse(`${at}.assignee`, 'a workflow acts for no agent: name an agent id, or null');
    }
    if (typeof assignee !== 'string' || !members.findActive(scope.workspaceId, assignee)) {
      refuse(`${at}.assignee`, `no active member ${String(assignee)} in this workspace`);
    }
  },
};
