import { lazy, Suspense, useEffect, useState } from 'react';
import { renderEmailText } from '../../../../shared/email-rules.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime, plural } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import type { CampaignTarget, EmailCampaign } from '../../stores/email-api.ts';
import { useEmailDetail } from '../../stores/email-detail.ts';
import { useEmailRecipients } from '../../stores/email-recipients.ts';
import { hrefFor } from '../../stores/route.ts';
import { describeFilter, formatCount } from '../campaigns/campaign-format.ts';
import { useGroups } from '../campaigns/use-groups.ts';
import { canDoEmail } from './email-format.ts';
import { EmailFunnel } from './email-funnel.tsx';
import { EmailNotices } from './email-notices.tsx';
import { EmailFrame } from './email-preview.tsx';
import { EmailRecipientsTable } from './email-recipients-table.tsx';
import { EmailCampaignStatusChip } from './email-status.tsx';
import { useSampleContact } from './use-sample-contact.ts';

/** The chart library loads with the first campaign page opened, not with the app. */
const EmailActivityChart = lazy(() =>
  import('./email-activity-chart.tsx').then((m) => ({ default: m.EmailActivityChart })),
);

type Confirming = 'pause' | 'resume' | 'cancel' | null;

function Audience({ target }: { target: CampaignTarget }) {
  const groups = useGroups();
  if (target.groupId) {
    const group = groups.groups.find((g) => g.id === target.groupId);
    return <>the group {group ? <strong>{group.name}</strong> : 'chosen'}</>;
  }
  return <>contacts with {describeFilter(target.filter)}</>;
}

function Summary({ campaign }: { campaign: EmailCampaign }) {
  const when = campaign.completedAt
    ? `${campaign.status === 'completed' ? 'Finished' : 'Ended'} ${formatDateTime(campaign.completedAt)}`
    : campaign.launchedAt
      ? `Launched ${formatDateTime(campaign.launchedAt)}`
      : `Created ${formatDateTime(campaign.createdAt)}`;
  return (
    <>
      “<span data-testid="email-detail-subject">{campaign.subject}</span>” from{' '}
      {campaign.fromName ? `${campaign.fromName} <${campaign.fromEmail}>` : campaign.fromEmail} to{' '}
      <Audience target={campaign.audience} />. {when}.
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
    </section>
  );
}

