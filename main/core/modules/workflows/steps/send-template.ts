import type { TemplateComponent } from '../../../../../shared/schemas/templates.ts';
import { renderTemplate } from '../../templates/rules.ts';
import type { StepExecutor } from './step-executor.ts';
import { failureOf } from './step-executor.ts';

export const sendTemplate: StepExecutor<'send_template'> = {
  type: 'send_template',
  execute(s, { scope, render, send, messages }) {
    const variables = Object.fromEntries(
      Object.entries(s.variables ?? {}).map(([k, v]) => [k, render(v)]),
    );
    const empty = Object.entries(variables).find(([, v]) => v.trim() === '');
    if (empty) return { kind: 'fail', error: `variable_missing: {{${empty[0]}}} renders empty` };
    let tpl;
    try {
      tpl = messages.sendableTemplate(scope, s.templateName, variables);
    } catch (e) {
      return failureOf(e);
    }
    return send({
      type: 'template',
      template_name: tpl.name,
      text: renderTemplate(JSON.parse(tpl.components) as TemplateComponent[], variables),
      variables: JSON.stringify(variables),
      category: tpl.category,
    });
  },
};
