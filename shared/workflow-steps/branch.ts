import type { WorkflowProblem } from '../workflow-rules.ts';
import type { StepBase, StepKind } from './step-kind.ts';

export const BRANCH_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists'] as const;
export type BranchOp = (typeof BRANCH_OPS)[number];

export interface Condition {
  if: { value: string; op: BranchOp; equals?: string | number | boolean | null };
  goto: string;
}

/** Goes to the first condition's `goto` that holds, else to `else` (none: the run ends). */
export interface BranchStep extends StepBase<'branch'> {
  conditions: Condition[];
  else?: string;
}

export const branch: StepKind<BranchStep> = {
  type: 'branch',
  label: 'Branch: if … otherwise …',
  fields: ['conditions', 'else'],
  required: ['conditions'],
  validate(step, { at, strings, refersTo }) {
    const out: WorkflowProblem[] = [];
    (step.conditions ?? []).forEach((c, k) => {
      out.push(...strings(`${at}.conditions.${k}.if.value`, c.if?.value));
      if (!(BRANCH_OPS as readonly string[]).includes(c.if?.op)) {
        out.push({
          param: `${at}.conditions.${k}.if.op`,
          message: `op is one of ${BRANCH_OPS.join(', ')}`,
        });
      }
      out.push(...refersTo(`${at}.conditions.${k}.goto`, c.goto ?? ''));
    });
    if (step.conditions && step.conditions.length === 0) {
      out.push({ param: `${at}.conditions`, message: 'a branch needs a condition' });
    }
    out.push(...refersTo(`${at}.else`, step.else));
    return out;
  },
};

/**
 * A branch condition: `value` (rendered) against `equals` by `op`. Numbers compare as numbers
 * when both sides are numeric; `contains` is a substring test; `exists` means non-empty.
 */
export function conditionHolds(
  value: string,
  op: BranchOp,
  equals: string | number | boolean | null | undefined,
): boolean {
  if (op === 'exists') return value.trim() !== '';
  const other = equals === undefined || equals === null ? '' : String(equals);
  const a = Number(value);
  const b = Number(other);
  const numeric = value.trim() !== '' && other.trim() !== '' && !isNaN(a) && !isNaN(b);
  switch (op) {
    case 'eq':
      return numeric ? a === b : value === other;
    case 'ne':
      return numeric ? a !== b : value !== other;
    case 'gt':
      return numeric ? a > b : value > other;
    case 'gte':
      return numeric ? a >= b : value >= other;
    case 'lt':
      return numeric ? a < b : value < other;
    case 'lte':
      return numeric ? a <= b : value <= other;
    case 'contains':
      return value.toLowerCase().includes(other.toLowerCase());
  }
}
