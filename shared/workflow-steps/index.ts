/**
 * The step registry, shared side: every workflow step type, its definition's type (`Step`, the
 * discriminated union) and its rules (`STEP_KINDS`). A new type is a module in this folder, added
 * here; the core's executor (main/core/modules/workflows/steps/) and the builder's editor
 * (renderer/src/screens/workflows/steps/) are found by the same file name, and a test fails
 * until all three exist.
 */
import { assign, type AssignStep } from './assign.ts';
import { branch, type BranchStep } from './branch.ts';
import { end, type EndStep } from './end.ts';
import { sendList, type SendListStep } from './send-list.ts';
import { sendTemplate, type SendTemplateStep } from './send-template.ts';
import { sendText, type SendTextStep } from './send-text.ts';
import type { WorkflowProblem } from '../workflow-rules.ts';
import type { StepBase, StepChecks, StepKind } from './step-kind.ts';
import { updateConversation, type UpdateConversationStep } from './update-conversation.ts';
import { waitForReply, type WaitForReplyStep } from './wait-for-reply.ts';
import { wait, type WaitStep } from './wait.ts';
import { webhook, type WebhookStep } from './webhook.ts';

/** A valid step (a saved definition's), by its type. */
export type Step =
  | SendTemplateStep
  | SendTextStep
  | SendListStep
  | WaitStep
  | WaitForReplyStep
  | BranchStep
  | WebhookStep
  | UpdateConversationStep
  | AssignStep
  | EndStep;
export type StepType = Step['type'];
export type StepOf<T extends StepType> = Extract<Step, { type: T }>;

// Every type's own fields in one object type (the types' field names do not overlap).
type FieldsOf<S> = S extends StepBase ? Omit<S, keyof StepBase> : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (u: infer I) => void
  ? I
  : never;

/**
 * A step as written (the API's body, the builder's draft): any type's fields, each optional —
 * the rules, not the type, say which belong (`steps.3.url`: a send_text step has no field url).
 */
export type StepDefinition = StepBase<StepType> & Partial<Intersection<FieldsOf<Step>>>;
export type StepField = Exclude<keyof StepDefinition, keyof StepBase>;

/** A step type's rules, whichever type (its checks take the step as written). */
export interface AnyStepKind {
  type: StepType;
  label: string;
  fields: readonly StepField[];
  required: readonly StepField[];
  missing: { readonly [F in StepField]?: string };
  validate?(step: StepDefinition, check: StepChecks): WorkflowProblem[];
}

const kinds = {
  send_template: sendTemplate,
  send_text: sendText,
  send_list: sendList,
  wait,
  wait_for_reply: waitForReply,
  branch,
  webhook,
  update_conversation: updateConversation,
  assign,
  end,
} satisfies { [T in StepType]: StepKind<StepOf<T>> };

/** Every step type's rules, by type, in the order the builder offers them. */
export const STEP_KINDS: Readonly<Record<StepType, AnyStepKind>> = kinds;

export const STEP_TYPES: readonly StepType[] = Object.keys(kinds) as StepType[];

export const isStepType = (type: string): type is StepType => Object.hasOwn(kinds, type);

/** A step type in words ("Wait for a reply"); an unknown one as it is written. */
export const stepLabel = (type: string): string =>
  isStepType(type) ? STEP_KINDS[type].label : type;

export type { FieldOf, StepBase, StepChecks, StepKind, Written } from './step-kind.ts';