/** An email campaign's page: its state and funnel (live), activity, recipients, and controls. */
export function EmailDetail({ campaignId }: { campaignId: string }) {
  const campaign = useEmailDetail((s) => s.campaign);
  const status = useEmailDetail((s) => s.status);
  const error = useEmailDetail((s) => s.error);
  const notFound = useEmailDetail((s) => s.notFound);
  const timeline = useEmailDetail((s) => s.timeline);
  const open = useEmailDetail((s) => s.open);
  const close = useEmailDetail((s) => s.close);
  const reload = useEmailDetail((s) => s.reload);
  const pause = useEmailDetail((s) => s.pause);
  const resume = useEmailDetail((s) => s.resume);
  const cancel = useEmailDetail((s) => s.cancel);
  const showRecipients = useEmailRecipients((s) => s.show);
  const recipientsStatus = useEmailRecipients((s) => s.status);
  const loadRecipients = useEmailRecipients((s) => s.load);
  const [confirming, setConfirming] = useState<Confirming>(null);

  // Opens the campaign, and opens it again after a mode or workspace switch reset the stores.
  const openId = useEmailDetail((s) => s.campaignId);
  useEffect(() => {
    if (openId !== campaignId) open(campaignId);
  }, [campaignId, openId, open]);
  const recipientsFor = useEmailRecipients((s) => s.campaignId);
  useEffect(() => {
    if (recipientsFor !== campaignId) showRecipients(campaignId);
  }, [campaignId, recipientsFor, showRecipients]);
  useEffect(() => () => close(), [close]);

  const started = campaign !== null && !canDoEmail('edit', campaign.status);
  useEffect(() => {
    if (started && recipientsStatus === 'idle') void loadRecipients();
  }, [started, recipientsStatus, loadRecipients]);

  const back = (
    <a href={hrefFor('email')} className="link-button">
      ← Email
    </a>
  );

  if (!campaign) {
    return (
      <div className="screen" data-testid="email-detail" aria-busy={status !== 'error'}>
        <PageHeader
          eyebrow={back}
          title="Email campaign"
          description={
            notFound
              ? 'Not found.'
              : status === 'error'
                ? 'The campaign could not be opened.'
                : 'Loading…'
          }
        />
        {notFound ? (
          <div className="banner banner-info" role="status" data-testid="email-not-found">
            <span className="banner-text">
              There is no such email campaign here. Campaigns belong to one mode (test or live) and
              one workspace: switch back to the one it was made in, or{' '}
              <a href={hrefFor('email')}>see the email campaigns of this one</a>.
            </span>
          </div>
        ) : status === 'error' && error ? (
          <ErrorBanner message={error} onRetry={() => void reload()} />
        ) : null}
      </div>
    );
  }

  const c = campaign.counts;
  const left = c.pending;
  const name = campaign.name;

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
          <>
            {canDoEmail('edit', campaign.status) ? (
              <a
                href={hrefFor('email', `${campaign.id}/edit`)}
                className="button button-primary"
                data-testid="email-edit"
              >
                Edit
              </a>
            ) : null}
            {canDoEmail('pause', campaign.status) ? (
              <button
                type="button"
                className="button"
                onClick={() => setConfirming('pause')}
                data-testid="email-pause"
              >
                Pause
              </button>
            ) : null}
            {campaign.status === 'paused' ? (
              <button
                type="button"
                className="button button-primary"
                onClick={() => setConfirming('resume')}
                data-testid="email-resume"
              >
                Resume
              </button>
            ) : null}
            {canDoEmail('cancel', campaign.status) ? (
              <button
                type="button"
                className="button button-danger-ghost"
                onClick={() => setConfirming('cancel')}
                data-testid="email-cancel"
              >
                Cancel campaign
              </button>
            ) : null}
          </>
        }
      />

      {status === 'error' && error ? (
        <ErrorBanner message={error} onRetry={() => void reload()} />
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
            <section className="card campaign-chart" aria-labelledby="email-chart-title">
              <h2 id="email-chart-title" className="card-title">
                Activity
              </h2>
              <Suspense fallback={<p className="send-rate-loading">Loading the chart…</p>}>
                <EmailActivityChart timeline={timeline} />
              </Suspense>
            </section>
          </div>
          <EmailRecipientsTable />
        </>
      ) : null}

      <Message campaign={campaign} />

      {confirming === 'pause' ? (
        <ConfirmDialog
          title={`Pause “${name}”?`}
          onClose={() => setConfirming(null)}
          onConfirm={pause}
          doneMessage={`Paused “${name}”.`}
          confirmLabel="Pause"
          busyLabel="Pausing…"
          testId="email-pause-dialog"
          confirmTestId="email-pause-confirm"
        >
          Nothing more is sent until you resume
          {left > 0 ? ` (${plural(left, 'recipient')} still to go)` : ''}. Emails already sent still
          arrive, and their opens and clicks still count.
        </ConfirmDialog>
      ) : null}
      {confirming === 'resume' ? (
        <ConfirmDialog
          title={`Resume “${name}”?`}
          onClose={() => setConfirming(null)}
          onConfirm={resume}
          doneMessage={`“${name}” is sending again.`}
          confirmLabel="Resume"
          busyLabel="Resuming…"
          testId="email-resume-dialog"
          confirmTestId="email-resume-confirm"
        >
          Sending picks up where it stopped
          {left > 0 ? `, with the ${formatCount(left)} recipients not emailed yet` : ''}. Nobody is
          sent the email twice.
        </ConfirmDialog>
      ) : null}
      {confirming === 'cancel' ? (
        <ConfirmDialog
          title={`Cancel “${name}”?`}
          onClose={() => setConfirming(null)}
          onConfirm={cancel}
          doneMessage={`Cancelled “${name}”.`}
          confirmLabel="Cancel campaign"
          busyLabel="Cancelling…"
          testId="email-cancel-dialog"
          confirmTestId="email-cancel-confirm"
        >
          {canDoEmail('edit', campaign.status)
            ? 'It will not be sent, and can no longer be edited or launched.'
            : `${left > 0 ? `The ${plural(left, 'recipient')} not emailed yet are not sent it. ` : ''}This cannot be undone; emails already sent are not recalled.`}
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
