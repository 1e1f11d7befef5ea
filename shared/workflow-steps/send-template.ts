import type { StepBase, StepKind } from './step-kind.ts';

/** An approved template, its `{{n}}` variables filled from the run. */
export interface SendTemplateStep extends StepBase<'send_template'> {
  templateName: string;
  variables?: Record<string, string>;
}

export const sendTemplate: StepKind<SendTemplateStep> = {
  type: 'send_template',
  label: 'Send a template',
  fields: ['templateName', 'variables'],
  required: ['templateName'],
  missing: { templateName: 'Choose a template to send' },
  validate: (step, { at, strings }) =>
    Object.entries(step.variables ?? {}).flatMap(([k, v]) => strings(`${at}.variables.${k}`, v)),
};
