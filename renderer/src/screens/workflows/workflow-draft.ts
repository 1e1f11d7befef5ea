/**
 * The workflow builder's model: the draft, and how its fields and problems are named — by the
 * same dot path as the API's `error.param` (`steps.3.duration`), so the core's answer lands on
 * the same step and field. What differs by step type (a new step, the definition a draft saves)
 * is workflow-definition.ts, through the step registry (steps/).
 */
import {
  parseDuration,
  type KeywordMatch,
  type StepDefinition,
  type StepType,
  type TriggerType,
  type WorkflowProblem,
  type WorkflowTrigger,
} from '../../../../shared/workflow-rules.ts';
import { stepLabel } from '../../../../shared/workflow-steps/index.ts';

export type {
  KeywordMatch,
  StepDefinition,
  StepType,
  TriggerType,
  WorkflowProblem,
  WorkflowTrigger,
};

/**
 * A step as edited: its definition, a stable React key, a webhook body's text as typed, and
 * what was typed into a chip box (labels) but not added yet — saved with the chips.
 */
export type StepDraft = StepDefinition & {
  key: string;
  bodyText?: string;
  typed?: Partial<Record<string, string>>;
};

/** The triggers in the order the builder offers them: a customer's message first. */
export const TRIGGER_CHOICES: readonly TriggerType[] = [
  'message_received',
  'event',
  'manual',
  'conversation_status',
  'list_reply',
];

/**
 * The trigger as edited: every type's fields at once, so switching the type and back keeps
 * what was typed; `keywordText` is a keyword typed but not added (saved with the chips).
 */
export interface TriggerDraft {
  type: TriggerType;
  event: string;
  keywords: string[];
  keywordText: string;
  match: KeywordMatch;
  firstMessageOnly: boolean;
  outsideHours: boolean;
  to: 'resolved' | 'open';
  listId: string;
}

export interface WorkflowDraft {
  name: string;
  trigger: TriggerDraft;
  steps: StepDraft[];
}

export const emptyTrigger = (type: TriggerType = 'message_received'): TriggerDraft => ({
  type,
  event: '',
  keywords: [],
  keywordText: '',
  match: 'any',
  firstMessageOnly: false,
  outsideHours: false,
  to: 'resolved',
  listId: '',
});

export const emptyDraft = (): WorkflowDraft => ({ name: '', trigger: emptyTrigger(), steps: [] });

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
  return step ? `Step ${index + 1} · ${stepLabel(step.type)}` : `“${id}” (missing)`;
}

/** The field of a step that holds one of its paths: `next`, `onTimeout`, `conditions.0.goto`… */
export type PathField = 'next' | 'onTimeout' | 'onError' | 'else' | `conditions.${number}.goto`;

export interface Path {
  /** What takes this path, in words ("Replied", "No reply after 1 minute", "Otherwise"); '' for plain "then". */
  label: string;
  /** The step it leads to; null ends the run ('' for a condition: not chosen yet). */
  target: string | null;
  /** The following step by position (drawn as the flow's arrow rather than a jump). */
  follows: boolean;
  /** Where the step keeps it. */
  field: PathField;
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
