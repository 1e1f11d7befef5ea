import type { Contact } from '../../../../shared/schemas/index.ts';
import { formatDate, formatDateTime } from '../../components/format.ts';
import './email.css';

/**
 * A contact's email subscription: subscribed, unsubscribed on a date (from every email
 * campaign), or no address to email.
 */
export function EmailSubscription({
  contact,
  compact = false,
}: {
  contact: Contact;
  /** In a table cell: shorter words, the full date on hover. */
  compact?: boolean;
}) {
  const { email, emailUnsubscribedAt } = contact;
  if (!email) {
    return compact ? null : (
      <span className="email-sub email-sub-none" data-testid="email-subscription" data-state="none">
        No email address
      </span>
    );
  }
  if (emailUnsubscribedAt) {
    return (
      <span
        className="email-sub email-sub-unsubscribed"
        title={`Unsubscribed from email on ${formatDateTime(emailUnsubscribedAt)}`}
        data-testid="email-subscription"
        data-state="unsubscribed"
      >
        {compact ? 'Unsubscribed' : `Unsubscribed on ${formatDate(emailUnsubscribedAt)}`}
      </span>
    );
  }
  if (compact) return null;
  return (
    <span
      className="email-sub email-sub-subscribed"
      data-testid="email-subscription"
      data-state="subscribed"
    >
      Subscribed to email
    </span>
  );
}
