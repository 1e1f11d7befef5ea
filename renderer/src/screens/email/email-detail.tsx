import { lazy, useState, type ReactNode } from 'react';
import { pageControls } from '../../../../shared/campaign-states.ts';
import { renderEmailText } from '../../../../shared/email-rules.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { plural } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import type { EmailCampaign } from '../../stores/email-api.ts';
import { useEmailDetail } from '../../stores/email-detail.ts';
import { useEmailRecipients } from '../../stores/email-recipients.ts';
import { hrefFor } from '../../stores/route.ts';
import { describeWhen, formatCount } from '../campaigns/campaign-format.ts';
import {
  AudienceSummary,
  CampaignControls,
  CampaignPlaceholder,
  ChartCard,
  ControlDialog,
  useCampaignPage,
  type Control,
} from '../campaigns/campaign-page.tsx';
import { RescheduleDialog } from '../campaigns/reschedule-dialog.tsx';
import { canDoEmail } from './email-format.ts';
import { EmailFunnel } from './email-funnel.tsx';
import { EmailLinksCard } from './email-links.tsx';
import { EmailNotices } from './email-notices.tsx';
import { EmailFrame } from './email-preview.tsx';
import { EmailRecipientsTable } from './email-recipients-table.tsx';
import { EmailCampaignStatusChip } from './email-status.tsx';
import { UnsubscribePreviewButton } from './email-unsubscribe-preview.tsx';
import { useSampleContact } from './use-sample-contact.ts';

/** The chart library loads with the first campaign page opened, not with the app. */
const EmailActivityChart = lazy(() =>
  import('./email-activity-chart.tsx').then((m) => ({ default: m.EmailActivityChart })),
);

function Summary({ campaign }: { campaign: EmailCampaign }) {
  return (
    <>
      “<span data-testid="email-detail-subject">{campaign.subject}</span>” from{' '}
      {campaign.fromName ? `${campaign.fromName} <${campaign.fromEmail}>` : campaign.fromEmail} to{' '}
      <AudienceSummary target={campaign.audience} />. {describeWhen(campaign)}.
    </>
  );
}

/** The email as sent, filled in for one of its recipients, folded away unless nothing was sent. */
function Message({ campaign }: { campaign: EmailCampaign }) {
  const sample = useSampleContact(campaign.audience);
  return (
    <section className="card email-message-card" aria-labelledby="email-message-title">
      <details open={campaign.counts.total === 0}>
        <summary>
          <h2 id="email-message-title" className="card-title">
            The email
          </h2>
          <span className="hint">Filled in for {sample.label}</span>
        </summary>
        <div className="email-envelope">
          <dl className="email-headers">
            <div>
              <dt>Subject</dt>
              <dd className="email-preview-subject">
                {renderEmailText(campaign.subject, sample.contact)}
              </dd>
            </div>
            {campaign.replyTo ? (
              <div>
                <dt>Reply-to</dt>
                <dd className="truncate">{campaign.replyTo}</dd>
              </div>
            ) : null}
          </dl>
          <EmailFrame
            html={campaign.html}
            contact={sample.contact}
            title={`The email of ${campaign.name}`}
            testId="email-detail-frame"
          />
        </div>
      </details>
      <p className="hint email-unsubscribe-note">
        Every email ends with an unsubscribe link to a page in your name.{' '}
        <UnsubscribePreviewButton campaignId={campaign.id} />
      </p>
    </section>
  );
}

