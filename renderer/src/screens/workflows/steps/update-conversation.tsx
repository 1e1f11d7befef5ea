import { useEffect } from 'react';
import { CONVERSATION_STATUSES } from '../../../../../shared/workflow-steps/update-conversation.ts';
import { useAgents } from '../../../stores/agents.ts';
import { controlProps, Field, LabelsInput } from '../step-fields.tsx';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

function UpdateConversationFields({ step, at, id, err, set }: StepFieldsProps) {
  const agents = useAgents((s) => s.agents);
  const ensureAgents = useAgents((s) => s.ensureLoaded);
  useEffect(() => ensureAgents(), [ensureAgents]);
  const assignee = step.assignee === undefined ? '' : step.assignee === null ? '-' : step.assignee;
  return (
    <>
      <div className="wf-field-row">
        <Field id={id('status')} label="Status" error={err(`${at}.status`)}>
          <select
            className="select"
            value={step.status ?? ''}
            onChange={(e) => set('status', { status: e.target.value || undefined })}
            {...controlProps(id('status'), err(`${at}.status`))}
          >
            <option value="">Leave as it is</option>
            {CONVERSATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.charAt(0).toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </Field>
        <Field id={id('assignee')} label="Assignee" error={err(`${at}.assignee`)}>
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
            {...controlProps(id('assignee'), err(`${at}.assignee`))}
          >
            <option value="">Leave as it is</option>
            <option value="-">Unassign</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
            {assignee && assignee !== '-' && !agents.some((a) => a.id === assignee) ? (
              <option value={assignee}>An agent no longer here</option>
            ) : null}
          </select>
        </Field>
      </div>
      <div className="wf-field-row">
        <Field id={id('addLabels')} label="Add labels" error={err(`${at}.addLabels`)}>
          <LabelsInput
            id={id('addLabels')}
            labels={step.addLabels ?? []}
            onChange={(addLabels) => set('addLabels', { addLabels })}
            error={err(`${at}.addLabels`)}
          />
        </Field>
        <Field id={id('removeLabels')} label="Remove labels" error={err(`${at}.removeLabels`)}>
          <LabelsInput
            id={id('removeLabels')}
            labels={step.removeLabels ?? []}
            onChange={(removeLabels) => set('removeLabels', { removeLabels })}
            error={err(`${at}.removeLabels`)}
          />
        </Field>
      </div>
    </>
  );
}

export const updateConversation: StepEditor<'update_conversation'> = {
  type: 'update_conversation',
  hint: 'Changes the conversation’s status, assignee or labels.',
  idPrefix: 'update',
  defaults: {},
  Fields: UpdateConversationFields,
};
