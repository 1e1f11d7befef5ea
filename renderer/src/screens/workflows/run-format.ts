/**
 * A workflow run told in words (README "Run history"): how it ended (its outcome, each with its
 * own words and colour), what each step did as readable fields, and when a waiting step times
 * out. Pure: no React, no store, the time passed in, so the unit tests can hold it.
 */
import { parseDuration, RUN_OUTCOMES, type RunOutcome } from '../../../../shared/workflow-rules.ts';
import { formatClock, formatDayTime } from '../../components/format.ts';
import { formatDuration } from '../campaigns/campaign-format.ts';

/** What a run's chip shows: its outcome once it ended, else whether it runs or waits. */
export type RunState = RunOutcome | 'running' | 'waiting';

/** The colour family of a state; the words say the same (colour is never the only sign). */
export type Tone =
  'running' | 'waiting' | 'success' | 'timeout' | 'otherwise' | 'handoff' | 'danger' | 'neutral';

export interface StateLook {
  label: string;
  tone: Tone;
  /** One sentence for a tooltip and a screen reader. */
  meaning: string;
}

export const RUN_STATE_LOOKS: Record<RunState, StateLook> = {
  running: { label: 'Running', tone: 'running', meaning: 'A step is running now.' },
  waiting: {
    label: 'Waiting',
    tone: 'waiting',
    meaning: 'Paused at a wait step: a reply or a time moves it on.',
  },
  completed: { label: 'Completed', tone: 'success', meaning: 'It went through to the end.' },
  timed_out: {
    label: 'Timed out',
    tone: 'timeout',
    meaning: 'The customer did not reply in time.',
  },
  otherwise: {
    label: 'Otherwise',
    tone: 'otherwise',
    meaning: 'No condition of a branch held, so it took “otherwise”.',
  },
  handed_off: {
    label: 'Handed off',
    tone: 'handoff',
    meaning: 'A person took the conversation over; the automation stopped.',
  },
  failed: { label: 'Failed', tone: 'danger', meaning: 'A step failed and the run stopped.' },
  cancelled: { label: 'Cancelled', tone: 'neutral', meaning: 'Someone cancelled it.' },
};

const isOutcome = (value: unknown): value is RunOutcome =>
  (RUN_OUTCOMES as readonly unknown[]).includes(value);

/** What a run is, from its status and outcome (older runs, recorded before outcomes, have none). */
export function runState(run: { status: string; outcome?: string | null }): RunState {
  if (isOutcome(run.outcome)) return run.outcome;
  if (run.status === 'running' || run.status === 'waiting') return run.status;
  return isOutcome(run.status) ? run.status : 'failed';
}

/** The name a run goes by: its contact's, else the phone. */
export const runContact = (run: { phone: string; contactName?: string | null }): string =>
  run.contactName?.trim() || run.phone;

// ---------- durations and times ----------

/** "45 s", "1 min", "1 h 20 min", "3 days": a span in the words a person would say. */
export const spanText = (ms: number): string => formatDuration(ms / 1000);

/** How far off an instant is, rounded up so it never says "in 0 min" while time is left. */
function untilText(ms: number): string {
  if (ms <= 0) return 'any moment now';
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `in ${seconds} s`;
  return `in ${spanText(Math.ceil(ms / 60_000) * 60_000)}`;
}

/**
 * When a waiting step gives up: "times out at 14:05, in 3 min" (a day and time when it is not
 * today). `now` moves it along: the screen renders it again every few seconds.
 */
export function timesOutText(timesOutAt: string, now: number): string {
  const at = new Date(timesOutAt);
  if (Number.isNaN(at.getTime())) return 'times out later';
  const left = at.getTime() - now;
  if (left <= 0) return 'timing out now';
  const sameDay = new Date(now).toDateString() === at.toDateString();
  return `times out ${sameDay ? `at ${formatClock(at)}` : `on ${formatDayTime(at)}`}, ${untilText(left)}`;
}

