import type { EmailCampaignStatus, EmailStatus } from '../../stores/email-api.ts';
import { CampaignStatusChip } from '../campaigns/campaign-status.tsx';
import { EMAIL_STATUS_LABELS } from './email-format.ts';

/** An email campaign's state: the same words and tones as a messaging campaign's. */
export function EmailCampaignStatusChip({
  status,
  testId = 'email-campaign-status',
}: {
  status: EmailCampaignStatus;
  testId?: string;
}) {
  return <CampaignStatusChip status={status} testId={testId} />;
}

/** One email's state in words (the word carries it; the tone only repeats it). */
export function EmailStatusChip({ status }: { status: EmailStatus }) {
  return (
    <span
      className={`badge estatus estatus-${status}`}
      data-testid="email-recipient-status"
      data-status={status}
    >
      {EMAIL_STATUS_LABELS[status]}
    </span>
  );
}
