/**
 * The campaigns part of the one API client (api/client.ts `api.campaigns`) and the record types
 * the campaign screens share.
 */
import { api } from '../api/client.ts';

export type {
  AudienceQuery,
  CampaignQuery,
  ContactCampaign,
  RecipientQuery,
} from '../api/client.ts';
export type {
  Campaign,
  CampaignAudience,
  CampaignProgress,
  CampaignRecipient,
  CampaignTarget,
  CampaignTimeline,
  CreateCampaignBody,
  UpdateCampaignBody,
} from '../../../shared/schemas/campaigns.ts';

export const campaignsApi = api.campaigns;
