/**
 * What a draft saves and how a saved workflow is drafted, through the step registry: a new step
 * (its editor's id prefix and defaults), the definition the API takes (each editor's `toStep`),
 * and the problems the core would answer — shared/workflow-rules.ts `workflowProblems` — plus
 * those only a draft can have.
 */
import {
  followingStep,
  STEP_KINDS,
  workflowProblems,
  type StepDefinition,
  type StepType,
  type WorkflowDefinition,
  type WorkflowProblem,
} from '../../../../shared/workflow-rules.ts';
import type { Workflow } from '../../stores/workflows.ts';
import { STEP_EDITORS } from './steps/index.ts';
import type { Path, StepDraft, WorkflowDraft } from './workflow-draft.ts';

let seq = 0;
const nextKey = (): string => `s${++seq}`;

/** A step id the draft does not use yet: `wait_1`, `wait_2`, … */
function freshId(steps: readonly StepDraft[], type: StepType): string {
  const prefix = STEP_EDITORS[type].idPrefix;
  const taken = new Set(steps.map((s) => s.id));
  let n = 1;
  while (taken.has(`${prefix}_${n}`)) n++;
  return `${prefix}_${n}`;
}

export const newStep = (steps: readonly StepDraft[], type: StepType): StepDraft => ({
  key: nextKey(),
  id: freshId(steps, type),
  type,
  ...structuredClone(STEP_EDITORS[type].defaults),
});

export function draftFromWorkflow(workflow: Workflow): WorkflowDraft {
  return {
    name: workflow.name,
    triggerType: workflow.trigger.type,
    event: workflow.trigger.type === 'event' ? workflow.trigger.event : '',
    steps: workflow.steps.map((raw) => {
      const step = raw as unknown as StepDefinition;
      return { ...step, key: nextKey(), ...STEP_EDITORS[step.type].toDraft?.(step) };
    }),
  };
}

const blank = (value: unknown): boolean =>
  value === '' || (Array.isArray(value) && value.length === 0);

/** The step as the API takes it. Optional fields left blank are not sent; required ones are (the rules name them). */
export function stepOf(draft: StepDraft): StepDefinition {
  const { key: _key, bodyText: _bodyText, ...step } = draft;
  let out: Record<string, unknown> = { ...step };
  const { fields, required } = STEP_KINDS[draft.type];
  for (const field of ['next', ...fields.filter((f) => !required.includes(f))]) {
    if (blank(out[field])) delete out[field];
  }
  out = STEP_EDITORS[draft.type].toStep?.(draft, out) ?? out;
  for (const [field, value] of Object.entries(out)) if (value === undefined) delete out[field];
  return out as unknown as StepDefinition;
}

export const definitionOf = (draft: WorkflowDraft): WorkflowDefinition => ({
  name: draft.name,
  trigger:
    draft.triggerType === 'event' ? { type: 'event', event: draft.event } : { type: 'manual' },
  steps: draft.steps.map(stepOf),
});

/** The core's problems with the definition, and those only a draft has (a body that is not JSON). */
export function problemsOf(draft: WorkflowDraft): WorkflowProblem[] {
  const problems = workflowProblems(definitionOf(draft));
  draft.steps.forEach((step, i) => {
    problems.push(...(STEP_EDITORS[step.type].draftProblems?.(step, `steps.${i}`) ?? []));
  });
  return problems;
}

/** Where a step goes next: where its editor says (a branch's conditions…), else one path. */
export function pathsOf(steps: readonly StepDraft[], index: number): Path[] {
  const step = steps[index];
  if (!step) return [];
  const following = steps[index + 1]?.id ?? null;
  const path = (label: string, target: string | null | undefined): Path => ({
    label,
    target: target || null,
    follows: (target || null) === following && following !== null,
  });
  const then = path(step.next ? 'Then go to' : 'Then', followingStep(steps, index));
  return STEP_EDITORS[step.type].paths?.(step, then, path) ?? [then];
}
