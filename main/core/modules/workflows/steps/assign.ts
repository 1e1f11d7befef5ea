import { ROUND_ROBIN } from '../../../../../shared/workflow-steps/assign.ts';
import type { StepExecutor } from './step-executor.ts';
import { failureOf } from './step-executor.ts';

// The conversation goes to a person and the run ends `handed_off` (the engine ends the
// contact's other runs too): the bot stops on purpose.
export const assign: StepExecutor<'assign'> = {
  type: 'assign',
  execute(s, { assign: assignTo }) {
    try {
      return { kind: 'handoff', output: { outcome: 'handed_off', ...assignTo(s.to) } };
    } catch (e) {
      return failureOf(e);
    }
  },
  // An active member of this workspace, or round-robin (never "me": a workflow is no one).
  checkScope(s, at, { scope, refuse, members }) {
    const to: unknown = s.to;
    if (to === ROUND_ROBIN) return;
    if (typeof to !== 'string' || !members.findActive(scope.workspaceId, to)) {
      refuse(
        `${at}.to`,
        `Choose a member of this workspace, or round robin ("${String(to)}" is no active member)`,
      );
    }
  },
};
