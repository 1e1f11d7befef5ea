/**
 * The workflow builder's model: the form's draft, the definition it saves, and the problems the
 * core would answer — shared/workflow-rules.ts `workflowProblems`, each naming its field by the
 * same dot path as the API's `error.param` (`steps.3.duration`), so the core's answer lands on
 * the same step and field.
 */
import {
  BRANCH_OPS,
  followingStep,
  parseDuration,
  workflowProblems,
  type BranchOp,
  type StepDefinition,
  type StepType,
  type WorkflowDefinition,
  type WorkflowProblem,
} from '../../../../shared/workflow-rules.ts';
import type { Workflow } from '../../stores/workflows.ts';

export { BRANCH_OPS };
export type { BranchOp, StepDefinition, StepType, WorkflowProblem };

/** A step as edited: its definition, a stable React key, and a webhook body's text as typed. */
export type StepDraft = StepDefinition & { key: string; bodyText?: string };

export interface WorkflowDraft {
  name: string;
  triggerType: 'event' | 'manual';
  event: string;
  steps: StepDraft[];
}

export const STEP_LABELS: Record<StepType, string> = {
  send_template: 'Send a template',
  send_text: 'Send a text',
  send_list: 'Send an interactive list',
  wait: 'Wait',
  wait_for_reply: 'Wait for a reply',
  branch: 'Branch: if … otherwise …',
  webhook: 'Call a webhook',
  update_conversation: 'Update the conversation',
  end: 'End the run',
};

export const STEP_HINTS: Record<StepType, string> = {
  send_template: 'An approved template, its variables filled from the run.',
  send_text: 'Free text: only inside the 24-hour window (after the customer wrote).',
  send_list: 'A saved interactive list: only inside the 24-hour window.',
  wait: 'Pauses the run for a while.',
  wait_for_reply: 'Pauses until the customer answers, or until a timeout.',
  branch: 'Goes one way or another depending on a value (a reply, the event’s data).',
  webhook:
    'Calls your server (signed with the workflow’s secret); its JSON answer can be used later.',
  update_conversation: 'Changes the conversation’s status, assignee or labels.',
  end: 'Ends the run here.',
};

export const OP_LABELS: Record<BranchOp, string> = {
  eq: 'is',
  ne: 'is not',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  contains: 'contains',
  exists: 'is not empty',
};

const ID_PREFIX: Record<StepType, string> = {
  send_template: 'template',
  send_text: 'text',
  send_list: 'list',
  wait: 'wait',
  wait_for_reply: 'reply',
  branch: 'branch',
  webhook: 'webhook',
  update_conversation: 'update',
  end: 'end',
};

let seq = 0;
const nextKey = (): string => `s${++seq}`;

/** A step id the draft does not use yet: `wait_1`, `wait_2`, … */
function freshId(steps: readonly StepDraft[], type: StepType): string {
  const taken = new Set(steps.map((s) => s.id));
  let n = 1;
  while (taken.has(`${ID_PREFIX[type]}_${n}`)) n++;
  return `${ID_PREFIX[type]}_${n}`;
}

const DEFAULTS: Record<StepType, Partial<StepDefinition>> = {
  send_template: { templateName: '', variables: {} },
  send_text: { text: '' },
  send_list: { listId: '' },
  wait: { duration: 'PT15M' },
  wait_for_reply: { timeout: 'P1D' },
  branch: {
    conditions: [{ if: { value: '{{reply.text}}', op: 'contains', equals: '' }, goto: '' }],
  },
  webhook: { url: '', method: 'POST' },
  update_conversation: {},
  end: {},
};

export const newStep = (steps: readonly StepDraft[], type: StepType): StepDraft => ({
  key: nextKey(),
  id: freshId(steps, type),
  type,
  ...structuredClone(DEFAULTS[type]),
});

export const emptyDraft = (): WorkflowDraft => ({
  name: '',
  triggerType: 'event',
  event: '',
  steps: [],
});

export function draftFromWorkflow(workflow: Workflow): WorkflowDraft {
  return {
    name: workflow.name,
    triggerType: workflow.trigger.type,
    event: workflow.trigger.type === 'event' ? workflow.trigger.event : '',
    steps: workflow.steps.map((raw) => {
      const step = raw as unknown as StepDefinition;
      return {
        ...step,
        key: nextKey(),
        ...(step.body !== undefined ? { bodyText: JSON.stringify(step.body, null, 2) } : {}),
      };
    }),
  };
}

/** Optional fields left blank are not sent; required ones are (the rules name them). */
const OPTIONAL_BLANK = ['next', 'onTimeout', 'onError', 'else', 'status', 'method'] as const;

type BodyResult = { ok: true; body: unknown } | { ok: false };

