import type { EmailCampaign, EmailCounts } from '../../stores/email-api.ts';
import { formatCount, formatShare } from '../campaigns/campaign-format.ts';
import { doneOf, doneShareOf } from './email-format.ts';
import { EmailProgressBar } from './email-progress-bar.tsx';

interface StepProps {
  label: string;
  value: number;
  of: number;
  ofLabel: string;
  /** Names its colour, and its test id (`email-funnel-<key>`). */
  tone: string;
  testKey: keyof EmailCounts;
}

/** One step of the funnel: its count, and its share of the step it is counted against. */
function Step({ label, value, of, ofLabel, tone, testKey }: StepProps) {
  const width = `${of > 0 ? Math.min(100, (value / of) * 100) : 0}%`;
  return (
    <li
      className={`funnel-step funnel-${tone}`}
      data-testid={`email-funnel-${testKey}`}
      data-value={value}
    >
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
  testKey: keyof EmailCounts;
  tone?: 'bad';
}

function Outcome({ label, value, help, testKey, tone }: OutcomeProps) {
  return (
    <div
      className={`stat${tone === 'bad' && value > 0 ? ' stat-bad' : ''}`}
      data-testid={`email-funnel-${testKey}`}
      data-value={value}
    >
      <dt className="stat-label">{label}</dt>
      <dd className="stat-value">{formatCount(value)}</dd>
      <dd className="stat-help">{help}</dd>
    </div>
  );
}

/** The funnel: sent → delivered → opened, and clicks (which need no open) against delivered. */
const steps = (c: EmailCounts): StepProps[] => [
  {
    label: 'Sent',
    value: c.sent,
    of: c.total,
    ofLabel: 'recipients',
    tone: 'sent',
    testKey: 'sent',
  },
  {
    label: 'Delivered',
    value: c.delivered,
    of: c.sent,
    ofLabel: 'sent',
    tone: 'delivered',
    testKey: 'delivered',
  },
  {
    label: 'Opened',
    value: c.opened,
    of: c.delivered,
    ofLabel: 'delivered',
    tone: 'read',
    testKey: 'opened',
  },
  {
    label: 'Clicked',
    value: c.clicked,
    of: c.delivered,
    ofLabel: 'delivered',
    tone: 'clicked',
    testKey: 'clicked',
  },
];

/** What became of the recipients the funnel does not follow. */
const outcomes = (c: EmailCounts): OutcomeProps[] => [
  {
    label: 'Bounced',
    value: c.bounced,
    help: 'Refused by the receiving server',
    testKey: 'bounced',
    tone: 'bad',
  },
  {
    label: 'Failed',
    value: c.failed,
    help: 'Could not be handed over',
    testKey: 'failed',
    tone: 'bad',
  },
  {
    label: 'Unsubscribed',
    value: c.unsubscribed,
    help: 'Through this campaign’s link',
    testKey: 'unsubscribed',
  },
  {
    label: 'Cancelled',
    value: c.cancelled,
    help: 'Not sent: cancelled first',
    testKey: 'cancelled',
  },
  { label: 'Pending', value: c.pending, help: 'Waiting for their turn', testKey: 'pending' },
];

/** How far the campaign is (live) and how its emails fared: sent → delivered → opened → clicked. */
export function EmailFunnel({ campaign }: { campaign: EmailCampaign }) {
  const c = campaign.counts;
  const percent = Math.floor(doneShareOf(c) * 100);
  return (
    <section className="card campaign-progress" aria-labelledby="email-progress-title">
      <div className="campaign-progress-head">
        <h2 id="email-progress-title" className="card-title">
          Progress
        </h2>
        <span className="campaign-progress-count" data-testid="email-done">
          {formatCount(doneOf(c))} of {formatCount(c.total)} done · {percent}%
        </span>
      </div>
      <EmailProgressBar
        counts={c}
        label={`Progress of ${campaign.name}`}
        size="large"
        testId="email-progress"
      />

      <ol className="funnel email-funnel" aria-label="Funnel">
        {steps(c).map((step) => (
          <Step key={step.testKey} {...step} />
        ))}
      </ol>
      <p className="hint email-estimate-note" data-testid="email-opens-note">
        Opens are an estimate — some mail apps load images automatically, others block them; clicks
        are counted when a tracked link is followed.
      </p>

      <dl className="campaign-outcomes email-outcomes">
        {outcomes(c).map((outcome) => (
          <Outcome key={outcome.testKey} {...outcome} />
        ))}
      </dl>
    </section>
  );
}