/** An email campaign's page: its state and funnel (live), activity, recipients, and controls. */
export function EmailDetail({ campaignId }: { campaignId: string }) {
  const { campaign, started, timeline, controls, reschedule, load } = useCampaignPage(
    campaignId,
    useEmailDetail,
    useEmailRecipients,
    (c) => !canDoEmail('edit', c.status),
  );
  const [confirming, setConfirming] = useState<Control | null>(null);
  const [rescheduling, setRescheduling] = useState(false);

  const back = (
    <a href={hrefFor('email')} className="link-button">
      ← Email
    </a>
  );

  if (!campaign) {
    return (
      <CampaignPlaceholder
        testId="email-detail"
        back={back}
        title="Email campaign"
        {...load}
        notFoundTestId="email-not-found"
        notFoundText={
          <>
            There is no such email campaign here. Campaigns belong to one mode (test or live) and
            one workspace: switch back to the one it was made in, or{' '}
            <a href={hrefFor('email')}>see the email campaigns of this one</a>.
          </>
        }
      />
    );
  }

  /** What the state machine lets this campaign's page offer. */
  const offered = pageControls('email', campaign);
  const left = campaign.counts.pending;
  const name = campaign.name;
  /** What each control does to this campaign, said in its dialog. */
  const explanations: Record<Control, ReactNode> = {
    pause: (
      <>
        Nothing more is sent until you resume
        {left > 0 ? ` (${plural(left, 'recipient')} still to go)` : ''}. Emails already sent still
        arrive, and their opens and clicks still count.
      </>
    ),
    resume: (
      <>
        Sending picks up where it stopped
        {left > 0 ? `, with the ${formatCount(left)} recipients not emailed yet` : ''}. Nobody is
        sent the email twice.
      </>
    ),
    start: (
      <>
        It starts emailing{' '}
        {campaign.scheduledFor ? 'now, not at the time it was scheduled for' : 'now'}, at the
        sending rate set for email.
      </>
    ),
    cancel: canDoEmail('edit', campaign.status)
      ? 'It will not be sent, and can no longer be edited or launched.'
      : `${left > 0 ? `The ${plural(left, 'recipient')} not emailed yet are not sent it. ` : ''}This cannot be undone; emails already sent are not recalled.`,
  };

  return (
    <div className="screen screen-wide" data-testid="email-detail" data-campaign-id={campaign.id}>
      <PageHeader
        eyebrow={back}
        title={
          <>
            <span data-testid="email-title">{name}</span>
            <EmailCampaignStatusChip status={campaign.status} />
          </>
        }
        titleClassName="title-with-badge"
        description={<Summary campaign={campaign} />}
        actions={
          <CampaignControls
            testIdPrefix="email"
            editHref={offered.edit ? hrefFor('email', `${campaign.id}/edit`) : null}
            editLabel="Edit"
            allowed={offered}
            onControl={setConfirming}
            // Also after it started: only its resume time changes.
            onReschedule={offered.reschedule ? () => setRescheduling(true) : null}
          />
        }
      />

      {load.status === 'error' && load.error ? (
        <ErrorBanner message={load.error} onRetry={() => void load.reload()} />
      ) : null}
      <EmailNotices campaign={campaign} />

      {campaign.status === 'draft' ? (
        <section className="card" aria-label="Draft">
          <p>
            This email campaign is a draft: nothing has been sent. Its recipients are fixed when it
            starts sending. <a href={hrefFor('email', `${campaign.id}/edit`)}>Edit it</a> to check
            its audience, send yourself a test, and launch it.
          </p>
        </section>
      ) : started ? (
        <>
          <div className="editor-grid campaign-overview">
            <EmailFunnel campaign={campaign} />
            <ChartCard titleId="email-chart-title" title="Activity">
              <EmailActivityChart timeline={timeline} />
            </ChartCard>
          </div>
          <EmailLinksCard campaign={campaign} />
          <EmailRecipientsTable />
        </>
      ) : null}

      <Message campaign={campaign} />

      {rescheduling ? (
        <RescheduleDialog
          name={name}
          scheduledFor={campaign.scheduledFor}
          started={campaign.launchedAt !== null}
          testIdPrefix="email"
          onReschedule={reschedule}
          onClose={() => setRescheduling(false)}
        />
      ) : null}
      {confirming ? (
        <ControlDialog
          control={confirming}
          name={name}
          testIdPrefix="email"
          onConfirm={controls[confirming]}
          onClose={() => setConfirming(null)}
        >
          {explanations[confirming]}
        </ControlDialog>
      ) : null}
    </div>
  );
}
