import { lazy, Suspense, useEffect, useState } from 'react';
import { canDo } from '../../../../shared/campaign-rules.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime, plural } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import type { Campaign, CampaignTarget } from '../../stores/campaigns-api.ts';
import { useCampaignDetail } from '../../stores/campaigns-detail.ts';
import { useCampaignRecipients } from '../../stores/campaigns-recipients.ts';
import { hrefFor } from '../../stores/route.ts';
import { describeFilter, formatCount } from './campaign-format.ts';
import { CampaignFunnel } from './campaign-funnel.tsx';
import { CampaignNotices } from './campaign-notices.tsx';
import { CampaignStatusChip } from './campaign-status.tsx';
import { RecipientsTable } from './recipients-table.tsx';
import { useGroups } from './use-groups.ts';

/** The chart library loads with the first campaign page opened, not with the app. */
const SendRateChart = lazy(() =>
  import('./send-rate-chart.tsx').then((m) => ({ default: m.SendRateChart })),
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

function Summary({ campaign }: { campaign: Campaign }) {
  const when = campaign.completedAt
    ? `${campaign.status === 'completed' ? 'Finished' : 'Ended'} ${formatDateTime(campaign.completedAt)}`
    : campaign.launchedAt
      ? `Launched ${formatDateTime(campaign.launchedAt)}`
      : `Created ${formatDateTime(campaign.createdAt)}`;
  return (
    <>
      Template <code data-testid="campaign-template-name">{campaign.templateName}</code> to{' '}
      <Audience target={campaign.target} />. {when}.
    </>
  );
}

/** A campaign's page: its state and funnel (live), send rate, recipients, and its controls. */
export function CampaignDetail({ campaignId }: { campaignId: string }) {
  const campaign = useCampaignDetail((s) => s.campaign);
  const status = useCampaignDetail((s) => s.status);
  const error = useCampaignDetail((s) => s.error);
  const notFound = useCampaignDetail((s) => s.notFound);
  const timeline = useCampaignDetail((s) => s.timeline);
  const open = useCampaignDetail((s) => s.open);
  const close = useCampaignDetail((s) => s.close);
  const reload = useCampaignDetail((s) => s.reload);
  const pause = useCampaignDetail((s) => s.pause);
  const resume = useCampaignDetail((s) => s.resume);
  const cancel = useCampaignDetail((s) => s.cancel);
  const showRecipients = useCampaignRecipients((s) => s.show);
  const recipientsStatus = useCampaignRecipients((s) => s.status);
  const loadRecipients = useCampaignRecipients((s) => s.load);
  const [confirming, setConfirming] = useState<Confirming>(null);

  // Opens the campaign, and opens it again after a mode or workspace switch reset the stores.
  const openId = useCampaignDetail((s) => s.campaignId);
  useEffect(() => {
    if (openId !== campaignId) open(campaignId);
  }, [campaignId, openId, open]);
  const recipientsFor = useCampaignRecipients((s) => s.campaignId);
  useEffect(() => {
    if (recipientsFor !== campaignId) showRecipients(campaignId);
  }, [campaignId, recipientsFor, showRecipients]);
  useEffect(() => () => close(), [close]);

  const launched = campaign !== null && campaign.status !== 'draft';
  useEffect(() => {
    if (launched && recipientsStatus === 'idle') void loadRecipients();
  }, [launched, recipientsStatus, loadRecipients]);

  const back = (
    <a href={hrefFor('campaigns')} className="link-button">
      ← Campaigns
    </a>
  );

  if (!campaign) {
    return (
      <div className="screen" data-testid="campaign-detail" aria-busy={status !== 'error'}>
        <PageHeader
          eyebrow={back}
          title="Campaign"
          description={
            notFound
              ? 'Not found.'
              : status === 'error'
                ? 'The campaign could not be opened.'
                : 'Loading…'
          }
        />
        {notFound ? (
          <div className="banner banner-info" role="status" data-testid="campaign-not-found">
            <span className="banner-text">
              There is no such campaign here. Campaigns belong to one mode (test or live) and one
              workspace: switch back to the one it was made in, or{' '}
              <a href={hrefFor('campaigns')}>see the campaigns of this one</a>.
            </span>
          </div>
        ) : status === 'error' && error ? (
          <ErrorBanner message={error} onRetry={() => void reload()} />
        ) : null}
      </div>
    );
  }

  const p = campaign.metrics;
  const left = p.pending + p.retrying;
  const name = campaign.name;

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
          <>
            {canDo('edit', campaign.status) ? (
              <a
                href={hrefFor('campaigns', `${campaign.id}/edit`)}
                className="button button-primary"
                data-testid="campaign-edit"
              >
                Edit draft
              </a>
            ) : null}
            {canDo('pause', campaign.status) ? (
              <button
                type="button"
                className="button"
                onClick={() => setConfirming('pause')}
                data-testid="campaign-pause"
              >
                Pause
              </button>
            ) : null}
            {campaign.status === 'paused' && canDo('launch', campaign.status) ? (
              <button
                type="button"
                className="button button-primary"
                onClick={() => setConfirming('resume')}
                data-testid="campaign-resume"
              >
                Resume
              </button>
            ) : null}
            {canDo('cancel', campaign.status) ? (
              <button
                type="button"
                className="button button-danger-ghost"
                onClick={() => setConfirming('cancel')}
                data-testid="campaign-cancel"
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
            <section className="card campaign-chart" aria-labelledby="campaign-chart-title">
              <h2 id="campaign-chart-title" className="card-title">
                Send rate
              </h2>
              <Suspense fallback={<p className="send-rate-loading">Loading the chart…</p>}>
                <SendRateChart timeline={timeline} />
              </Suspense>
            </section>
          </div>
          <RecipientsTable />
        </>
      )}

      {confirming === 'pause' ? (
        <ConfirmDialog
          title={`Pause “${name}”?`}
          onClose={() => setConfirming(null)}
          onConfirm={pause}
          doneMessage={`Paused “${name}”.`}
          confirmLabel="Pause"
          busyLabel="Pausing…"
          testId="campaign-pause-dialog"
          confirmTestId="campaign-pause-confirm"
        >
          Nothing more is sent until you resume
          {left > 0 ? ` (${plural(left, 'recipient')} still to go)` : ''}. Messages already handed
          to the channel still arrive, and their receipts still count.
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
          testId="campaign-resume-dialog"
          confirmTestId="campaign-resume-confirm"
        >
          Sending picks up where it stopped
          {left > 0 ? `, with the ${formatCount(left)} recipients not sent yet` : ''}. Nobody is
          sent the message twice.
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
          testId="campaign-cancel-dialog"
          confirmTestId="campaign-cancel-confirm"
        >
          {campaign.status === 'draft'
            ? 'The draft is kept as cancelled and can no longer be launched.'
            : `${left > 0 ? `The ${plural(left, 'recipient')} not sent yet are skipped. ` : ''}This cannot be undone; messages already sent are not recalled.`}
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