/** "waiting for a reply — times out at 14:05, in 3 min" (or for the time, a wait step's). */
export function waitingText(
  type: string,
  timesOutAt: string | null | undefined,
  now: number,
): string {
  const what = type === 'wait' ? 'waiting' : 'waiting for a reply';
  if (!timesOutAt) return what;
  if (type === 'wait') {
    const left = Date.parse(timesOutAt) - now;
    const at = new Date(timesOutAt);
    return left <= 0 ? 'going on now' : `waiting until ${formatClock(at)}, ${untilText(left)}`;
  }
  return `${what} — ${timesOutText(timesOutAt, now)}`;
}

// ---------- steps ----------

/** A run's step as the API answers it (GET /workflows/runs/:id). */
export interface RunStepLike {
  stepId: string;
  type: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  output: unknown;
  error: string | null;
}

export interface ResultField {
  /** Stable per kind of field (`sent`, `answer`, `branch`, `why`…): a test and a style hold on to it. */
  key: string;
  label: string;
  value: string;
  /** The customer's or the business's own words, shown as a quote. */
  quoted?: boolean;
}

export interface StepResult {
  /** How the step ended in a word ("Replied", "Timed out", "Otherwise"), when it says. */
  outcome: { key: string; label: string; tone: Tone } | null;
  fields: ResultField[];
}

