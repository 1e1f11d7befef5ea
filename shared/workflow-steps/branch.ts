import type { WorkflowProblem } from '../workflow-rules.ts';
import type { StepBase, StepKind } from './step-kind.ts';

export const BRANCH_OPS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'exists',
  'is_open_now',
] as const;
export type BranchOp = (typeof BRANCH_OPS)[number];

/** Ops that compare no value: `is_open_now` reads the workspace's business hours. */
export const VALUELESS_OPS: readonly BranchOp[] = ['is_open_now'];

/** Each op in words, as a reason reads: "“yes” equals “yes”". */
export const BRANCH_OP_WORDS: Readonly<Record<BranchOp, string>> = {
  eq: 'equals',
  ne: 'does not equal',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  contains: 'contains',
  exists: 'is not empty',
  is_open_now: 'the business is open now',
};

export interface Condition {
  /**
   * `value` (a template string) compared by `op` with `equals`. For `is_open_now` there is no
   * value: it holds while the business is open (`equals: false`: while it is closed).
   */
  if: { value?: string; op: BranchOp; equals?: string | number | boolean | null };
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
  missing: { conditions: 'Add a condition to branch on' },
  validate(step, { at, strings, refersTo }) {
    const out: WorkflowProblem[] = [];
    (step.conditions ?? []).forEach((c, k) => {
      const op = c.if?.op;
      if (!(BRANCH_OPS as readonly string[]).includes(op)) {
        out.push({
          param: `${at}.conditions.${k}.if.op`,
          message: 'Choose how to compare (equals, contains, is open now, …)',
        });
      } else if (VALUELESS_OPS.includes(op)) {
        const eq = c.if.equals;
        if (eq !== undefined && eq !== null && typeof eq !== 'boolean') {
          out.push({
            param: `${at}.conditions.${k}.if.equals`,
            message: 'Choose open (true) or closed (false)',
          });
        }
      } else if (typeof c.if.value !== 'string' || c.if.value.trim() === '') {
        out.push({
          param: `${at}.conditions.${k}.if.value`,
          message: 'Say what to compare, like {{reply.text}}',
        });
      }
      out.push(...strings(`${at}.conditions.${k}.if.value`, c.if?.value));
      if (c.goto === undefined || c.goto === '') {
        out.push({
          param: `${at}.conditions.${k}.goto`,
          message: 'Choose the step to go to when this holds',
        });
      } else out.push(...refersTo(`${at}.conditions.${k}.goto`, c.goto));
    });
    if (step.conditions && step.conditions.length === 0) {
      out.push({ param: `${at}.conditions`, message: 'Add a condition to branch on' });
    }
    out.push(...refersTo(`${at}.else`, step.else));
    return out;
  },
};

/** What a condition may read besides its value: whether the business is open now. */
export interface ConditionContext {
  openNow: () => boolean;
}

/**
 * A branch condition: `value` (rendered) against `equals` by `op`. Numbers compare as numbers
 * when both sides are numeric; `contains` is a substring test (any case); `exists` means
 * non-empty; `is_open_now` holds while the business is open (`equals: false`: closed).
 */
export function conditionHolds(
  value: string,
  op: BranchOp,
  equals: string | number | boolean | null | undefined,
  context?: ConditionContext,
): boolean {
  if (op === 'is_open_now') {
    const open = context ? context.openNow() : false;
    return equals === false ? !open : open;
  }
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
