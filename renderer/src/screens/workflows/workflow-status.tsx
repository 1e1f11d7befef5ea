import type { WorkflowStatus } from '../../../../shared/workflow-rules.ts';
import { Dialog } from '../../components/dialog.tsx';
import { FormError } from '../../components/form-error.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
import { useAction } from '../../components/use-action.ts';
import { notify } from '../../stores/toasts.ts';
import { api } from '../../api/client.ts';
import { useWorkflows, type Workflow } from '../../stores/workflows.ts';
import { useRightGate } from '../../components/needs-right.tsx';

/** A workflow's state in a word (the chip's; the colour repeats it). */
export const WORKFLOW_STATUS_WORDS: Readonly<Record<WorkflowStatus, string>> = {
  draft: 'Draft',
  active: 'Active',
  paused: 'Paused',
  archived: 'Archived',
};

/** A workflow's state in words (the word carries it; the colour repeats it). */
export function WorkflowStatusChip({ status }: { status: WorkflowStatus }) {
  return (
    <span
      className={`badge wstatus wstatus-${status}`}
      data-testid="wf-status"
      data-status={status}
    >
      {WORKFLOW_STATUS_WORDS[status]}
    </span>
  );
}

type StatusAction = 'activate' | 'deactivate' | 'archive';

const ACTIONS: Record<WorkflowStatus, { action: StatusAction; label: string }[]> = {
  draft: [{ action: 'activate', label: 'Activate' }],
  active: [
    { action: 'deactivate', label: 'Deactivate' },
    { action: 'archive', label: 'Archive' },
  ],
  paused: [
    { action: 'activate', label: 'Activate' },
    { action: 'archive', label: 'Archive' },
  ],
  archived: [{ action: 'activate', label: 'Activate' }],
};

const DONE: Record<WorkflowStatus, string> = {
  draft: 'is a draft: it starts no runs',
  active: 'is active: its trigger starts runs',
  paused: 'is paused: it starts no runs; runs in flight go on',
  archived: 'is archived: it starts no runs',
};

const perform = (workflow: Workflow, action: StatusAction): Promise<Workflow> =>
  action === 'activate'
    ? api.workflows.activate(workflow.id)
    : action === 'deactivate'
      ? api.workflows.deactivate(workflow.id)
      : useWorkflows.getState().setStatus(workflow.id, 'archived');

/** Activate (its draft too), deactivate or archive (only active workflows start runs; runs in flight go on). */
export function StatusActions({
  workflow,
  onChange,
  small = false,
}: {
  workflow: Workflow;
  onChange?: (workflow: Workflow) => void;
  small?: boolean;
}) {
  const { busy, error, run } = useAction();
  const { gate } = useRightGate('automation.write');
  return (
    <>
      {ACTIONS[workflow.status].map(({ action, label }) => (
        <button
          key={action}
          type="button"
          className={`button${small ? ' button-small' : ''}`}
          {...gate}
          disabled={busy || gate.disabled}
          aria-label={`${label} ${workflow.name}`}
          onClick={() =>
            void run(async () => {
              const saved = await perform(workflow, action);
              useWorkflows.getState().apply(saved);
              onChange?.(saved);
              notify('success', `“${saved.name}” ${DONE[saved.status]}.`);
            })
          }
          data-testid={`wf-${action}`}
        >
          {label}
        </button>
      ))}
      <FormError error={error} />
    </>
  );
}

/**
 * The signing secret of a workflow's webhook steps, shown once: a new workflow's (only when it has
 * a webhook step), or a rotated one's.
 */
export function SecretDialog({
  secret,
  rotated = false,
  onClose,
}: {
  secret: string;
  rotated?: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog
      title={rotated ? 'The new signing secret' : 'Workflow saved: its signing secret'}
      onClose={onClose}
      testId="wf-secret-dialog"
      footer={
        <button
          type="button"
          className="button button-primary"
          onClick={onClose}
          data-testid="wf-secret-close"
        >
          Done
        </button>
      }
    >
      <p data-testid="wf-secret-lead">
        {rotated ? 'From now on its' : 'Its'} webhook steps sign their requests with this secret
        (header <code>X-Parley-Signature</code>), so your server can check they come from Parley.
        {rotated ? ' The old secret no longer signs anything: give your server this one.' : ''}
      </p>
      <SecretBox secret={secret} testId="wf-secret" copyTestId="wf-secret-copy" />
      <div className="banner banner-warning" role="note">
        Copy it now: it will not be shown again.
      </div>
    </Dialog>
  );
}
