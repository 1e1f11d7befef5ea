import { formatDateTime, plural } from '../../components/format.ts';
import { hrefFor } from '../../stores/route.ts';
import type { EmailAudience } from '../../stores/email-api.ts';
import { formatCount, timeZone } from '../campaigns/campaign-format.ts';
import { LaunchDialogFrame, type LaunchProps } from '../campaigns/launch-dialog.tsx';

interface EmailLaunchDialogProps extends LaunchProps {
  subject: string;
  /** Whom the audience reaches now (null while it is being counted). */
  audience: EmailAudience | null;
}

/** The last look before an email campaign goes out: to whom, what, when, and through what. */
export function EmailLaunchDialog({
  subject,
  audience,
  testMode,
  ...launch
}: EmailLaunchDialogProps) {
  const who = audience === null ? 'its audience' : plural(audience.total, 'recipient');
  const left = audience ? audience.withoutEmail + audience.unsubscribed : 0;
  return (
    <LaunchDialogFrame who={who} testIdPrefix="email" {...launch}>
      <p>
        {launch.scheduledFor ? (
          <>
            On {formatDateTime(launch.scheduledFor)} ({timeZone()}) Parley starts emailing “
            {subject}” to <strong data-testid="email-launch-count">{who}</strong>.
          </>
        ) : (
          <>
            Parley starts emailing “{subject}” to{' '}
            <strong data-testid="email-launch-count">{who}</strong> at once, at the sending rate set
            for this mode.
          </>
        )}{' '}
        The recipients are fixed when sending starts, and each gets it once; the campaign can then
        be paused, resumed or cancelled, not edited.
      </p>
      {audience && left > 0 ? (
        <p className="hint">
          Left out: {formatCount(audience.withoutEmail)} without an email address and{' '}
          {formatCount(audience.unsubscribed)} who unsubscribed.
        </p>
      ) : null}
      <p className="hint">
        {testMode ? (
          'Test mode: the emails go to the simulated transport; nothing leaves this computer.'
        ) : (
          <>
            Live: the emails go out through the SMTP server in{' '}
            <a href={hrefFor('email', 'settings')}>email settings</a>.
          </>
        )}
      </p>
    </LaunchDialogFrame>
  );
}
