import type { EmailCampaign, EmailCounts } from '../../stores/email-api.ts';
import {
  FunnelOutcomes,
  FunnelSteps,
  ProgressCard,
  type FunnelOutcomeProps,
  type FunnelStepProps,
} from '../campaigns/funnel.tsx';
import { doneOf, doneShareOf } from './email-format.ts';
import { EmailProgressBar } from './email-progress-bar.tsx';

/** The funnel: sent → delivered → opened, and clicks (which need no open) against delivered. */
const steps = (c: EmailCounts): FunnelStepProps[] => [
  {
    label: 'Sent',
    value: c.sent,
    of: c.total,
    ofLabel: 'recipients',
    tone: 'sent',
    testId: 'email-funnel-sent',
  },
  {
    label: 'Delivered',
    value: c.delivered,
    of: c.sent,
    ofLabel: 'sent',
    tone: 'delivered',
    testId: 'email-funnel-delivered',
  },
  {
    label: 'Opened',
    value: c.opened,
    of: c.delivered,
    ofLabel: 'delivered',
    tone: 'read',
    testId: 'email-funnel-opened',
  },
  {
    label: 'Clicked',
    value: c.clicked,
    of: c.delivered,
    ofLabel: 'delivered',
    tone: 'clicked',
    testId: 'email-funnel-clicked',
  },
];

/** What became of the recipients the funnel does not follow. */
const outcomes = (c: EmailCounts): FunnelOutcomeProps[] => [
  {
    label: 'Bounced',
    value: c.bounced,
    help: 'Refused by the receiving server',
    testId: 'email-funnel-bounced',
    tone: 'bad',
  },
  {
    label: 'Failed',
    value: c.failed,
    help: 'Could not be handed over',
    testId: 'email-funnel-failed',
    tone: 'bad',
  },
  {
    label: 'Unsubscribed',
    value: c.unsubscribed,
    help: 'Through this campaign’s link',
    testId: 'email-funnel-unsubscribed',
  },
  {
    label: 'Cancelled',
    value: c.cancelled,
    help: 'Not sent: cancelled first',
    testId: 'email-funnel-cancelled',
  },
  {
    label: 'Pending',
    value: c.pending,
    help: 'Waiting for their turn',
    testId: 'email-funnel-pending',
  },
];

/** How far the campaign is (live) and how its emails fared: sent → delivered → opened → clicked. */
export function EmailFunnel({ campaign }: { campaign: EmailCampaign }) {
  const c = campaign.counts;
  const percent = Math.floor(doneShareOf(c) * 100);
  return (
    <ProgressCard prefix="email" done={doneOf(c)} total={c.total} percent={percent}>
      <EmailProgressBar
        counts={c}
        label={`Progress of ${campaign.name}`}
        size="large"
        testId="email-progress"
      />
      <FunnelSteps steps={steps(c)} className="funnel email-funnel" />
      <p className="hint email-estimate-note" data-testid="email-opens-note">
        Opens are an estimate — some mail apps load images automatically, others block them; clicks
        are counted when a tracked link is followed.
      </p>
      <FunnelOutcomes outcomes={outcomes(c)} className="campaign-outcomes email-outcomes" />
    </ProgressCard>
  );
}
