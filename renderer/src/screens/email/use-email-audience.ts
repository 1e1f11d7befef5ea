import { emailApi, type EmailAudience, type EmailAudienceBody } from '../../stores/email-api.ts';
import { useCheck, type Check } from '../campaigns/use-audience.ts';

export type EmailAudienceCheck = Check<EmailAudience>;

/**
 * Whom an audience reaches by email (and whom it leaves out), and which placeholders of the
 * subject and bodies its recipients have no value for, asked of the core.
 */
export const useEmailAudience = (
  question: EmailAudienceBody | null,
  delayMs?: number,
): EmailAudienceCheck => useCheck(question, emailApi.audience, delayMs);
