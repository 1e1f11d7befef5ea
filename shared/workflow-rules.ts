/**
 * Workflows' rules (README "Workflows"): ISO 8601 durations, template strings, and the checks
 * a definition must pass — the core answers 400 `validation_error` naming the step's field
 * (`steps.3.duration`), and a builder can show the same problems as they are made. Each step
 * type's fields and own checks are its module in workflow-steps/ (the registry). No zod, no
 * Node, no DOM.
 */
import { fillFrom, parseTemplate } from './template-strings.ts';
import type { StepChecks, StepDefinition, StepField, StepType } from './workflow-steps/index.ts';
import { STEP_KINDS, STEP_TYPES } from './workflow-steps/index.ts';

export { STEP_KINDS, STEP_TYPES };
export type { Step, StepDefinition, StepOf, StepType } from './workflow-steps/index.ts';
export { BRANCH_OPS, conditionHolds } from './workflow-steps/branch.ts';
export type { BranchOp, Condition } from './workflow-steps/branch.ts';
export { WEBHOOK_ATTEMPTS } from './workflow-steps/webhook.ts';

export const WORKFLOW_STATUSES = ['active', 'paused', 'archived'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

export const RUN_STATUSES = ['running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run executes at most this many steps (a loop without a wait ends `failed`). */
export const MAX_RUN_STEPS = 1000;
export const MAX_STEPS = 100;
/** The longest `wait` or `wait_for_reply` timeout. */
export const MAX_DURATION_MS = 90 * 24 * 3600_000;

export interface WorkflowDefinition {
  name: string;
  trigger: { type: 'event'; event: string } | { type: 'manual' };
  steps: StepDefinition[];
}

export interface WorkflowProblem {
  param: string;
  message: string;
}

/** The fields of each step type besides `id`, `type` and `next` (the builder's forms show these). */
export const STEP_FIELDS = Object.fromEntries(
  STEP_TYPES.map((type) => [type, STEP_KINDS[type].fields]),
) as Record<StepType, readonly StepField[]>;
const STEP_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * An ISO 8601 duration (`PT2S`, `PT15M`, `P1D`, `P1DT2H`) in ms, or null when it does not parse
 * (years and months are refused: their length varies).
 */
export function parseDuration(text: string): number | null {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) return null;
  const [, w, d, h, min, s] = m;
  const ms =
    (Number(w ?? 0) * 7 * 86400 +
      Number(d ?? 0) * 86400 +
      Number(h ?? 0) * 3600 +
      Number(min ?? 0) * 60 +
      Number(s ?? 0)) *
    1000;
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

/**
 * The `{{…}}` references of a template string, as dot paths (`payload.cart.total`; a fallback,
 * `{{payload.code | "none"}}`, is not part of the path), and what does not parse, as written
 * inside the braces.
 */
export function templateRefs(text: string): string[] {
  const { refs, malformed } = parseTemplate(text);
  return [
    ...refs.map((r) => ({ at: r.start, ref: r.path })),
    ...malformed.map((m) => ({ at: m.start, ref: m.raw.slice(2, -2).trim() })),
  ]
    .sort((a, b) => a.at - b.at)
    .map((r) => r.ref);
}

/** Whether a reference names something a run can have: payload, contact, reply or a step. */
export function refProblem(ref: string, stepIds: ReadonlySet<string>): string | null {
  const [root, second, ...rest] = ref.split('.');
  if (root === 'payload' && second) return null;
  if (root === 'contact') {
    if (['name', 'phone', 'email'].includes(second ?? '') && rest.length === 0) return null;
    if (second === 'attributes' && rest.length > 0) return null;
    return `{{${ref}}}: a contact has name, phone, email and attributes.KEY`;
  }
  if (root === 'reply') {
    if (second === 'text' && rest.length === 0) return null;
    if (second === 'listReply' && ['listId', 'rowId', 'title'].includes(rest[0] ?? '')) return null;
    return `{{${ref}}}: a reply has text and listReply.listId|rowId|title`;
  }
  if (root === 'steps') {
    if (second && stepIds.has(second) && rest.length > 0) return null;
    return `{{${ref}}}: steps.ID.FIELD must name a step of this workflow and a field of its output`;
  }
  return `{{${ref}}} is not a template string: use {{payload.X}}, {{contact.name}}, {{reply.text}} or {{steps.ID.FIELD}}`;
}

/** Every problem of a definition, in order (empty when it can be saved). */
export function workflowProblems(def: WorkflowDefinition): WorkflowProblem[] {
  const out: WorkflowProblem[] = [];
  if (!def.name || def.name.trim() === '' || def.name.length > 200) {
    out.push({ param: 'name', message: 'name is required (at most 200 characters)' });
  }
  if (def.trigger.type === 'event' && !EVENT_NAME.test(def.trigger.event ?? '')) {
    out.push({
      param: 'trigger.event',
      message: 'an event name is 1–100 of letters, digits and _ . : -',
    });
  }
  if (def.steps.length === 0) out.push({ param: 'steps', message: 'a workflow needs a step' });
  if (def.steps.length > MAX_STEPS) {
    out.push({ param: 'steps', message: `a workflow has at most ${MAX_STEPS} steps` });
  }
  const ids = new Set<string>();
  def.steps.forEach((step, i) => {
    if (!STEP_ID.test(step.id ?? '')) {
      out.push({
        param: `steps.${i}.id`,
        message: 'a step id is 1–64 of letters, digits, _ and -',
      });
    } else if (ids.has(step.id)) {
      out.push({ param: `steps.${i}.id`, message: `step id "${step.id}" is used twice` });
    }
    ids.add(step.id);
  });
  const checks: Omit<StepChecks, 'at'> = {
    refersTo(param, target) {
      if (target === undefined) return [];
      if (typeof target !== 'string' || !ids.has(target)) {
        return [{ param, message: `"${String(target)}" is not a step of this workflow` }];
      }
      return [];
    },
    strings(param, text) {
      if (typeof text !== 'string') return [];
      return templateRefs(text).flatMap((ref) => {
        const problem = refProblem(ref, ids);
        return problem ? [{ param, message: problem }] : [];
      });
    },
    duration(param, text) {
      const ms = typeof text === 'string' ? parseDuration(text) : null;
      if (ms === null || ms <= 0 || ms > MAX_DURATION_MS) {
        return [
          {
            param,
            message: 'a duration is ISO 8601 (PT2S, PT15M, P1D), more than 0 and at most 90 days',
          },
        ];
      }
      return [];
    },
  };
  def.steps.forEach((step, i) => {
    const at = `steps.${i}`;
    if (!(STEP_TYPES as readonly string[]).includes(step.type)) {
      out.push({ param: `${at}.type`, message: `type is one of ${STEP_TYPES.join(', ')}` });
      return;
    }
    const kind = STEP_KINDS[step.type];
    const allowed = new Set<string>(['id', 'type', 'next', ...kind.fields]);
    for (const key of Object.keys(step)) {
      if (!allowed.has(key)) {
        out.push({ param: `${at}.${key}`, message: `a ${step.type} step has no field ${key}` });
      }
    }
    for (const key of kind.required) {
      if (step[key] === undefined || step[key] === '') {
        out.push({ param: `${at}.${key}`, message: `a ${step.type} step needs ${key}` });
      }
    }
    out.push(...checks.refersTo(`${at}.next`, step.next));
    if (kind.validate) out.push(...kind.validate(step, { ...checks, at }));
  });
  return out;
}

/** The step after `index` when it names none: the following one, or the run's end (null). */
export const followingStep = (steps: readonly StepDefinition[], index: number): string | null =>
  steps[index]?.next ?? steps[index + 1]?.id ?? null;

/** What template strings read in a run. */
export interface RunContext {
  payload: Record<string, unknown>;
  contact: {
    name: string | null;
    phone: string;
    email: string | null;
    attributes: Record<string, unknown>;
  };
  reply: { text: string; listReply?: { listId: string; rowId: string; title: string } } | null;
  steps: Record<string, unknown>;
}

/**
 * Fills `{{…}}` from the run (shared/template-strings.ts, README "Email", template strings): own properties only,
 * never a function; a missing value is its fallback (`{{payload.code | "none"}}`), else empty;
 * an object is its JSON.
 */
export function renderTemplateString(text: string, ctx: RunContext): string {
  return fillFrom(text, ctx, { missing: 'empty' }).text;
}
