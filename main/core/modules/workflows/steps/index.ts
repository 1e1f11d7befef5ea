/**
 * The step registry, core side: each step type's executor, by type, for the engine to dispatch
 * through (service.ts). A type's executor is the module named as its rules' module in
 * shared/workflow-steps/; the `satisfies` below refuses a registry that misses one.
 */
import type { StepDefinition, StepType } from '../../../../../shared/workflow-steps/index.ts';
import { assign } from './assign.ts';
import { branch } from './branch.ts';
import { end } from './end.ts';
import { sendList } from './send-list.ts';
import { sendTemplate } from './send-template.ts';
import { sendText } from './send-text.ts';
import type { Outcome, ScopeContext, StepContext, StepExecutor } from './step-executor.ts';
import { updateConversation } from './update-conversation.ts';
import { waitForReply } from './wait-for-reply.ts';
import { wait } from './wait.ts';
import { webhook } from './webhook.ts';

/**
 * An executor, whichever type. It takes a saved definition's step, which the rules passed when
 * it was saved: its type's fields are there (the one place the engine trusts that).
 */
export interface AnyStepExecutor {
  type: StepType;
  execute(step: StepDefinition, run: StepContext): Outcome;
  checkScope?(step: StepDefinition, at: string, saving: ScopeContext): void;
  keepsOutput?: false;
}

const executors = {
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
} satisfies { [T in StepType]: StepExecutor<T> };

export const STEP_EXECUTORS: Readonly<Record<StepType, AnyStepExecutor>> = executors;

export type { Handed, HandOver, Outcome, ScopeContext, StepContext } from './step-executor.ts';
