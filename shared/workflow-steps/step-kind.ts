/**
 * What a workflow step type is to the rules the core and the builder share: its fields, the ones
 * it needs, its label, and its own checks. One module a type in this folder; index.ts is the
 * registry. No zod, no Node, no DOM: the renderer imports this at runtime (zod's code generator
 * breaks the page's CSP), and the API's step schema stays open so these checks name the field.
 */
import type { WorkflowProblem } from '../workflow-rules.ts';

/** What every step has, whatever its type. */
export interface StepBase<T extends string = string> {
  id: string;
  type: T;
  next?: string;
}

/** A step as written, before the rules: its type's fields may be missing. */
export type Written<S extends StepBase> = StepBase<S['type']> & Partial<Omit<S, keyof StepBase>>;

/** The name of one of a step type's own fields (not `id`, `type` or `next`). */
export type FieldOf<S extends StepBase> = Exclude<keyof S, keyof StepBase> & string;

/**
 * The checks a step type's rules are made of, bound to one definition (its step ids) and one
 * step (`at`, its param prefix: `steps.3`). Each answers its problems, none when it holds.
 */
export interface StepChecks {
  at: string;
  /** `target`, when given, names a step of this workflow. */
  refersTo(param: string, target: unknown): WorkflowProblem[];
  /** Every `{{…}}` of `text`, when it is a string, names something a run has. */
  strings(param: string, text: unknown): WorkflowProblem[];
  /** `text` is an ISO 8601 duration, more than 0 and at most MAX_DURATION_MS. */
  duration(param: string, text: unknown): WorkflowProblem[];
}

export interface StepKind<S extends StepBase> {
  type: S['type'];
  /** The type in words ("Send a text"): the builder's, the run history's. */
  label: string;
  /** Its fields besides `id`, `type` and `next`; any other is refused. */
  fields: readonly FieldOf<S>[];
  /** The fields it cannot do without (missing or '' is a problem named by the field). */
  required: readonly FieldOf<S>[];
  /** What to tell the owner when a required field is missing, in plain words ("Choose a template to send"). */
  missing: { readonly [F in FieldOf<S>]?: string };
  /** Its own problems, after the fields and `next` have been checked. */
  validate?(step: Written<S>, check: StepChecks): WorkflowProblem[];
}
