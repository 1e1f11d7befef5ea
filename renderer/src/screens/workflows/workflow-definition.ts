/**
 * What a draft saves and how a saved workflow is drafted, through the step registry: a new step
 * (its editor's id prefix and defaults), the definition the API takes (each editor's `toStep`),
 * and the problems the core would answer — shared/workflow-rules.ts `workflowProblems` — plus
 * those only a draft can have.
 */
import { normalizeLabels, splitLabels } from '../../../../shared/labels.ts';
import {
  followingStep,
  STEP_KINDS,
  workflowProblems,
  type StepDefinition,
  type StepType,
  type WorkflowDefinition,
  type WorkflowProblem,
} from '../../../../shared/workflow-rules.ts';
import { STEP_EDITORS } from './steps/index.ts';
import {
  emptyTrigger,
  type Path,
  type PathField,
  type StepDraft,
  type TriggerDraft,
  type WorkflowDraft,
  type WorkflowTrigger,
} from './workflow-draft.ts';

let seq = 0;
const nextKey = (): string => `s${++seq}`;

/** A step id the draft does not use yet: `wait_1`, `wait_2`, … */
export function freshId(steps: readonly StepDraft[], type: StepType): string {
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

export function triggerDraftOf(trigger: WorkflowTrigger): TriggerDraft {
  const draft = emptyTrigger(trigger.type);
  switch (trigger.type) {
    case 'event':
      return { ...draft, event: trigger.event };
    case 'message_received':
      return {
        ...draft,
        keywords: trigger.keywords ?? [],
        match: trigger.match ?? 'any',
        firstMessageOnly: trigger.firstMessageOnly ?? false,
        outsideHours: trigger.outsideHours ?? false,
      };
    case 'conversation_status':
      return { ...draft, to: trigger.to };
    case 'list_reply':
      return { ...draft, listId: trigger.listId };
    case 'manual':
      return draft;
  }
}

/** A definition (a workflow's, a draft's, a version's) as the builder edits it. */
export function draftFromDefinition(definition: {
  name: string;
  trigger: WorkflowTrigger;
  steps: readonly unknown[];
}): WorkflowDraft {
  return {
    name: definition.name,
    trigger: triggerDraftOf(definition.trigger),
    steps: definition.steps.map((raw) => {
      const step = raw as StepDefinition;
      return { ...step, key: nextKey(), ...STEP_EDITORS[step.type]?.toDraft?.(step) };
    }),
  };
}

const blank = (value: unknown): boolean =>
  value === '' || (Array.isArray(value) && value.length === 0);

/** Chips and what was typed beside them but not added: "vip, urgent" adds two. */
export const withTyped = (chips: readonly string[] | undefined, typed: string | undefined) =>
  typed?.trim() ? normalizeLabels([...(chips ?? []), ...splitLabels(typed)]) : [...(chips ?? [])];

/** The step as the API takes it. Optional fields left blank are not sent; required ones are (the rules name them). */
export function stepOf(draft: StepDraft): StepDefinition {
  const { key: _key, bodyText: _bodyText, typed, ...step } = draft;
  let out: Record<string, unknown> = { ...step };
  for (const [field, text] of Object.entries(typed ?? {})) {
    if (text?.trim()) out[field] = withTyped(out[field] as string[] | undefined, text);
  }
  const { fields, required } = STEP_KINDS[draft.type];
  for (const field of ['next', ...fields.filter((f) => !required.includes(f))]) {
    if (blank(out[field])) delete out[field];
  }
  out = STEP_EDITORS[draft.type].toStep?.(draft, out) ?? out;
  for (const [field, value] of Object.entries(out)) if (value === undefined) delete out[field];
  return out as unknown as StepDefinition;
}

/** The trigger as the API takes it: only its type's fields, options only when they say something. */
export function triggerOf(t: TriggerDraft): WorkflowTrigger {
  switch (t.type) {
    case 'event':
      return { type: 'event', event: t.event };
    case 'manual':
      return { type: 'manual' };
    case 'message_received': {
      const keywords = withTyped(t.keywords, t.keywordText);
      return {
        type: 'message_received',
        ...(keywords.length > 0 ? { keywords, match: t.match } : {}),
        ...(t.firstMessageOnly ? { firstMessageOnly: true } : {}),
        ...(t.outsideHours ? { outsideHours: true } : {}),
      };
    }
    case 'conversation_status':
      return { type: 'conversation_status', to: t.to };
    case 'list_reply':
      return { type: 'list_reply', listId: t.listId };
  }
}

export const definitionOf = (draft: WorkflowDraft): WorkflowDefinition => ({
  name: draft.name,
  trigger: triggerOf(draft.trigger),
  steps: draft.steps.map(stepOf),
});

/** The core's problems with the definition, and those only a draft has (a body that is not JSON). */
export function problemsOf(draft: WorkflowDraft): WorkflowProblem[] {
  const problems = workflowProblems(definitionOf(draft));
  draft.steps.forEach((step, i) => {
    problems.push(...(STEP_EDITORS[step.type]?.draftProblems?.(step, `steps.${i}`) ?? []));
  });
  return problems;
}

/** Where a step goes next: where its editor says (a branch's conditions…), else one path. */
export function pathsOf(steps: readonly StepDraft[], index: number): Path[] {
  const step = steps[index];
  if (!step) return [];
  const following = steps[index + 1]?.id ?? null;
  const path = (label: string, target: string | null | undefined, field: PathField): Path => ({
    label,
    target: target === '' && field.startsWith('conditions.') ? '' : target || null,
    follows: (target || null) === following && following !== null,
    field,
  });
  const editor = STEP_EDITORS[step.type];
  if (!editor) return [];
  const then = path('', followingStep(steps, index), 'next');
  return editor.paths?.(step, then, path) ?? (editor.next === false ? [] : [then]);
}
