/**
 * The workflow builder's model: the form's draft, and how its fields and problems are named — by
 * the same dot path as the API's `error.param` (`steps.3.duration`), so the core's answer lands
 * on the same step and field. What differs by step type (a new step, the definition a draft
 * saves) is workflow-definition.ts, through the step registry (steps/).
 */
import {
  parseDuration,
  type StepDefinition,
  type StepType,
  type WorkflowProblem,
} from '../../../../shared/workflow-rules.ts';
import { stepLabel } from '../../../../shared/workflow-steps/index.ts';

export type { StepDefinition, StepType, WorkflowProblem };

/** A step as edited: its definition, a stable React key, and a webhook body's text as typed. */
export type StepDraft = StepDefinition & { key: string; bodyText?: string };

export interface WorkflowDraft {
  name: string;
  triggerType: 'event' | 'manual';
  event: string;
  steps: StepDraft[];
}

export const emptyDraft = (): WorkflowDraft => ({
  name: '',
  triggerType: 'event',
  event: '',
  steps: [],
});

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

export interface Path {
  /** What takes this path ("If …", "Otherwise", "On timeout", "then"). */
  label: string;
  /** The step it leads to; null ends the run. */
  target: string | null;
  /** The following step by position (drawn as the flow's arrow rather than a jump). */
  follows: boolean;
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
