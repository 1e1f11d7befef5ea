import { CONVERSATION_STATUSES } from '../../../../../shared/workflow-steps/update-conversation.ts';
import { controlProps, Field, LabelsInput, MemberOptions } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

export const updateConversation: StepEditor<'update_conversation'> = {
  type: 'update_conversation',
  hint: 'Changes the conversation’s status, assignee or labels.',
  idPrefix: 'update',
  defaults: {},
  Fields: UpdateConversationFields,
};

function UpdateConversationFields({ step, field, set }: StepFieldsProps) {
  const assignee = step.assignee === undefined ? '' : step.assignee === null ? '-' : step.assignee;
  const statusField = field('status');
  const assigneeField = field('assignee');
  const labels = (name: 'addLabels' | 'removeLabels', label: string) => (
    <Field {...field(name)} label={label}>
      <LabelsInput
        {...field(name)}
        labels={step[name] ?? []}
        onChange={(next) => set(name, { [name]: next })}
        text={step.typed?.[name] ?? ''}
        onText={(typed) => set(name, { typed: { ...step.typed, [name]: typed } })}
      />
    </Field>
  );
  return (
    <>
      <div className="wf-field-row">
        <Field {...statusField} label="Status">
          <select
            className="select"
            value={step.status ?? ''}
            onChange={(e) => set('status', { status: e.target.value || undefined })}
            {...controlProps(statusField.id, statusField.error)}
          >
            <option value="">Leave as it is</option>
            {CONVERSATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.charAt(0).toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </Field>
        <Field {...assigneeField} label="Assignee">
          <select
            className="select"
            value={assignee}
            onChange={(e) =>
              set('assignee', {
                assignee:
                  e.target.value === ''
                    ? undefined
                    : e.target.value === '-'
                      ? null
                      : e.target.value,
              })
            }
            {...controlProps(assigneeField.id, assigneeField.error)}
          >
            <option value="">Leave as it is</option>
            <option value="-">Unassign</option>
            <MemberOptions
              value={assignee === '-' ? undefined : assignee}
              gone="An agent no longer here"
            />
          </select>
        </Field>
      </div>
      <div className="wf-field-row">
        {labels('addLabels', 'Add labels')}
        {labels('removeLabels', 'Remove labels')}
      </div>
    </>
  );
}
