import { emailApi, type CampaignTarget, type EmailAudience } from '../../stores/email-api.ts';
import { useCheck, type Check } from '../campaigns/use-audience.ts';

export type EmailAudienceCheck = Check<EmailAudience>;

/** Whom an audience reaches by email (and whom it leaves out), asked of the core. */
export const useEmailAudience = (
  audience: CampaignTarget | null,
  delayMs?: number,
): EmailAudienceCheck => useCheck(audience, emailApi.audience, delayMs);
