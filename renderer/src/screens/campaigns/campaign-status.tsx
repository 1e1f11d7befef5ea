import type { CampaignStatus, RecipientStatus } from '../../../../shared/campaign-rules.ts';
import { CAMPAIGN_STATUS_LABELS } from '../../stores/campaigns.ts';

export const RECIPIENT_STATUS_LABELS: Record<RecipientStatus, string> = {
  pending: 'Pending',
  retrying: 'Retrying',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Failed',
  skipped: 'Skipped',
};

/** A campaign's state in words, with a tone (the word carries it; colour only repeats it). */
export function CampaignStatusChip({
  status,
  testId = 'campaign-status',
}: {
  status: CampaignStatus;
  testId?: string;
}) {
  return (
    <span className={`badge cstatus cstatus-${status}`} data-testid={testId} data-status={status}>
      {CAMPAIGN_STATUS_LABELS[status]}
    </span>
  );
}

export function RecipientStatusChip({ status }: { status: RecipientStatus }) {
  return (
    <span
      className={`badge rstatus rstatus-${status}`}
      data-testid="recipient-status"
      data-status={status}
    >
      {RECIPIENT_STATUS_LABELS[status]}
    </span>
  );
}
