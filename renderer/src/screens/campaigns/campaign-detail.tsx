import { lazy, useState, type ReactNode } from 'react';
import { pageControls } from '../../../../shared/campaign-states.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { plural } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import type { Campaign } from '../../stores/campaigns-api.ts';
import { useCampaignDetail } from '../../stores/campaigns-detail.ts';
import { useCampaignRecipients } from '../../stores/campaigns-recipients.ts';
import { hrefFor } from '../../stores/route.ts';
import { describeWhen, formatCount } from './campaign-format.ts';
import { CampaignFunnel } from './campaign-funnel.tsx';
import { CampaignNotices } from './campaign-notices.tsx';
import {
  AudienceSummary,
  CampaignControls,
  CampaignPlaceholder,
  ChartCard,
  ControlDialog,
  useCampaignPage,
  type Control,
} from './campaign-page.tsx';
import { CampaignStatusChip } from './campaign-status.tsx';
import { RecipientsTable } from './recipients-table.tsx';
import { RescheduleDialog } from './reschedule-dialog.tsx';
import { useSendingNoticeEnds } from './sending-notice.ts';

/** The chart library loads with the first campaign page opened, not with the app. */
const SendRateChart = lazy(() =>
  import('./send-rate-chart.tsx').then((m) => ({ default: m.SendRateChart })),
);

function Summary({ campaign }: { campaign: Campaign }) {
  return (
    <>
      Template <code data-testid="campaign-template-name">{campaign.templateName}</code> to{' '}
      <AudienceSummary target={campaign.target} />. {describeWhen(campaign)}.
    </>
  );
}

/** A campaign's page: its state and funnel (live), send rate, recipients, and its controls. */
export function CampaignDetail({ campaignId }: { campaignId: string }) {
  const { campaign, timeline, controls, reschedule, load } = useCampaignPage(
    campaignId,
    useCampaignDetail,
    useCampaignRecipients,
    (c) => c.status !== 'draft',
  );
  const [confirming, setConfirming] = useState<Control | null>(null);
  const [rescheduling, setRescheduling] = useState(false);
  useSendingNoticeEnds(campaign);

  const back = (
    <a href={hrefFor('campaigns')} className="link-button">
      ← Campaigns
    </a>
  );

  if (!campaign) {
    return (
      <CampaignPlaceholder
        testId="campaign-detail"
        back={back}
        title="Campaign"
        {...load}
        notFoundTestId="campaign-not-found"
        notFoundText={
          <>
            There is no such campaign here. Campaigns belong to one mode (test or live) and one
            workspace: switch back to the one it was made in, or{' '}
            <a href={hrefFor('campaigns')}>see the campaigns of this one</a>.
          </>
        }
      />
    );
  }

  /** What the state machine lets this campaign's page offer. */
  const offered = pageControls('messaging', campaign);
  const p = campaign.metrics;
  const left = p.pending + p.retrying;
  const name = campaign.name;
  /** What each control does to this campaign, said in its dialog. */
  const explanations: Record<Control, ReactNode> = {
    pause: (
      <>
        Nothing more is sent until you resume
        {left > 0 ? ` (${plural(left, 'recipient')} still to go)` : ''}. Messages already handed to
        the channel still arrive, and their receipts still count.
      </>
    ),
    resume:
      campaign.launchedAt === null ? (
        <>
          It starts sending now
          {campaign.scheduledFor ? ', not at the time it was scheduled for' : ''}. To pick another
          time, use Reschedule… instead.
        </>
      ) : (
        <>
          Sending picks up where it stopped
          {left > 0 ? `, with the ${formatCount(left)} recipients not sent yet` : ''}. Nobody is
          sent the message twice.
        </>
      ),
    start: 'It starts sending now, not at the time it was scheduled for.',
    cancel:
      campaign.status === 'draft'
        ? 'The draft is kept as cancelled and can no longer be launched.'
        : `${left > 0 ? `The ${plural(left, 'recipient')} not sent yet are skipped. ` : ''}This cannot be undone; messages already sent are not recalled.`,
  };

  return (
    <div
      className="screen screen-wide"
      data-testid="campaign-detail"
      data-campaign-id={campaign.id}
    >
      <PageHeader
        eyebrow={back}
        title={
          <>
            <span data-testid="campaign-title">{name}</span>
            <CampaignStatusChip status={campaign.status} />
          </>
        }
        titleClassName="title-with-badge"
        description={<Summary campaign={campaign} />}
        actions={
          <CampaignControls
            testIdPrefix="campaign"
            editHref={offered.edit ? hrefFor('campaigns', `${campaign.id}/edit`) : null}
            editLabel="Edit draft"
            allowed={offered}
            onControl={setConfirming}
            // Only before its start: a campaign that has sent resumes where it stopped.
            onReschedule={offered.reschedule ? () => setRescheduling(true) : null}
          />
        }
      />

      {load.status === 'error' && load.error ? (
        <ErrorBanner message={load.error} onRetry={() => void load.reload()} />
      ) : null}
      <CampaignNotices campaign={campaign} />

      {campaign.status === 'draft' ? (
        <section className="card" aria-label="Draft">
          <p>
            This campaign is a draft: nothing has been sent. Its recipients are fixed when it is
            launched. <a href={hrefFor('campaigns', `${campaign.id}/edit`)}>Edit it</a> to check its
            audience and launch it.
          </p>
        </section>
      ) : (
        <>
          <div className="editor-grid campaign-overview">
            <CampaignFunnel campaign={campaign} />
            <ChartCard titleId="campaign-chart-title" title="Send rate">
              <SendRateChart timeline={timeline} />
            </ChartCard>
          </div>
          <RecipientsTable />
        </>
      )}

      {rescheduling ? (
        <RescheduleDialog
          name={name}
          scheduledFor={campaign.scheduledFor}
          testIdPrefix="campaign"
          onReschedule={reschedule}
          onClose={() => setRescheduling(false)}
        />
      ) : null}
      {confirming ? (
        <ControlDialog
          control={confirming}
          name={name}
          testIdPrefix="campaign"
          onConfirm={controls[confirming]}
          onClose={() => setConfirming(null)}
        >
          {explanations[confirming]}
        </ControlDialog>
      ) : null}
    </div>
  );
}
