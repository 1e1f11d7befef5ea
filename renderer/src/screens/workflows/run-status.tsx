import {
  RUN_STATE_LOOKS,
  runState,
  stepResult,
  type RunStepLike,
  type Tone,
} from './run-format.ts';
import './run-history.css';

const STEP_STATUS_LABELS: Record<string, string> = {
  running: 'Running',
  waiting: 'Waiting',
  completed: 'Done',
  failed: 'Failed',
  cancelled: 'Stopped',
};

const STEP_STATUS_TONES: Record<string, Tone> = {
  running: 'running',
  waiting: 'waiting',
  completed: 'success',
  failed: 'danger',
  cancelled: 'neutral',
};

/** How a run stands or ended, in words; the colour only repeats them (README "Run history"). */
export function RunOutcomeChip({ run }: { run: { status: string; outcome?: string | null } }) {
  const state = runState(run);
  const look = RUN_STATE_LOOKS[state];
  return (
    <span
      className={`badge runtone runtone-${look.tone}`}
      title={look.meaning}
      data-testid="run-outcome"
      data-outcome={state}
    >
      {look.label}
    </span>
  );
}

/**
 * A step's state: how it ended when it says ("Replied", "Timed out", "Otherwise"), else done,
 * running, waiting or failed. A wait that timed out is never a green "Done".
 */
export function StepStatusChip({ step }: { step: RunStepLike }) {
  const ended = step.status === 'completed' || step.status === 'cancelled';
  const outcome = ended ? stepResult(step).outcome : null;
  const label = outcome?.label ?? STEP_STATUS_LABELS[step.status] ?? step.status;
  const tone = outcome?.tone ?? STEP_STATUS_TONES[step.status] ?? 'neutral';
  return (
    <span
      className={`badge runtone runtone-${tone}`}
      data-testid="wf-step-status"
      data-status={step.status}
      data-outcome={outcome?.key}
    >
      {label}
    </span>
  );
}
