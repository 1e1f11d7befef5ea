import { doneShare } from '../../../../shared/campaign-rules.ts';
import { useNow } from '../../components/use-now.ts';
import type { Campaign, CampaignProgress } from '../../stores/campaigns-api.ts';
import { formatCount, formatDuration, formatRate, formatShare } from './campaign-format.ts';
import { blockedNotice } from './campaign-notices.tsx';
import { ProgressBar } from './progress-bar.tsx';

interface StepProps {
  label: string;
  value: number;
  of: number;
  ofLabel: string;
  /** Names its colour, and its test id (`funnel-<tone>`). */
  tone: string;
}

/** One step of the funnel: its count, and its share of the step before. */
function Step({ label, value, of, ofLabel, tone }: StepProps) {
  const width = `${of > 0 ? Math.min(100, (value / of) * 100) : 0}%`;
  return (
    <li className={`funnel-step funnel-${tone}`} data-testid={`funnel-${tone}`} data-value={value}>
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

interface OutcomeProps {
  label: string;
  value: number;
  help: string;
  testId: string;
  tone?: 'bad';
}

function Outcome({ label, value, help, testId, tone }: OutcomeProps) {
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

/** The pace while sending: what holds it back, or how fast it goes and when it should end. */
function Pace({ progress }: { progress: CampaignProgress }) {
  const now = useNow(1_000);
  if (progress.status !== 'sending') return null;
  const blocked = blockedNotice(progress, now);
  return (
    <p className="campaign-pace" data-testid="campaign-pace">
      <span data-testid="campaign-rate">{formatRate(progress.ratePerSecond)}</span>
      {progress.etaSeconds !== null ? (
        <span data-testid="campaign-eta">about {formatDuration(progress.etaSeconds)} left</span>
      ) : null}
      {blocked ? (
        <span className="campaign-blocked" data-testid="campaign-blocked">
          {blocked}
        </span>
      ) : null}
    </p>
  );
}

/** The funnel's steps: each as a share of the one before. */
const steps = (p: CampaignProgress): StepProps[] => [
  { label: 'Sent', value: p.sent, of: p.total, ofLabel: 'recipients', tone: 'sent' },
  { label: 'Delivered', value: p.delivered, of: p.sent, ofLabel: 'sent', tone: 'delivered' },
  { label: 'Read', value: p.read, of: p.delivered, ofLabel: 'delivered', tone: 'read' },
];

/** What became of the recipients the funnel does not follow. */
const outcomes = (p: CampaignProgress): OutcomeProps[] => [
  {
    label: 'Failed',
    value: p.failed,
    help: 'Not sent, or failed by the channel',
    testId: 'funnel-failed',
    tone: 'bad',
  },
  {
    label: 'Skipped',
    value: p.skipped,
    help: 'Cancelled before their turn',
    testId: 'funnel-skipped',
  },
  { label: 'Pending', value: p.pending, help: 'Waiting for their turn', testId: 'funnel-pending' },
  {
    label: 'Retrying',
    value: p.retrying,
    help: 'Waiting to try again',
    testId: 'funnel-retrying',
  },
];

/** How far the campaign is (live) and how its messages fared: sent → delivered → read. */
export function CampaignFunnel({ campaign }: { campaign: Campaign }) {
  const p = campaign.metrics;
  const done = p.sent + p.failed + p.skipped;
  const percent = Math.floor(doneShare(p) * 100);
  return (
    <section className="card campaign-progress" aria-labelledby="campaign-progress-title">
      <div className="campaign-progress-head">
        <h2 id="campaign-progress-title" className="card-title">
          Progress
        </h2>
        <span className="campaign-progress-count" data-testid="campaign-done">
          {formatCount(done)} of {formatCount(p.total)} done · {percent}%
        </span>
      </div>
      <ProgressBar
        progress={p}
        label={`Progress of ${campaign.name}`}
        size="large"
        testId="campaign-progress"
      />
      <Pace progress={p} />

      <ol className="funnel" aria-label="Funnel">
        {steps(p).map((step) => (
          <Step key={step.tone} {...step} />
        ))}
      </ol>

      <dl className="campaign-outcomes">
        {outcomes(p).map((outcome) => (
          <Outcome key={outcome.testId} {...outcome} />
        ))}
      </dl>
    </section>
  );
}