function parseBody(text: string | undefined): BodyResult {
  if (text === undefined || text.trim() === '') return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The step as the API takes it. */
export function stepOf(draft: StepDraft): StepDefinition {
  const { key: _key, bodyText, ...step } = draft;
  const out: Record<string, unknown> = { ...step };
  for (const field of OPTIONAL_BLANK) if (out[field] === '') delete out[field];
  for (const field of ['addLabels', 'removeLabels'] as const) {
    if (Array.isArray(out[field]) && (out[field] as unknown[]).length === 0) delete out[field];
  }
  if (draft.type === 'webhook') {
    delete out.body;
    const parsed = parseBody(bodyText);
    if (parsed.ok && parsed.body !== undefined) out.body = parsed.body;
  }
  if (draft.type === 'branch' && draft.conditions) {
    out.conditions = draft.conditions.map((c) => {
      const { equals, ...rest } = c.if;
      return {
        ...c,
        if: c.if.op === 'exists' || equals === undefined ? rest : { ...rest, equals },
      };
    });
  }
  for (const [field, value] of Object.entries(out)) if (value === undefined) delete out[field];
  return out as unknown as StepDefinition;
}

export const definitionOf = (draft: WorkflowDraft): WorkflowDefinition => ({
  name: draft.name,
  trigger:
    draft.triggerType === 'event' ? { type: 'event', event: draft.event } : { type: 'manual' },
  steps: draft.steps.map(stepOf),
});

/** The core's problems with the definition, and webhook bodies that are not JSON. */
export function problemsOf(draft: WorkflowDraft): WorkflowProblem[] {
  const problems = workflowProblems(definitionOf(draft));
  draft.steps.forEach((step, i) => {
    if (step.type === 'webhook' && !parseBody(step.bodyText).ok) {
      problems.push({ param: `steps.${i}.body`, message: 'the body is not valid JSON' });
    }
  });
  return problems;
}

/** The DOM id (and test id) of the field a param names: `steps.2.duration` → `wf-steps-2-duration`. */
export const fieldId = (param: string): string => `wf-${param.replace(/\./g, '-')}`;

/** The index of the step a param is about (`steps.3.duration` → 3), or null. */
export function stepIndexOf(param: string): number | null {
  const m = /^steps\.(\d+)(?:\.|$)/.exec(param);
  return m ? Number(m[1]) : null;
}

/** A step's name in sentences: "Step 3 · Wait". */
export function stepName(steps: readonly StepDefinition[], id: string | null | undefined): string {
  if (!id) return 'the end of the run';
  const index = steps.findIndex((s) => s.id === id);
  const step = steps[index];
  return step ? `Step ${index + 1} · ${STEP_LABELS[step.type] ?? step.type}` : `“${id}” (missing)`;
}

/** A branch condition in words: `{{reply.text}} contains “yes”`. */
export function conditionText(c: NonNullable<StepDefinition['conditions']>[number]): string {
  const op = OP_LABELS[c.if.op] ?? c.if.op;
  return c.if.op === 'exists'
    ? `${c.if.value} ${op}`
    : `${c.if.value} ${op} “${String(c.if.equals ?? '')}”`;
}

export interface Path {
  /** What takes this path ("If …", "Otherwise", "On timeout", "then"). */
  label: string;
  /** The step it leads to; null ends the run. */
  target: string | null;
  /** The following step by position (drawn as the flow's arrow rather than a jump). */
  follows: boolean;
}

/** Where a step goes next: one path, or a branch's conditions and otherwise. */
export function pathsOf(steps: readonly StepDefinition[], index: number): Path[] {
  const step = steps[index];
  if (!step || step.type === 'end') return [];
  const following = steps[index + 1]?.id ?? null;
  const path = (label: string, target: string | null | undefined): Path => ({
    label,
    target: target || null,
    follows: (target || null) === following && following !== null,
  });
  if (step.type === 'branch') {
    return [
      ...(step.conditions ?? []).map((c) => path(`If ${conditionText(c)}`, c.goto)),
      path('Otherwise', step.else),
    ];
  }
  const then = path(step.next ? 'Then go to' : 'Then', followingStep(steps, index));
  if (step.type === 'wait_for_reply')
    return [path('On a reply', then.target), path('On timeout', step.onTimeout)];
  if (step.type === 'webhook' && step.onError) return [then, path('If it fails', step.onError)];
  return [then];
}

// ---- durations: a number and a unit, ISO 8601 underneath --------------------------------------

export const DURATION_UNITS = [
  { unit: 'S', label: 'seconds', ms: 1_000 },
  { unit: 'M', label: 'minutes', ms: 60_000 },
  { unit: 'H', label: 'hours', ms: 3_600_000 },
  { unit: 'D', label: 'days', ms: 86_400_000 },
] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number]['unit'];

export const toIsoDuration = (amount: string, unit: DurationUnit): string =>
  amount.trim() === '' ? '' : unit === 'D' ? `P${amount.trim()}D` : `PT${amount.trim()}${unit}`;

/** An ISO 8601 duration as a number and a unit: as written when it has one, else the largest whole unit. */
export function fromIsoDuration(
  iso: string | undefined,
): { amount: string; unit: DurationUnit } | null {
  if (!iso) return null;
  const single = /^P(?:T(\d+(?:\.\d+)?)([SMH])|(\d+)D)$/.exec(iso);
  if (single) {
    return single[3] !== undefined
      ? { amount: single[3], unit: 'D' }
      : { amount: single[1]!, unit: single[2] as DurationUnit };
  }
  const ms = parseDuration(iso);
  if (ms === null) return null;
  const unit = [...DURATION_UNITS].reverse().find((u) => ms % u.ms === 0) ?? DURATION_UNITS[0];
  return { amount: String(ms / unit.ms), unit: unit.unit };
}

/** A duration in words ("15 minutes"), or the text as is when it does not parse. */
export function durationText(iso: string | undefined): string {
  const d = fromIsoDuration(iso);
  if (!d) return iso || '—';
  const unit = DURATION_UNITS.find((u) => u.unit === d.unit)!;
  return `${d.amount} ${d.amount === '1' ? unit.label.slice(0, -1) : unit.label}`;
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A rule's message in the builder's words: "Step 3: a duration is …". */
export function blockerMessage(problem: WorkflowProblem): string {
  const index = stepIndexOf(problem.param);
  const text = capitalised(problem.message);
  return index === null ? text : `Step ${index + 1}: ${text}`;
}
