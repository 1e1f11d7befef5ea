import { stepLabel } from '../../../../shared/workflow-steps/index.ts';
import { formatClockSeconds } from '../../components/format.ts';
import { useNow } from '../../components/use-now.ts';
import { stepResult, stepTimesOutAt, waitingText, type RunStepLike } from './run-format.ts';
import { StepStatusChip } from './run-status.tsx';

/** How often a countdown is said again: often enough for "in 3 min", never a ticking second. */
const COUNTDOWN_EVERY_MS = 5_000;

const timeOf = (iso: string | null): string => (iso ? formatClockSeconds(new Date(iso)) : '…');

/** "waiting for a reply — times out at 14:05, in 3 min", kept current. */
export function TimesOut({ step }: { step: RunStepLike }) {
  const now = useNow(COUNTDOWN_EVERY_MS);
  return (
    <p className="run-times-out" data-testid="run-times-out">
      {capitalised(waitingText(step.type, stepTimesOutAt(step), now))}
    </p>
  );
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** What a step did, as fields: what was sent, the customer's answer, the branch taken and why. */
function StepResultFields({ step }: { step: RunStepLike }) {
  const { fields } = stepResult(step);
  if (fields.length === 0) return null;
  return (
    <dl className="run-step-result" data-testid="run-step-result">
      {fields.map((field, i) => (
        <div key={`${field.key}-${i}`} className="run-field" data-field={field.key}>
          <dt>{field.label}</dt>
          <dd className={field.quoted ? 'run-quote' : undefined}>{field.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One step of a run on its timeline: what it is, how it ended, what it did, when it waits till. */
export function RunStepItem({ step }: { step: RunStepLike }) {
  const ended = step.status === 'completed' || step.status === 'cancelled';
  const result = ended ? stepResult(step).outcome : null;
  const tone =
    result?.tone ??
    (step.status === 'failed'
      ? 'danger'
      : step.status === 'completed'
        ? 'success'
        : step.status === 'cancelled'
          ? 'neutral'
          : 'running');
  return (
    <li
      className={`wf-timeline-step card run-step runtone-${tone}`}
      data-testid="wf-timeline-step"
      data-step-id={step.stepId}
      data-status={step.status}
    >
      <div className="wf-timeline-head">
        <strong>{stepLabel(step.type)}</strong>
        <code className="muted">{step.stepId}</code>
        <StepStatusChip step={step} />
        <span className="muted small wf-timeline-times">
          {timeOf(step.startedAt)} →{' '}
          {step.endedAt ? timeOf(step.endedAt) : step.status === 'waiting' ? 'waiting' : '…'}
        </span>
      </div>
      {step.status === 'waiting' ? <TimesOut step={step} /> : null}
      {step.error ? (
        <p className="field-error" data-testid="wf-timeline-error">
          {step.error}
        </p>
      ) : null}
      <StepResultFields step={step} />
    </li>
  );
}
