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
export {
  BRANCH_OP_WORDS,
  BRANCH_OPS,
  conditionHolds,
  VALUELESS_OPS,
} from './workflow-steps/branch.ts';
export type { BranchOp, Condition, ConditionContext } from './workflow-steps/branch.ts';
export { ROUND_ROBIN } from './workflow-steps/assign.ts';
export { WEBHOOK_ATTEMPTS } from './workflow-steps/webhook.ts';

/**
 * `draft`: saved, never activated (automatic triggers ignore it; a manual trigger runs it: the
 * builder's test run). `active` starts runs; `paused` and `archived` do not.
 */
export const WORKFLOW_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** `handed_off`: a person took the conversation over (an agent's reply or assignment, or an `assign` step). */
export const RUN_STATUSES = [
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
  'handed_off',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * How an ended run ended, as run history tells it: `completed` (its path's end), `timed_out`
 * (its last decision was a wait for a reply that timed out), `otherwise` (its last decision was
 * a branch's otherwise), `handed_off`, `failed`, `cancelled`. Null while it runs or waits.
 */
export const RUN_OUTCOMES = [
  'completed',
  'timed_out',
  'otherwise',
  'handed_off',
  'failed',
  'cancelled',
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** What starts a run besides an event or a hand (design.md §7). */
export const TRIGGER_TYPES = [
  'event',
  'manual',
  'message_received',
  'conversation_status',
  'list_reply',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
/** Triggers that listen (the inbox starts them), as against an API call. */
export const LISTENING_TRIGGERS = [
  'message_received',
  'conversation_status',
  'list_reply',
] as const;

/** `any`: the keyword anywhere in the message; `whole_word`: as a word; `exact`: the whole message. */
export const KEYWORD_MATCHES = ['any', 'whole_word', 'exact'] as const;
export type KeywordMatch = (typeof KEYWORD_MATCHES)[number];
export const MAX_KEYWORDS = 50;
export const MAX_KEYWORD_LENGTH = 100;
export const TRIGGER_STATUSES = ['resolved', 'open'] as const;

export type WorkflowTrigger =
  | { type: 'event'; event: string }
  | { type: 'manual' }
  | {
      type: 'message_received';
      keywords?: string[];
      match?: KeywordMatch;
      firstMessageOnly?: boolean;
      outsideHours?: boolean;
    }
  | { type: 'conversation_status'; to: (typeof TRIGGER_STATUSES)[number] }
  | { type: 'list_reply'; listId: string };

/** A run executes at most this many steps (a loop without a wait ends `failed`). */
export const MAX_RUN_STEPS = 1000;
export const MAX_STEPS = 100;
/** The longest `wait` or `wait_for_reply` timeout. */
export const MAX_DURATION_MS = 90 * 24 * 3600_000;

export interface WorkflowDefinition {
  name: string;
  trigger: WorkflowTrigger;
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
    if (['name', 'firstName', 'phone', 'email'].includes(second ?? '') && rest.length === 0)
      return null;
    if (second === 'attributes' && rest.length > 0) return null;
    return `{{${ref}}} is not a contact field: use {{contact.name}}, {{contact.firstName}}, {{contact.phone}}, {{contact.email}} or {{contact.attributes.KEY}}`;
  }
  if (root === 'reply') {
    if (second === 'text' && rest.length === 0) return null;
    if (second === 'listReply' && ['listId', 'rowId', 'title'].includes(rest[0] ?? '')) return null;
    return `{{${ref}}} is not part of a reply: use {{reply.text}} or {{reply.listReply.title}}`;
  }
  if (root === 'steps') {
    if (second && stepIds.has(second) && rest.length > 0) return null;
    return `{{${ref}}} must name a step of this workflow and a field of its result, like {{steps.ID.FIELD}}`;
  }
  return `{{${ref}}} is not something a run knows: use {{payload.X}}, {{contact.name}}, {{reply.text}} or {{steps.ID.FIELD}}`;
}

/** A keyword as matching reads it: accents and case aside, spaces collapsed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The trigger's problems (`trigger.keywords.2`), in plain words. */
export function triggerProblems(trigger: WorkflowTrigger): WorkflowProblem[] {
  const out: WorkflowProblem[] = [];
  switch (trigger.type) {
    case 'event':
      if (!EVENT_NAME.test(trigger.event ?? '')) {
        out.push({
          param: 'trigger.event',
          message:
            'Name the event with letters, digits and _ . : - (at most 100), like order.shipped',
        });
      }
      break;
    case 'message_received': {
      const keywords = trigger.keywords ?? [];
      if (keywords.length > MAX_KEYWORDS) {
        out.push({ param: 'trigger.keywords', message: `Use at most ${MAX_KEYWORDS} keywords` });
      }
      keywords.forEach((k, i) => {
        if (typeof k !== 'string' || normalizeText(k) === '') {
          out.push({ param: `trigger.keywords.${i}`, message: 'A keyword cannot be empty' });
        } else if (k.length > MAX_KEYWORD_LENGTH) {
          out.push({
            param: `trigger.keywords.${i}`,
            message: `Keep each keyword to ${MAX_KEYWORD_LENGTH} characters`,
          });
        }
      });
      if (trigger.match !== undefined && !KEYWORD_MATCHES.includes(trigger.match)) {
        out.push({
          param: 'trigger.match',
          message: 'Choose how keywords match: anywhere, as a whole word, or the exact message',
        });
      }
      break;
    }
    case 'conversation_status':
      if (!(TRIGGER_STATUSES as readonly string[]).includes(trigger.to)) {
        out.push({ param: 'trigger.to', message: 'Choose resolved or open' });
      }
      break;
    case 'list_reply':
      if (!trigger.listId) {
        out.push({
          param: 'trigger.listId',
          message: 'Choose the list whose replies start this workflow',
        });
      }
      break;
    case 'manual':
      break;
  }
  return out;
}

/** Every problem of a definition, in order (empty when it can be saved), in plain words. */
export function workflowProblems(def: WorkflowDefinition): WorkflowProblem[] {
  const out: WorkflowProblem[] = [];
  if (!def.name || def.name.trim() === '' || def.name.length > 200) {
    out.push({ param: 'name', message: 'Give the workflow a name (at most 200 characters)' });
  }
  out.push(...triggerProblems(def.trigger));
  if (def.steps.length === 0) out.push({ param: 'steps', message: 'Add a first step' });
  if (def.steps.length > MAX_STEPS) {
    out.push({ param: 'steps', message: `Use at most ${MAX_STEPS} steps` });
  }
  const ids = new Set<string>();
  def.steps.forEach((step, i) => {
    if (!STEP_ID.test(step.id ?? '')) {
      out.push({
        param: `steps.${i}.id`,
        message: 'Give the step an id of letters, digits, _ and - (at most 64)',
      });
    } else if (ids.has(step.id)) {
      out.push({ param: `steps.${i}.id`, message: `Another step is already called "${step.id}"` });
    }
    ids.add(step.id);
  });
  const checks: Omit<StepChecks, 'at'> = {
    refersTo(param, target) {
      if (target === undefined) return [];
      if (typeof target !== 'string' || !ids.has(target)) {
        return [
          {
            param,
            message: `Choose a step of this workflow to go to ("${String(target)}" is not one)`,
          },
        ];
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
            message:
              'Say how long: more than 0 and at most 90 days, as ISO 8601 (PT30S, PT15M, PT2H, P1D)',
          },
        ];
      }
      return [];
    },
  };
  def.steps.forEach((step, i) => {
    const at = `steps.${i}`;
    if (!(STEP_TYPES as readonly string[]).includes(step.type)) {
      out.push({
        param: `${at}.type`,
        message: `Choose what the step does (${STEP_TYPES.join(', ')})`,
      });
      return;
    }
    const kind = STEP_KINDS[step.type];
    const allowed = new Set<string>(['id', 'type', 'next', ...kind.fields]);
    for (const key of Object.keys(step)) {
      if (!allowed.has(key)) {
        out.push({
          param: `${at}.${key}`,
          message: `A "${kind.label}" step has no setting "${key}"`,
        });
      }
    }
    const missing = new Set<string>();
    for (const key of kind.required) {
      if (step[key] === undefined || step[key] === '' || step[key] === null) {
        missing.add(key);
        out.push({
          param: `${at}.${key}`,
          message: kind.missing[key] ?? `A "${kind.label}" step needs ${key}`,
        });
      }
    }
    out.push(...checks.refersTo(`${at}.next`, step.next));
    // A missing field is said once, in the registry's words, not again by the type's checks.
    if (kind.validate) {
      out.push(
        ...kind
          .validate(step, { ...checks, at })
          .filter((p) => !missing.has(p.param.slice(at.length + 1))),
      );
    }
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
    /** The name's first word (shared/placeholders.ts `firstNameOf`). */
    firstName: string | null;
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
