/**
 * The step registry, builder side: each step type's editor, by type, for the step card (the
 * frame), the flow's paths and the draft to look up. A type's editor is the module named as its
 * rules' module in shared/workflow-steps/; the `satisfies` below refuses a registry that misses one.
 */
import type { StepType } from '../../../../../shared/workflow-steps/index.ts';
import { assign } from './assign.tsx';
import { branch } from './branch.tsx';
import { end } from './end.tsx';
import { sendList } from './send-list.tsx';
import { sendTemplate } from './send-template.tsx';
import { sendText } from './send-text.tsx';
import type { StepEditor } from './step-editor.ts';
import { updateConversation } from './update-conversation.tsx';
import { waitForReply } from './wait-for-reply.tsx';
import { wait } from './wait.tsx';
import { webhook } from './webhook.tsx';

const editors = {
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
} satisfies { [T in StepType]: StepEditor<T> };

/** An editor, whichever type (its hooks take the draft as edited). */
export type AnyStepEditor = StepEditor<StepType>;

export const STEP_EDITORS: Readonly<Record<StepType, AnyStepEditor>> = editors;

export type { PathTo, StepEditor, StepFieldsProps, TargetField } from './step-editor.ts';
