import { isFinalCampaign, type RecipientStatus } from '../../../shared/campaign-rules.ts';
import { createRecipientsStore } from './campaign-stores.ts';
import { campaignKind } from './campaigns.ts';
import { campaignsApi, type CampaignRecipient } from './campaigns-api.ts';

/** A recipient row; a campaign has one per contact, so the contact's id names the row. */
export type RecipientRow = CampaignRecipient & { id: string };

export type RecipientFilter = RecipientStatus | '';

/** The recipients table of the open campaign (its end turns cancelled rows skipped). */
export const useCampaignRecipients = createRecipientsStore({
  kind: campaignKind,
  read: async (campaignId, query: { status: RecipientFilter; limit: number; cursor?: string }) => {
    const page = await campaignsApi.recipients(campaignId, query);
    return { ...page, data: page.data.map((r): RecipientRow => ({ ...r, id: r.contactId })) };
  },
  isFinal: isFinalCampaign,
});
