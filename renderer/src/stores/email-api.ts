/**
 * The email part of the one API client (api/client.ts `api.email`) and the record types the
 * email screens share.
 */
import { api } from '../api/client.ts';

export type { EmailCampaignQuery, EmailRecipientQuery, SmtpCheck } from '../api/client.ts';
export type {
  CreateEmailCampaignBody,
  EmailAudience,
  EmailAudienceBody,
  EmailCampaign,
  EmailCampaignStatus,
  EmailCounts,
  EmailMessage,
  EmailSettings,
  EmailSettingsBody,
  EmailStatus,
  EmailTimeline,
  UpdateEmailCampaignBody,
} from '../../../shared/schemas/email.ts';
export type { CampaignTarget } from '../../../shared/schemas/campaigns.ts';

export const emailApi = api.email;
