import { createRecipientsStore } from './campaign-stores.ts';
import { emailCampaignKind } from './email.ts';
import { emailApi, type EmailStatus } from './email-api.ts';

export type EmailRecipientFilter = EmailStatus | '';

/** The recipients table of the open email campaign: one email per recipient. */
export const useEmailRecipients = createRecipientsStore({
  kind: emailCampaignKind,
  read: (campaignId, query: { status: EmailRecipientFilter; limit: number; cursor?: string }) =>
    emailApi.recipients(campaignId, query),
  isFinal: (status) => status === 'completed' || status === 'cancelled',
});
