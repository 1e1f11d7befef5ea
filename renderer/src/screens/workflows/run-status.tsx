import type { RunStatus } from '../../../../shared/workflow-rules.ts';
import { RUN_STATUS_LABELS } from '../../stores/workflow-runs.ts';

const STEP_STATUS_LABELS: Record<string, string> = {
  running: 'Running',
  waiting: 'Waiting',
  completed: 'Done',
  failed: 'Failed',
};

/** A run's (or a step's) state in words; the colour only repeats it. */
export function RunStatusChip({ status, step = false }: { status: string; step?: boolean }) {
  const label = step
    ? (STEP_STATUS_LABELS[status] ?? status)
    : (RUN_STATUS_LABELS[status as RunStatus] ?? status);
  return (
    <span
      className={`badge runstatus runstatus-${status}`}
      data-testid={step ? 'wf-step-status' : 'wf-run-status'}
      data-status={status}
    >
      {label}
    </span>
  );
}
