import type { WorkflowStatus } from '../../../../shared/workflow-rules.ts';
import { Dialog } from '../../components/dialog.tsx';
import { FormError } from '../../components/form-error.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
import { useAction } from '../../components/use-action.ts';
import { notify } from '../../stores/toasts.ts';
import { WORKFLOW_STATUS_LABELS, useWorkflows, type Workflow } from '../../stores/workflows.ts';
import { useRightGate } from '../../components/needs-right.tsx';

/** A workflow's state in words (the word carries it; the colour repeats it). */
export function WorkflowStatusChip({ status }: { status: WorkflowStatus }) {
  return (
    <span
      className={`badge wstatus wstatus-${status}`}
      data-testid="wf-status"
      data-status={status}
    >
      {WORKFLOW_STATUS_LABELS[status]}
    </span>
  );
}

const ACTIONS: Record<WorkflowStatus, { to: WorkflowStatus; label: string }[]> = {
  active: [
    { to: 'paused', label: 'Pause' },
    { to: 'archived', label: 'Archive' },
  ],
  paused: [
    { to: 'active', label: 'Activate' },
    { to: 'archived', label: 'Archive' },
  ],
  archived: [{ to: 'active', label: 'Activate' }],
};

const DONE: Record<WorkflowStatus, string> = {
  active: 'is active: its trigger starts runs',
  paused: 'is paused: it starts no runs; runs in flight go on',
  archived: 'is archived: it starts no runs',
};

/** Activate, pause or archive (only active workflows start runs; runs in flight go on). */
export function StatusActions({
  workflow,
  onChange,
  small = false,
}: {
  workflow: Workflow;
  onChange?: (workflow: Workflow) => void;
  small?: boolean;
}) {
  const setStatus = useWorkflows((s) => s.setStatus);
  const { busy, error, run } = useAction();
  const { gate } = useRightGate('automation.write');
  return (
    <>
      {ACTIONS[workflow.status].map((action) => (
        <button
          key={action.to}
          type="button"
          className={`button${small ? ' button-small' : ''}`}
          {...gate}
          disabled={busy || gate.disabled}
          aria-label={`${action.label} ${workflow.name}`}
          onClick={() =>
            void run(async () => {
              const saved = await setStatus(workflow.id, action.to);
              onChange?.(saved);
              notify('success', `“${saved.name}” ${DONE[saved.status]}.`);
            })
          }
          data-testid={`wf-${action.to === 'active' ? 'activate' : action.to === 'paused' ? 'pause' : 'archive'}`}
        >
          {action.label}
        </button>
      ))}
      <FormError error={error} />
    </>
  );
}

/** The signing secret of a new workflow's webhook steps, shown once. */
export function SecretDialog({ secret, onClose }: { secret: string; onClose: () => void }) {
  return (
    <Dialog
      title="Workflow saved: its signing secret"
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
      <p className="dialog-lead">
        Its webhook steps sign their requests with this secret (header{' '}
        <code>X-Parley-Signature</code>), so your server can check they come from Parley.
      </p>
      <SecretBox secret={secret} testId="wf-secret" copyTestId="wf-secret-copy" />
      <div className="banner banner-warning" role="note">
        Copy it now: it will not be shown again.
      </div>
    </Dialog>
  );
}
