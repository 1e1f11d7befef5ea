import { conditionHolds } from '../../../../../shared/workflow-steps/branch.ts';
import type { StepExecutor } from './step-executor.ts';

export const branch: StepExecutor<'branch'> = {
  type: 'branch',
  execute(s, { render }) {
    for (const c of s.conditions ?? []) {
      const value = render(c.if.value);
      if (conditionHolds(value, c.if.op, c.if.equals)) {
        return { kind: 'next', next: c.goto, output: { value, matched: c.goto } };
      }
    }
    return { kind: 'next', next: s.else ?? null, output: { matched: s.else ?? null } };
  },
  keepsOutput: false,
};
