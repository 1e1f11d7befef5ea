import { doneShare } from '../../../../shared/campaign-rules.ts';
import { useNow } from '../../components/use-now.ts';
import type { Campaign, CampaignProgress } from '../../stores/campaigns-api.ts';
import { formatDuration, formatRate } from './campaign-format.ts';
import { blockedNotice } from './campaign-notices.tsx';
import {
  FunnelOutcomes,
  FunnelSteps,
  ProgressCard,
  type FunnelOutcomeProps,
  type FunnelStepProps,
} from './funnel.tsx';
import { ProgressBar } from './progress-bar.tsx';

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
        <span
          // Pacing at the account's throughput is how sending works, not a warning.
          className={`campaign-blocked${progress.blockedBy === 'throughput' ? ' campaign-paced' : ''}`}
          data-testid="campaign-blocked"
        >
          {blocked}
        </span>
      ) : null}
    </p>
  );
}

/** The funnel's steps: each as a share of the one before. */
const steps = (p: CampaignProgress): FunnelStepProps[] => [
  {
    label: 'Sent',
    value: p.sent,
    of: p.total,
    ofLabel: 'recipients',
    tone: 'sent',
    testId: 'funnel-sent',
  },
  {
    label: 'Delivered',
    value: p.delivered,
    of: p.sent,
    ofLabel: 'sent',
    tone: 'delivered',
    testId: 'funnel-delivered',
  },
  {
    label: 'Read',
    value: p.read,
    of: p.delivered,
    ofLabel: 'delivered',
    tone: 'read',
    testId: 'funnel-read',
  },
];

/** What became of the recipients the funnel does not follow. */
const outcomes = (p: CampaignProgress): FunnelOutcomeProps[] => [
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
    <ProgressCard prefix="campaign" done={done} total={p.total} percent={percent}>
      <ProgressBar
        progress={p}
        label={`Progress of ${campaign.name}`}
        size="large"
        testId="campaign-progress"
      />
      <Pace progress={p} />
      <FunnelSteps steps={steps(p)} className="funnel" />
      <FunnelOutcomes outcomes={outcomes(p)} className="campaign-outcomes" />
    </ProgressCard>
  );
}
