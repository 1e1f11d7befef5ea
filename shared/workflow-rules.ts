/**
 * Workflows' rules (design.md §4 Workflows): step types and their fields, ISO 8601 durations,
 * template strings, branch operators, and the checks a definition must pass — the core answers
 * 400 `validation_error` naming the step's field (`steps.3.duration`), and a builder can show the
 * same problems as they are made. No zod, no Node, no DOM.
 */
import { fillFrom, parseTemplate } from './template-strings.ts';

export const STEP_TYPES = [
  'send_template',
  'send_text',
  'send_list',
  'wait',
  'wait_for_reply',
  'branch',
  'webhook',
  'update_conversation',
  'end',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const BRANCH_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists'] as const;
export type BranchOp = (typeof BRANCH_OPS)[number];

export const WORKFLOW_STATUSES = ['active', 'paused', 'archived'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

export const RUN_STATUSES = ['running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run executes at most this many steps (a loop without a wait ends `failed`). */
export const MAX_RUN_STEPS = 1000;
export const MAX_STEPS = 100;
/** The longest `wait` or `wait_for_reply` timeout. */
export const MAX_DURATION_MS = 90 * 24 * 3600_000;
export const WEBHOOK_ATTEMPTS = 5;

export interface Condition {
  if: { value: string; op: BranchOp; equals?: string | number | boolean | null };
  goto: string;
}

/** A step as written; fields beyond its type's are refused. */
export interface StepDefinition {
  id: string;
  type: StepType;
  next?: string;
  templateName?: string;
  variables?: Record<string, string>;
  text?: string;
  listId?: string;
  duration?: string;
  timeout?: string;
  onTimeout?: string;
  conditions?: Condition[];
  else?: string;
  url?: string;
  method?: string;
  body?: unknown;
  onError?: string;
  status?: string;
  assignee?: string | null;
  addLabels?: string[];
  removeLabels?: string[];
}

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
export const STEP_FIELDS: Record<StepType, readonly (keyof StepDefinition)[]> = {
  send_template: ['templateName', 'variables'],
  send_text: ['text'],
  send_list: ['listId'],
  wait: ['duration'],
  wait_for_reply: ['timeout', 'onTimeout'],
  branch: ['conditions', 'else'],
  webhook: ['url', 'method', 'body', 'onError'],
  update_conversation: ['status', 'assignee', 'addLabels', 'removeLabels'],
  end: [],
};
const REQUIRED: Partial<Record<StepType, readonly (keyof StepDefinition)[]>> = {
  send_template: ['templateName'],
  send_text: ['text'],
  send_list: ['listId'],
  wait: ['duration'],
  wait_for_reply: ['timeout'],
  branch: ['conditions'],
  webhook: ['url'],
};
const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'];
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
  const refersTo = (param: string, target: unknown) => {
    if (target === undefined) return;
    if (typeof target !== 'string' || !ids.has(target)) {
      out.push({ param, message: `"${String(target)}" is not a step of this workflow` });
    }
  };
  const strings = (param: string, text: unknown) => {
    if (typeof text !== 'string') return;
    for (const ref of templateRefs(text)) {
      const problem = refProblem(ref, ids);
      if (problem) out.push({ param, message: problem });
    }
  };
  const duration = (param: string, text: unknown) => {
    const ms = typeof text === 'string' ? parseDuration(text) : null;
    if (ms === null || ms <= 0 || ms > MAX_DURATION_MS) {
      out.push({
        param,
        message: 'a duration is ISO 8601 (PT2S, PT15M, P1D), more than 0 and at most 90 days',
      });
    }
  };
  def.steps.forEach((step, i) => {
    const at = `steps.${i}`;
    if (!(STEP_TYPES as readonly string[]).includes(step.type)) {
      out.push({ param: `${at}.type`, message: `type is one of ${STEP_TYPES.join(', ')}` });
      return;
    }
    const allowed = new Set<string>(['id', 'type', 'next', ...STEP_FIELDS[step.type]]);
    for (const key of Object.keys(step)) {
      if (!allowed.has(key)) {
        out.push({ param: `${at}.${key}`, message: `a ${step.type} step has no field ${key}` });
      }
    }
    for (const key of REQUIRED[step.type] ?? []) {
      if (step[key] === undefined || step[key] === '') {
        out.push({ param: `${at}.${key}`, message: `a ${step.type} step needs ${key}` });
      }
    }
    refersTo(`${at}.next`, step.next);
    switch (step.type) {
      case 'send_template':
        for (const [k, v] of Object.entries(step.variables ?? {}))
          strings(`${at}.variables.${k}`, v);
        break;
      case 'send_text':
        strings(`${at}.text`, step.text);
        if (typeof step.text === 'string' && step.text.length > 4096) {
          out.push({ param: `${at}.text`, message: 'text is at most 4096 characters' });
        }
        break;
      case 'wait':
        duration(`${at}.duration`, step.duration);
        break;
      case 'wait_for_reply':
        duration(`${at}.timeout`, step.timeout);
        refersTo(`${at}.onTimeout`, step.onTimeout);
        break;
      case 'branch':
        (step.conditions ?? []).forEach((c, k) => {
          strings(`${at}.conditions.${k}.if.value`, c.if?.value);
          if (!(BRANCH_OPS as readonly string[]).includes(c.if?.op)) {
            out.push({
              param: `${at}.conditions.${k}.if.op`,
              message: `op is one of ${BRANCH_OPS.join(', ')}`,
            });
          }
          refersTo(`${at}.conditions.${k}.goto`, c.goto ?? '');
        });
        if (step.conditions && step.conditions.length === 0) {
          out.push({ param: `${at}.conditions`, message: 'a branch needs a condition' });
        }
        refersTo(`${at}.else`, step.else);
        break;
      case 'webhook': {
        let ok: boolean;
        try {
          ok = ['http:', 'https:'].includes(new URL(step.url ?? '').protocol);
        } catch {
          ok = false;
        }
        if (!ok) out.push({ param: `${at}.url`, message: 'url is an http(s) URL' });
        if (step.method !== undefined && !['POST', 'PUT', 'PATCH'].includes(step.method)) {
          out.push({ param: `${at}.method`, message: 'method is POST, PUT or PATCH' });
        }
        if (step.body !== undefined) strings(`${at}.body`, JSON.stringify(step.body));
        refersTo(`${at}.onError`, step.onError);
        break;
      }
      case 'update_conversation':
        if (step.status !== undefined && !CONVERSATION_STATUSES.includes(step.status)) {
          out.push({
            param: `${at}.status`,
            message: `status is one of ${CONVERSATION_STATUSES.join(', ')}`,
          });
        }
        if (
          step.status === undefined &&
          step.assignee === undefined &&
          !step.addLabels?.length &&
          !step.removeLabels?.length
        ) {
          out.push({ param: at, message: 'an update_conversation step changes something' });
        }
        break;
      default:
        break;
    }
  });
  return out;
}

/** The step after `index` when it names none: the following one, or the run's end (null). */
export const followingStep = (steps: readonly StepDefinition[], index: number): string | null =>
  steps[index]?.next ?? steps[index + 1]?.id ?? null;

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
 * Fills `{{…}}` from the run (shared/template-strings.ts, design.md §7): own properties only,
 * never a function; a missing value is its fallback (`{{payload.code | "none"}}`), else empty;
 * an object is its JSON.
 */
export function renderTemplateString(text: string, ctx: RunContext): string {
  return fillFrom(text, ctx, { missing: 'empty' }).text;
}