const STEP_OUTCOME_LOOKS: Record<string, { label: string; tone: Tone }> = {
  sent: { label: 'Sent', tone: 'success' },
  replied: { label: 'Replied', tone: 'success' },
  timed_out: { label: 'Timed out', tone: 'timeout' },
  matched: { label: 'Matched', tone: 'success' },
  otherwise: { label: 'Otherwise', tone: 'otherwise' },
  waited: { label: 'Done', tone: 'success' },
  handed_off: { label: 'Handed off', tone: 'handoff' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Rec, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const str = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() !== ''
    ? v
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : null;
const recOf = (v: unknown): Rec => (isRec(v) ? v : {});

/** "cartId" → "Cart id": a key the engine (or a webhook's answer) wrote, in words. */
export function fieldLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a value reads as: words as they are, a list joined, an object as `Key: value` pairs. */
function valueText(value: unknown): string | null {
  const plain = str(value);
  if (plain !== null) return plain;
  if (Array.isArray(value)) {
    const parts = value.map(valueText).filter((v): v is string => v !== null);
    return parts.length ? parts.join(', ') : null;
  }
  if (isRec(value)) {
    const parts = Object.keys(value)
      .map((k) => {
        const v = valueText(value[k]);
        return v === null ? null : `${fieldLabel(k)}: ${v}`;
      })
      .filter((v): v is string => v !== null);
    return parts.length ? parts.join(' · ') : null;
  }
  return null;
}

/** A wait's length in words, from its ISO 8601 duration ("PT1M" → "1 min"). */
function durationWords(iso: string | null): string | null {
  const ms = iso === null ? null : parseDuration(iso);
  return ms === null ? null : spanText(ms);
}

const whereNext = (target: string | null): string =>
  target ? `went on to ${target}` : 'the run ended there';

/** A webhook answers its JSON (kept as is) or, when it is not JSON, `{status, text}`. */
function webhookFields(output: unknown): [string, string][] {
  const out = recOf(output);
  const keys = Object.keys(out);
  if (typeof out.status === 'number' && keys.every((k) => k === 'status' || k === 'text')) {
    const text = str(out.text);
    return [
      ['Your server answered', `HTTP ${out.status}`],
      ...(text
        ? ([['Its answer', text.length > 300 ? `${text.slice(0, 300)}…` : text]] as [
            string,
            string,
          ][])
        : []),
    ];
  }
  const answer = valueText(output);
  if (answer === null) return [['Your server answered', 'OK, with no content']];
  return [['Your server answered', answer.length > 300 ? `${answer.slice(0, 300)}…` : answer]];
}

/**
 * A step's result as fields a person reads (README "Run history"): what was sent, what the
 * customer answered, which branch it took and why, what a webhook answered, who took over.
 * The output is the engine's (shared/schemas/workflows.ts `runStepSchema`).
 */
export function stepResult(step: RunStepLike): StepResult {
  const out = recOf(step.output);
  const said = str(own(out, 'outcome'));
  const key = said ?? (own(out, 'timedOut') === true ? 'timed_out' : null);
  const fields: ResultField[] = [];
  const add = (field: string, label: string, value: string | null, quoted = false) => {
    if (value !== null) fields.push({ key: field, label, value, ...(quoted ? { quoted } : {}) });
  };

  switch (step.type) {
    case 'send_text':
      add('sent', 'Sent', str(out.text), true);
      break;
    case 'send_template':
      add('template', 'Template', str(out.templateName));
      add('sent', 'Sent', str(out.text), true);
      break;
    case 'send_list': {
      add('list', 'List', str(out.listName) ?? str(out.listId));
      add('sent', 'Sent', str(out.text), true);
      const rows = Array.isArray(out.rows) ? out.rows : [];
      const titles = rows.map((r) => str(recOf(r).title)).filter((t): t is string => t !== null);
      if (titles.length) add('rows', 'Choices', titles.join(' · '));
      break;
    }
    case 'wait_for_reply': {
      const reply = recOf(out.reply);
      const picked = str(recOf(reply.listReply).title);
      if (key === 'replied') {
        if (picked) add('answer', 'Customer picked', picked, true);
        else add('answer', 'Customer answered', str(reply.text) ?? '(an empty message)', true);
      } else if (key === 'timed_out') {
        const waited = durationWords(str(out.timeout));
        add('answer', 'Customer answered', waited ? `nothing in ${waited}` : 'nothing in time');
        add(
          'then',
          'Then',
          str(out.next) ? `took the timeout path to ${str(out.next)}` : 'the run ended there',
        );
      } else if (step.status === 'waiting') {
        add('timeout', 'Waits up to', durationWords(str(out.timeout)));
      }
      break;
    }
    case 'wait':
      if (key === 'waited' && step.endedAt) {
        add('waited', 'Waited', spanText(Date.parse(step.endedAt) - Date.parse(step.startedAt)));
      }
      break;
    case 'branch': {
      const target = str(out.goto) ?? str(out.matched);
      if (key === 'otherwise') add('branch', 'Branch taken', `Otherwise — ${whereNext(target)}`);
      else {
        const index = typeof out.condition === 'number' ? out.condition + 1 : null;
        add(
          'branch',
          'Branch taken',
          `${index ? `Condition ${index}` : 'A condition'} — ${whereNext(target)}`,
        );
      }
      add('why', 'Why', str(out.reason));
      break;
    }
    case 'update_conversation':
      add('status', 'Status set to', str(out.status));
      if (Object.hasOwn(out, 'assignee')) {
        add(
          'assignee',
          'Assigned to',
          str(out.assigneeName) ?? str(out.assignee) ?? 'nobody (unassigned)',
        );
      }
      add('addedLabels', 'Labels added', valueText(out.addedLabels));
      add('removedLabels', 'Labels removed', valueText(out.removedLabels));
      break;
    case 'assign':
      if (step.status === 'completed') {
        add(
          'assignee',
          'Handed to',
          str(out.assigneeName) ?? str(out.assignee) ?? 'nobody: no one online had room',
        );
      }
      break;
    case 'webhook':
      if (step.status === 'completed') {
        for (const [label, value] of webhookFields(step.output)) add('answer', label, value);
      }
      break;
    case 'end':
      break;
    default:
      for (const k of Object.keys(out)) {
        if (['outcome', 'messageId', 'conversationId'].includes(k)) continue;
        add(k, fieldLabel(k), valueText(out[k]));
      }
  }
  if (step.status === 'cancelled') {
    add(
      'stopped',
      'Stopped',
      key === 'handed_off'
        ? 'a person took the conversation over here'
        : 'the run was cancelled here',
    );
  }
  const look = key
    ? (STEP_OUTCOME_LOOKS[key] ?? { label: fieldLabel(key), tone: 'neutral' as Tone })
    : null;
  return { outcome: look && key ? { key, ...look } : null, fields };
}

/** When a waiting step moves on by itself: a wait for a reply times out, a wait resumes. */
export function stepTimesOutAt(step: RunStepLike): string | null {
  if (step.status !== 'waiting') return null;
  const out = recOf(step.output);
  return str(out.timesOutAt) ?? str(out.resumesAt);
}

// ---------- the run's outcome in a sentence ----------

/**
 * What the run's outcome came from, when its steps say: "no reply in 1 min", "no condition held
 * for “maybe”", the error; null when the outcome says it all.
 */
export function outcomeDetail(
  run: { status: string; outcome?: string | null; error?: string | null },
  steps: readonly RunStepLike[] = [],
): string | null {
  const last = (f: (s: RunStepLike) => string | null): string | null => {
    for (let i = steps.length - 1; i >= 0; i--) {
      const found = f(steps[i]!);
      if (found !== null) return found;
    }
    return null;
  };
  const field = (s: RunStepLike, outcome: string, key: string): string | null => {
    const r = stepResult(s);
    return r.outcome?.key === outcome ? (r.fields.find((f) => f.key === key)?.value ?? null) : null;
  };
  switch (runState(run)) {
    case 'timed_out': {
      const waited = last((s) => field(s, 'timed_out', 'answer'));
      return waited?.startsWith('nothing in ')
        ? `no reply in ${waited.slice('nothing in '.length)}`
        : 'no reply in time';
    }
    case 'otherwise':
      return (
        last((s) => (s.type === 'branch' ? field(s, 'otherwise', 'why') : null)) ??
        'no condition held'
      );
    case 'handed_off':
      return 'a person took over';
    case 'failed':
      return run.error ?? null;
    default:
      return null;
  }
}

/** The run's outcome in a sentence: "Timed out — no reply in 1 min", "Completed". */
export function outcomeText(
  run: { status: string; outcome?: string | null; error?: string | null },
  steps: readonly RunStepLike[] = [],
): string {
  const label = RUN_STATE_LOOKS[runState(run)].label;
  const detail = outcomeDetail(run, steps);
  return detail ? `${label} — ${detail}` : label;
}

// ---------- where the run went ----------

/** The canvas's `highlight`: the steps the run went through, in order, and where it is now. */
export interface RunPath {
  stepIds: string[];
  current?: string;
}

export function runPath(run: {
  status: string;
  currentStepId: string | null;
  steps: readonly { stepId: string }[];
}): RunPath {
  const stepIds = [...new Set(run.steps.map((s) => s.stepId))];
  const inFlight = run.status === 'running' || run.status === 'waiting';
  const current = inFlight ? (run.currentStepId ?? stepIds.at(-1)) : undefined;
  return current ? { stepIds, current } : { stepIds };
}

/** What starts (or started) a run, after "started …": "by the customer’s message", "by hand". */
/**
 * Why a listening workflow may not start for a customer (design.md §7): it stays away from a
 * conversation for 24 h after a person replied in it or took it over. Null for other triggers.
 */
export function quietRuleWords(trigger: { type: string }): string | null {
  return trigger.type === 'message_received' || trigger.type === 'list_reply'
    ? 'It stays away from a conversation for 24 h after a person replies in it or takes it over (is assigned it), so a customer’s message there starts no run.'
    : null;
}

export function triggerWords(trigger: {
  type: string;
  event?: string | null;
  keywords?: readonly string[];
  to?: string;
}): string {
  switch (trigger.type) {
    case 'event':
      return trigger.event ? `by the event ${trigger.event}` : 'by an event';
    case 'manual':
      return 'by hand';
    case 'message_received':
      return trigger.keywords?.length
        ? `by a customer’s message with ${trigger.keywords.map((k) => `“${k}”`).join(' or ')}`
        : 'by the customer’s message';
    case 'conversation_status':
      return trigger.to === 'open'
        ? 'by a conversation opened again'
        : trigger.to === 'resolved'
          ? 'by a conversation resolved'
          : 'by a conversation’s status';
    case 'list_reply':
      return 'by a pick from a list';
    default:
      return `by ${fieldLabel(trigger.type).toLowerCase()}`;
  }
}
