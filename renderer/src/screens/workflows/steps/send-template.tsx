import { useEffect } from 'react';
import { TemplateSelect, VariableInputs } from '../../../components/template-picker.tsx';
import { useApprovedTemplates } from '../../../stores/approved-templates.ts';
import { Field, TEMPLATE_STRING_HINT } from '../step-fields.tsx';
import { fieldId } from '../workflow-draft.ts';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const sendTemplate: StepEditor<'send_template'> = {
  type: 'send_template',
  hint: 'An approved template, its variables filled from the run.',
  idPrefix: 'template',
  defaults: { templateName: '', variables: {} },
  Fields: SendTemplateFields,
};

function SendTemplateFields({ step, at, field, err, set }: StepFieldsProps) {
  const approved = useApprovedTemplates((s) => s.approved);
  const status = useApprovedTemplates((s) => s.status);
  const ensureLoaded = useApprovedTemplates((s) => s.ensureLoaded);
  useEffect(() => ensureLoaded(), [ensureLoaded]);
  const template = approved.find((t) => t.name === step.templateName) ?? null;
  const numbers = Array.from({ length: template?.variableCount ?? 0 }, (_, i) => String(i + 1));
  const variables = step.variables ?? {};
  const { id, error } = field('templateName');
  return (
    <>
      <Field
        id={id}
        label="Template"
        error={error}
        hint={
          step.templateName && !template && status === 'ready'
            ? `“${step.templateName}” is not an approved template now: choose another.`
            : undefined
        }
      >
        <TemplateSelect
          id={id}
          templates={approved}
          value={template?.id ?? ''}
          loading={status === 'loading' || status === 'idle'}
          testId={id}
          onChange={(templateId) => {
            const chosen = approved.find((t) => t.id === templateId);
            const count = chosen?.variableCount ?? 0;
            const next: Record<string, string> = {};
            for (let n = 1; n <= count; n++) next[String(n)] = variables[String(n)] ?? '';
            set('templateName', { templateName: chosen?.name ?? '', variables: next });
          }}
        />
      </Field>
      {numbers.length > 0 ? (
        <div className="field wf-variables">
          <span className="field-label">Variables</span>
          <VariableInputs
            numbers={numbers}
            values={variables}
            onChange={(update) =>
              set('variables', {
                variables: typeof update === 'function' ? update(variables) : update,
              })
            }
            testIdPrefix={fieldId(`${at}.variables`)}
            placeholders
          />
          {numbers.map((n) => {
            const message = err(`${at}.variables.${n}`);
            return message ? (
              <p
                key={n}
                className="field-error"
                data-testid={`${fieldId(`${at}.variables.${n}`)}-error`}
              >
                {`{{${n}}}`}: {message}
              </p>
            ) : null;
          })}
          <p className="hint">{TEMPLATE_STRING_HINT}</p>
        </div>
      ) : null}
    </>
  );
}
