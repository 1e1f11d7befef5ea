import { useState } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { formatClockSeconds, formatDateTime, formatDayTime } from '../../components/format.ts';
import type { EmailMessage } from '../../stores/email-api.ts';
import { useEmailRecipients, type EmailRecipientFilter } from '../../stores/email-recipients.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { notify } from '../../stores/toasts.ts';
import { RecipientsCard } from '../campaigns/recipients-card.tsx';
import { EMAIL_STATUS_LABELS, EMAIL_STATUSES } from './email-format.ts';
import { refreshEmailLinks } from './email-links.tsx';
import { EmailStatusChip } from './email-status.tsx';

const FILTERS: readonly EmailRecipientFilter[] = ['', ...EMAIL_STATUSES];

/** A moment in a row: the clock (to the second) today, the day too otherwise. */
function Time({ at }: { at: string | null }) {
  const date = at ? new Date(at) : null;
  if (!at || !date || Number.isNaN(date.getTime())) return <span className="muted">—</span>;
  const today = date.toDateString() === new Date().toDateString();
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {today ? formatClockSeconds(date) : formatDayTime(date)}
    </time>
  );
}

/** What went wrong (the server's own answer on hover), or that they unsubscribed. */
function Outcome({ email }: { email: EmailMessage }) {
  if (email.error) {
    return (
      <span
        className="email-recipient-error"
        title={email.smtpResponse ?? email.error.message}
        data-testid="email-recipient-error"
      >
        {email.error.message} <code className="muted">{email.error.code}</code>
      </span>
    );
  }
  if (email.unsubscribedAt) {
    return (
      <span className="muted" title={formatDateTime(email.unsubscribedAt)}>
        Unsubscribed
      </span>
    );
  }
  return <span className="muted">—</span>;
}

/**
 * Test mode's "simulate a click" on one recipient (design.md §8): the simulator follows the
 * email's first link through the same redirect a real click takes, so the funnel, the links
 * report and the row move as they would.
 */
function SimulateClick({ email }: { email: EmailMessage }) {
  const [busy, setBusy] = useState(false);
  if (email.status !== 'sent' && email.status !== 'delivered') return null;
  return (
    <button
      type="button"
      className="link-button email-simulate-click"
      disabled={busy}
      title={`Simulate ${email.to} clicking the email’s first link (test mode)`}
      onClick={() => {
        setBusy(true);
        api.email.simulateClick(email.id).then(
          () => {
            setBusy(false);
            void useEmailRecipients.getState().refresh();
            refreshEmailLinks();
          },
          (e: unknown) => {
            setBusy(false);
            notify('error', `The click was not simulated: ${errorMessage(e)}`);
          },
        );
      }}
      data-testid="email-simulate-click"
    >
      {busy ? 'Clicking…' : 'Click'}
    </button>
  );
}

/** Everyone the campaign emails, by status, with what became of their email. */
export function EmailRecipientsTable() {
  const testMode = useSession(selectIsTestMode);
  return (
    <RecipientsCard
      store={useEmailRecipients}
      titleId="email-recipients-title"
      testIdPrefix="email-"
      exportCsv={api.email.exportRecipients}
      filters={FILTERS}
      labels={EMAIL_STATUS_LABELS}
      gridClassName="email-recipients-grid"
      columns={
        <>
          <div role="columnheader">Address</div>
          <div role="columnheader">Status</div>
          <div role="columnheader">Sent</div>
          <div role="columnheader" className="col-optional">
            Delivered
          </div>
          <div role="columnheader">Opened</div>
          <div role="columnheader">Clicked</div>
          <div role="columnheader">Problem</div>
        </>
      }
      noneYet="No recipients: they are fixed when the campaign starts sending."
      cells={(email) => (
        <>
          <div role="cell" className="truncate" title={email.to}>
            {email.to}
          </div>
          <div role="cell">
            <EmailStatusChip status={email.status} />
          </div>
          <div role="cell" className="nowrap">
            <Time at={email.sentAt} />
          </div>
          <div role="cell" className="nowrap col-optional">
            <Time at={email.deliveredAt} />
          </div>
          <div role="cell" className="nowrap">
            <Time at={email.openedAt} />
          </div>
          <div role="cell" className="nowrap email-clicked-cell">
            <Time at={email.clickedAt} />
            {testMode ? <SimulateClick email={email} /> : null}
          </div>
          <div role="cell" className="truncate">
            <Outcome email={email} />
          </div>
        </>
      )}
    />
  );
}
