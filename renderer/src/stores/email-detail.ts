import { createCampaignDetailStore } from './campaign-stores.ts';
import { emailCampaignKind, useEmailCampaigns } from './email.ts';
import { emailApi } from './email-api.ts';

/**
 * The email campaign open on its page: its record (status, counts) kept live by the event
 * stream, and its activity timeline (none before it is launched), read again (at most every few
 * seconds) as progress arrives.
 */
export const useEmailDetail = createCampaignDetailStore({
  kind: emailCampaignKind,
  api: emailApi,
  list: useEmailCampaigns,
  hasTimeline: (campaign) => campaign.status !== 'draft',
});
