import { RECIPIENT_ERRORS } from '../../../../shared/campaign-rules.ts';
import { formatDateTime } from '../../components/format.ts';
import type { Campaign, CampaignProgress } from '../../stores/campaigns-api.ts';
import { hrefFor } from '../../stores/route.ts';
import { formatSoon, timeZone } from './campaign-format.ts';

/** What holds a sending campaign back right now, in words and local time; null when nothing. */
export function blockedNotice(progress: CampaignProgress, now = Date.now()): string | null {
  if (progress.status !== 'sending' || !progress.blockedBy) return null;
  const until =
    progress.blockedUntil && Date.parse(progress.blockedUntil) > now
      ? formatSoon(progress.blockedUntil, now)
      : null;
  switch (progress.blockedBy) {
    case 'tier':
      return `Waiting for the 24 h tier window${until ? ` until ${until}` : ''}: the account's messaging tier caps how many people it may start talking to in 24 hours.`;
    case 'throughput':
      return "Sending at the account's pace: the channel takes only so many messages a second.";
    case 'pair_rate':
      return `Waiting 6 s between messages to the same person${until ? ` (next at ${until})` : ''}.`;
  }
}

/** Why a campaign stopped (by itself or not), or when it starts: the banner under its header. */
export function CampaignNotices({ campaign }: { campaign: Campaign }) {
  const { status, pauseReason, failureReason } = campaign;

  if (status === 'paused') {
    return (
      <div className="banner banner-warning" role="status" data-testid="campaign-paused-notice">
        <span className="banner-text">
          {pauseReason === 'insufficient_balance' ? (
            <>
              <strong>Paused: the wallet is empty</strong> — <a href={hrefFor('wallet')}>top up</a>{' '}
              and resume.
            </>
          ) : pauseReason === 'error_rate' ? (
            <>
              <strong>Paused: more than half of the last 100 attempts failed.</strong> See the
              failed recipients below; resume once the cause is fixed, or cancel.
            </>
          ) : (
            <>
              <strong>Paused.</strong> Nothing more is sent until you resume; receipts for messages
              already sent still arrive.
            </>
          )}
        </span>
      </div>
    );
  }
  if (status === 'failed') {
    const known = failureReason ? RECIPIENT_ERRORS[failureReason] : undefined;
    return (
      <div className="banner banner-error" role="status" data-testid="campaign-failed-notice">
        <span className="banner-text">
          <strong>This campaign failed</strong>
          {known
            ? `: ${known.title.toLowerCase()}. ${known.explanation}`
            : failureReason
              ? `: ${failureReason}`
              : '.'}
        </span>
      </div>
    );
  }
  if (status === 'scheduled' && campaign.scheduledFor) {
    return (
      <div className="banner banner-info" role="status" data-testid="campaign-scheduled-notice">
        <span className="banner-text">
          Scheduled: sending starts on <strong>{formatDateTime(campaign.scheduledFor)}</strong> (
          {timeZone()}).
        </span>
      </div>
    );
  }
  if (status === 'cancelled') {
    return (
      <div className="banner banner-info" role="status" data-testid="campaign-cancelled-notice">
        <span className="banner-text">
          Cancelled{campaign.completedAt ? ` on ${formatDateTime(campaign.completedAt)}` : ''}:
          recipients not sent to by then were skipped.
        </span>
      </div>
    );
  }
  return null;
}
