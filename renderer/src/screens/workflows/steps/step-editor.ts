/**
 * What a workflow step type is to the builder: the part of the step card that is its own (its
 * form, the hint under its title, where it leads) and how its draft differs from what it saves.
 * One module a type in this folder, named as its rules' module in shared/workflow-steps/ (which
 * has its label and checks); index.ts is the registry step-card.tsx looks the type up in.
 */
import type { ComponentType } from 'react';
import type {
  StepBase,
  StepDefinition,
  StepOf,
  StepType,
} from '../../../../../shared/workflow-steps/index.ts';
import type { WorkflowProblem } from '../../../../../shared/workflow-rules.ts';
import type { StepTargetProps } from '../step-fields.tsx';
import type { Path, PathField, StepDraft } from '../workflow-draft.ts';

/** What a step's form is given by the card around it. */
export interface StepFieldsProps {
  steps: readonly StepDraft[];
  index: number;
  step: StepDraft;
  /** The step's param prefix: `steps.3`. */
  at: string;
  /** A field of the step: its DOM id (and test id, `wf-steps-3-text`) and its problem. */
  field: (name: string) => { id: string; error: string | undefined };
  /** The problem shown on a param (`steps.3.text`), if any. */
  err: (param: string) => string | undefined;
  /** A field changed: `field` names it under the step (its error from the core is dropped). */
  set: (field: string, patch: Partial<StepDraft>) => void;
  /** A field naming where the step goes, wired for a StepTargetField. */
  target: (name: TargetField) => StepTargetProps;
}

/** The fields that name another step (or none: the default way). */
export type TargetField = 'next' | 'onTimeout' | 'onError' | 'else';

/** A path to `target` (none: the run ends), labelled in words, kept in the step's `field`. */
export type PathTo = (label: string, target: string | null | undefined, field: PathField) => Path;

export interface StepEditor<T extends StepType> {
  type: T;
  /** Under the card's title: what the step does. */
  hint: string;
  /** A new step's id is `<idPrefix>_<n>`. */
  idPrefix: string;
  /** A new step's fields. */
  defaults: Partial<Omit<StepOf<T>, keyof StepBase>>;
  /** Its form (none: the card shows only its id and where it goes next). */
  Fields?: ComponentType<StepFieldsProps>;
  /** False: the step says where it goes itself (no "Then go to"). */
  next?: false;
  /** Where it leads, the canvas's labelled edges (none: `then`, where it goes next). */
  paths?(step: StepDraft, then: Path, path: PathTo): Path[];
  /** A saved step's fields that its draft edits in another shape (a webhook body as text). */
  toDraft?(step: StepDefinition): Partial<StepDraft>;
  /** The step as the API takes it, from its draft's fields (blank optional ones dropped). */
  toStep?(draft: StepDraft, out: Record<string, unknown>): Record<string, unknown>;
  /** Problems only a draft can have (a body that is not JSON), by the API's params. */
  draftProblems?(draft: StepDraft, at: string): WorkflowProblem[];
}
