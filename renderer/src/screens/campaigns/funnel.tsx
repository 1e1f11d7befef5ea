import type { ReactNode } from 'react';
import { formatCount, formatShare } from './campaign-format.ts';

/** One step of a funnel: its count, and its share of the step it is counted against. */
export interface FunnelStepProps {
  label: string;
  value: number;
  of: number;
  ofLabel: string;
  /** Names its colour (`funnel-<tone>`). */
  tone: string;
  testId: string;
}

/** A recipient outcome the funnel does not follow (failed, pending, …). */
export interface FunnelOutcomeProps {
  label: string;
  value: number;
  help: string;
  testId: string;
  tone?: 'bad';
}

function FunnelStep({ label, value, of, ofLabel, tone, testId }: FunnelStepProps) {
  const width = `${of > 0 ? Math.min(100, (value / of) * 100) : 0}%`;
  return (
    <li className={`funnel-step funnel-${tone}`} data-testid={testId} data-value={value}>
      <div className="funnel-head">
        <span className="funnel-label">{label}</span>
        <span className="funnel-value">{formatCount(value)}</span>
      </div>
      <div className="funnel-track" aria-hidden="true">
        <span className="funnel-fill" style={{ width }} />
      </div>
      <span className="funnel-share">
        {formatShare(value, of)} of {ofLabel}
      </span>
    </li>
  );
}

function FunnelOutcome({ label, value, help, testId, tone }: FunnelOutcomeProps) {
  return (
    <div
      className={`stat${tone === 'bad' && value > 0 ? ' stat-bad' : ''}`}
      data-testid={testId}
      data-value={value}
    >
      <dt className="stat-label">{label}</dt>
      <dd className="stat-value">{formatCount(value)}</dd>
      <dd className="stat-help">{help}</dd>
    </div>
  );
}

export function FunnelSteps({ steps, className }: { steps: FunnelStepProps[]; className: string }) {
  return (
    <ol className={className} aria-label="Funnel">
      {steps.map((step) => (
        <FunnelStep key={step.testId} {...step} />
      ))}
    </ol>
  );
}

export function FunnelOutcomes({
  outcomes,
  className,
}: {
  outcomes: FunnelOutcomeProps[];
  className: string;
}) {
  return (
    <dl className={className}>
      {outcomes.map((outcome) => (
        <FunnelOutcome key={outcome.testId} {...outcome} />
      ))}
    </dl>
  );
}

/**
 * A campaign's progress card, headed by how many recipients are done; `prefix` starts its ids
 * (`<prefix>-progress-title`, test id `<prefix>-done`).
 */
export function ProgressCard({
  prefix,
  done,
  total,
  percent,
  children,
}: {
  prefix: string;
  done: number;
  total: number;
  percent: number;
  children: ReactNode;
}) {
  return (
    <section className="card campaign-progress" aria-labelledby={`${prefix}-progress-title`}>
      <div className="campaign-progress-head">
        <h2 id={`${prefix}-progress-title`} className="card-title">
          Progress
        </h2>
        <span className="campaign-progress-count" data-testid={`${prefix}-done`}>
          {formatCount(done)} of {formatCount(total)} done · {percent}%
        </span>
      </div>
      {children}
    </section>
  );
}
