import type { BranchOp } from '../../../../../shared/workflow-steps/branch.ts';
import { BRANCH_OP_WORDS, conditionHolds } from '../../../../../shared/workflow-steps/branch.ts';
import type { StepExecutor } from './step-executor.ts';

/** Why a condition held, in words: "“yes please” contains “yes”", "the business is open now". */
function reason(value: string, op: BranchOp, equals: unknown): string {
  if (op === 'is_open_now') {
    return equals === false ? 'the business is closed now' : 'the business is open now';
  }
  if (op === 'exists') return `“${value}” is not empty`;
  return `“${value}” ${BRANCH_OP_WORDS[op]} “${equals === undefined || equals === null ? '' : String(equals)}”`;
}

export const branch: StepExecutor<'branch'> = {
  type: 'branch',
  execute(s, { render, openNow }) {
    const values: string[] = [];
    for (const [k, c] of (s.conditions ?? []).entries()) {
      const value = c.if.value === undefined ? '' : render(c.if.value);
      if (c.if.op !== 'is_open_now') values.push(value);
      if (conditionHolds(value, c.if.op, c.if.equals, { openNow })) {
        return {
          kind: 'next',
          next: c.goto,
          output: {
            outcome: 'matched',
            condition: k,
            value,
            matched: c.goto,
            goto: c.goto,
            reason: reason(value, c.if.op, c.if.equals),
          },
        };
      }
    }
    const seen = [...new Set(values)];
    return {
      kind: 'next',
      next: s.else ?? null,
      output: {
        outcome: 'otherwise',
        matched: s.else ?? null,
        goto: s.else ?? null,
        ...(seen.length === 1 ? { value: seen[0] } : {}),
        reason: seen.length === 1 ? `no condition held for “${seen[0]}”` : 'no condition held',
      },
    };
  },
  keepsOutput: false,
};
