import { createCampaignDetailStore } from './campaign-stores.ts';
import { campaignKind, useCampaigns } from './campaigns.ts';
import { campaignsApi } from './campaigns-api.ts';

/**
 * The campaign open on its detail page: its record (status, funnel) kept live by the event
 * stream, and its send-rate timeline, read again (at most every few seconds) as progress arrives.
 */
export const useCampaignDetail = createCampaignDetailStore({
  kind: campaignKind,
  api: campaignsApi,
  list: useCampaigns,
});
