import { formatDateTime } from '../../components/format.ts';
import type { EmailCampaign } from '../../stores/email-api.ts';
import { hrefFor } from '../../stores/route.ts';
import { timeZone } from '../campaigns/campaign-format.ts';

/** Why a campaign stopped (by itself or not), or when it starts: the banner under its header. */
export function EmailNotices({ campaign }: { campaign: EmailCampaign }) {
  const { status, pauseReason, pauseMessage } = campaign;

  if (status === 'paused') {
    return (
      <div className="banner banner-warning" role="status" data-testid="email-paused-notice">
        <span className="banner-text">
          {pauseReason === 'smtp_settings' ? (
            <>
              <strong>Paused: the mail server refused to send.</strong> Fix the server in{' '}
              <a href={hrefFor('email', 'settings')} data-testid="email-paused-settings">
                email settings
              </a>{' '}
              (“Check connection” there tells whether it works), then resume.
              {pauseMessage ? (
                <>
                  {' '}
                  It said: <code className="email-server-answer">{pauseMessage}</code>
                </>
              ) : null}
            </>
          ) : (
            <>
              <strong>Paused.</strong> Nothing more is sent until you resume; opens and clicks of
              emails already sent still count.
            </>
          )}
        </span>
      </div>
    );
  }
  if (status === 'scheduled' && campaign.scheduledFor) {
    return (
      <div className="banner banner-info" role="status" data-testid="email-scheduled-notice">
        <span className="banner-text">
          Scheduled: sending starts on <strong>{formatDateTime(campaign.scheduledFor)}</strong> (
          {timeZone()}). It can be edited until then.
        </span>
      </div>
    );
  }
  if (status === 'cancelled') {
    return (
      <div className="banner banner-info" role="status" data-testid="email-cancelled-notice">
        <span className="banner-text">
          Cancelled{campaign.completedAt ? ` on ${formatDateTime(campaign.completedAt)}` : ''}:
          recipients not emailed by then were not sent it.
        </span>
      </div>
    );
  }
  return null;
}
