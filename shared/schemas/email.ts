import { z } from 'zod';
import { EMAIL_CAMPAIGN_STATUSES } from '../campaign-states.ts';
import { EMAIL_LIMITS, isEmailAddress } from '../email-rules.ts';
import { MARKDOWN_MAX } from '../email-markdown.ts';
import { headerText } from './header-text.ts';
import { campaignTargetSchema, missingPlaceholdersSchema } from './campaigns.ts';
import { isoDate, page, pageQuery } from './common.ts';

/** Email campaign states: the one state machine's (campaign-states.ts). */
export { EMAIL_CAMPAIGN_STATUSES } from '../campaign-states.ts';
export type { EmailCampaignStatus } from '../campaign-states.ts';

/**
 * One email's way: `pending` (not yet handed to the transport; `sending` while an SMTP exchange
 * runs), then `sent` (handed over), `delivered` (the simulator delivered it / the next SMTP server
 * answered 250) or `bounced`; `failed` when it could not be handed over; `cancelled` when its
 * campaign was cancelled first.
 */
export const EMAIL_STATUSES = [
  'pending',
  'sending',
  'sent',
  'delivered',
  'bounced',
  'failed',
  'cancelled',
] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** Why a campaign paused by itself (null when a person paused it). */
export const EMAIL_PAUSE_REASONS = ['smtp_settings'] as const;

/** An address checked by a well-kept validator (validator.js `isEmail`), not a hand regex. */
export const emailAddress = headerText()
  .trim()
  .max(254)
  .refine(isEmailAddress, 'is not a valid email address');

const scheduledFor = z.iso
  .datetime({ offset: true, message: 'scheduledFor must be ISO 8601 with an offset' })
  .describe('ISO 8601 with an offset (e.g. `2026-12-01T09:00:00+01:00`), in the future');

const campaignFields = {
  name: z.string().trim().min(1, 'name is required').max(EMAIL_LIMITS.name),
  subject: headerText().trim().min(1, 'subject is required').max(EMAIL_LIMITS.subject),
  fromName: headerText().trim().max(EMAIL_LIMITS.fromName).nullable(),
  fromEmail: emailAddress,
  replyTo: emailAddress.nullable(),
  html: z.string().min(1, 'html is required').max(EMAIL_LIMITS.html),
  markdown: z
    .string()
    .trim()
    .min(1, 'markdown is empty')
    .max(
      MARKDOWN_MAX,
      `markdown is at most ${MARKDOWN_MAX.toLocaleString('en-US')} characters (64 KB): shorten it, or write a longer body in HTML`,
    )
    .nullable()
    .describe(
      'the body in Markdown: the core renders it to `html` (markdown-it, raw HTML shown as text) and keeps it; give `html` or `markdown`, not both. `null` on update keeps the rendered html and drops the Markdown (the body is edited as HTML from then on)',
    ),
  text: z
    .string()
    .max(EMAIL_LIMITS.text)
    .nullable()
    .describe('plain-text alternative; generated from html when absent'),
  audience: campaignTargetSchema.describe(
    '`{groupId}` or `{filter: {labels?, phones?, attributes?}}`; only contacts with an email that have not unsubscribed are recipients',
  ),
};

/** A body is written in one of the two: `html`, or `markdown` that the core renders to html. */
const oneBody = (b: { html?: string | undefined; markdown?: string | null | undefined }) =>
  !(b.html !== undefined && typeof b.markdown === 'string');
const ONE_BODY = { message: 'give html or markdown, not both', path: ['markdown'] };

export const createEmailCampaignBody = z
  .object({
    ...campaignFields,
    html: campaignFields.html.optional(),
    markdown: campaignFields.markdown.optional(),
    fromName: campaignFields.fromName.optional(),
    replyTo: campaignFields.replyTo.optional(),
    text: campaignFields.text.optional(),
    scheduledFor: scheduledFor.nullable().optional(),
  })
  .strict()
  .refine(oneBody, ONE_BODY)
  .refine((b) => b.html !== undefined || typeof b.markdown === 'string', {
    message: 'html is required (or markdown)',
    path: ['html'],
  });
export type CreateEmailCampaignBody = z.infer<typeof createEmailCampaignBody>;

export const updateEmailCampaignBody = z
  .object({
    name: campaignFields.name.optional(),
    subject: campaignFields.subject.optional(),
    fromName: campaignFields.fromName.optional(),
    fromEmail: campaignFields.fromEmail.optional(),
    replyTo: campaignFields.replyTo.optional(),
    html: campaignFields.html.optional(),
    markdown: campaignFields.markdown.optional(),
    text: campaignFields.text.optional(),
    audience: campaignFields.audience.optional(),
    scheduledFor: scheduledFor.nullable().optional(),
  })
  .strict()
  .refine(oneBody, ONE_BODY);
export type UpdateEmailCampaignBody = z.infer<typeof updateEmailCampaignBody>;

export const launchEmailCampaignBody = z
  .object({ scheduledFor: scheduledFor.optional() })
  .strict()
  .default({});

export const emailCountsSchema = z.object({
  total: z.number().int().describe('recipients fixed at launch'),
  pending: z.number().int().describe('not yet handed to the transport'),
  sent: z.number().int().describe('handed to the transport (delivered and bounced ones included)'),
  delivered: z.number().int().describe('⊆ sent: accepted by the next server (SMTP 250)'),
  opened: z.number().int().describe('⊆ delivered: loaded the tracking image (an estimate)'),
  clicked: z.number().int().describe('followed a tracked link'),
  bounced: z.number().int().describe('⊆ sent: refused (SMTP 5xx or a rejected recipient)'),
  failed: z.number().int().describe('could not be handed over'),
  unsubscribed: z.number().int().describe('unsubscribed through this campaign'),
  cancelled: z.number().int().describe('not sent because the campaign was cancelled'),
});
export type EmailCounts = z.infer<typeof emailCountsSchema>;

export const emailCampaignSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(EMAIL_CAMPAIGN_STATUSES),
  subject: z.string(),
  fromName: z.string().nullable(),
  fromEmail: z.string(),
  replyTo: z.string().nullable(),
  html: z.string().describe('the body that goes out (rendered from `markdown` when it is set)'),
  markdown: z
    .string()
    .nullable()
    .describe('the Markdown the body was written in; null when it was written as HTML'),
  text: z.string().nullable(),
  audience: campaignTargetSchema,
  scheduledFor: isoDate.nullable(),
  counts: emailCountsSchema,
  pauseReason: z.enum(EMAIL_PAUSE_REASONS).nullable(),
  pauseMessage: z.string().nullable().describe('what the SMTP server said when it paused itself'),
  environment: z.enum(['test', 'live']),
  createdAt: isoDate,
  updatedAt: isoDate,
  launchedAt: isoDate.nullable(),
  completedAt: isoDate.nullable(),
});
export type EmailCampaign = z.infer<typeof emailCampaignSchema>;

export const listEmailCampaignsQuery = pageQuery.extend({
  status: z.enum(EMAIL_CAMPAIGN_STATUSES).optional(),
});

export const emailMessageSchema = z.object({
  id: z.string(),
  campaignId: z.string().nullable(),
  contactId: z.string().nullable(),
  to: z.string(),
  subject: z.string(),
  status: z.enum(EMAIL_STATUSES),
  attempts: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  smtpResponse: z.string().nullable().describe('the SMTP server’s last answer (live keys)'),
  sentAt: isoDate.nullable(),
  deliveredAt: isoDate.nullable(),
  openedAt: isoDate.nullable(),
  clickedAt: isoDate.nullable(),
  unsubscribedAt: isoDate.nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type EmailMessage = z.infer<typeof emailMessageSchema>;

export const listEmailRecipientsQuery = pageQuery.extend({
  status: z.enum(EMAIL_STATUSES).optional(),
});

export const emailTimelineSchema = z.object({
  bucketSeconds: z.number().int(),
  data: z.array(
    z.object({
      at: isoDate.describe('start of the bucket'),
      sent: z.number().int(),
      opened: z.number().int().describe('first opens in the bucket'),
      clicked: z.number().int().describe('first clicks in the bucket'),
    }),
  ),
});
export type EmailTimeline = z.infer<typeof emailTimelineSchema>;

export const emailAudienceBody = z
  .object({
    audience: campaignTargetSchema,
    subject: z
      .string()
      .max(EMAIL_LIMITS.subject)
      .optional()
      .describe('with html and text: which placeholders the recipients lack'),
    html: z.string().max(EMAIL_LIMITS.html).optional(),
    text: z.string().max(EMAIL_LIMITS.text).nullable().optional(),
  })
  .strict();
export type EmailAudienceBody = z.infer<typeof emailAudienceBody>;
export const emailAudienceSchema = z.object({
  total: z.number().int().describe('contacts with an email that have not unsubscribed'),
  withoutEmail: z.number().int().describe('matched but have no email address'),
  unsubscribed: z.number().int().describe('matched but unsubscribed from email'),
  missingPlaceholders: missingPlaceholdersSchema.describe(
    'placeholders of the given subject, html and text that recipients have no value for (they would render empty), and for how many; a placeholder with a fallback is never missing',
  ),
});
export type EmailAudience = z.infer<typeof emailAudienceSchema>;

export const sendEmailBody = z
  .object({
    to: emailAddress,
    subject: campaignFields.subject,
    html: campaignFields.html.optional(),
    text: z.string().min(1).max(EMAIL_LIMITS.text).optional(),
    fromName: campaignFields.fromName.optional(),
    fromEmail: emailAddress.optional(),
  })
  .strict()
  .refine((b) => b.html !== undefined || b.text !== undefined, {
    message: 'give html, text or both',
    path: ['html'],
  });
export type SendEmailBody = z.infer<typeof sendEmailBody>;

export const testEmailBody = z
  .object({
    to: emailAddress,
    contactId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'fill the placeholders from this contact (of the same workspace and mode); the email still goes to `to`',
      ),
  })
  .strict();
export type TestEmailBody = z.infer<typeof testEmailBody>;

/** Per-link clicks of a campaign (`GET /v1/email/campaigns/:id/links`). */
export const emailLinkReportSchema = z.object({
  data: z.array(
    z.object({
      url: z.string().describe('the link as written in the email'),
      recipients: z.number().int().describe('recipients who followed it at least once'),
      clicks: z.number().int().describe('every time it was followed'),
      firstClickAt: isoDate,
      lastClickAt: isoDate,
    }),
  ),
  clickedRecipients: z
    .number()
    .int()
    .describe('recipients who followed any link (the funnel’s `clicked`)'),
  totalClicks: z.number().int().describe('every follow of every link'),
});
export type EmailLinkReport = z.infer<typeof emailLinkReportSchema>;

export const simulateEmailClickBody = z
  .object({
    messageId: z.string().min(1).max(64).describe('a campaign email of the test mode'),
    url: z
      .string()
      .max(2048)
      .optional()
      .describe('one of the email’s tracked links; the first one when absent'),
  })
  .strict();

export const smtpSettingsSchema = z.object({
  host: headerText().trim().min(1).max(255),
  port: z.number().int().min(1).max(65535),
  secure: z
    .boolean()
    .describe('true: TLS from the start (465); false: STARTTLS when offered (587)'),
  user: headerText().max(255).nullable(),
  password: z.string().max(1024).nullable().optional().describe('write-only'),
});

export const dkimSchema = z.object({
  domainName: headerText().trim().min(1).max(255),
  keySelector: headerText().trim().min(1).max(63),
  privateKey: z.string().min(1).max(16_384).optional().describe('PEM; write-only'),
});

export const emailSettingsBody = z
  .object({
    smtp: smtpSettingsSchema.nullable().optional(),
    ratePerSecond: z.number().int().min(1).max(10_000).optional(),
    publicUrl: z
      .url({ protocol: /^https?$/, message: 'publicUrl must be an http(s) URL' })
      .max(500)
      .nullable()
      .optional(),
    dkim: dkimSchema.nullable().optional(),
    defaultFromEmail: emailAddress.nullable().optional(),
    defaultFromName: headerText().trim().max(EMAIL_LIMITS.fromName).nullable().optional(),
  })
  .strict();
export type EmailSettingsBody = z.infer<typeof emailSettingsBody>;

export const emailSettingsSchema = z.object({
  smtp: z
    .object({
      host: z.string(),
      port: z.number().int(),
      secure: z.boolean(),
      user: z.string().nullable(),
      passwordSet: z.boolean(),
    })
    .nullable(),
  ratePerSecond: z.number().int(),
  publicUrl: z.string().nullable(),
  effectivePublicUrl: z
    .string()
    .describe(
      'what tracking links use (publicUrl, else the workspace’s public URL, else the core’s URL)',
    ),
  oneClickUnsubscribe: z.boolean().describe('RFC 8058 one-click needs an https publicUrl'),
  dkim: z
    .object({ domainName: z.string(), keySelector: z.string(), keySet: z.boolean() })
    .nullable(),
  defaultFromEmail: z.string().nullable(),
  defaultFromName: z.string().nullable(),
  transport: z.enum(['simulated', 'smtp']).describe('test keys always use the simulated transport'),
  updatedAt: isoDate.nullable(),
});
export type EmailSettings = z.infer<typeof emailSettingsSchema>;

/** What a connection check found (README "Email"): a class, never a non-SMTP peer's own bytes. */
export const SMTP_CHECK_OUTCOMES = [
  'connected',
  'auth_failed',
  'tls_failed',
  'unreachable',
  'not_smtp',
] as const;

export const smtpCheckSchema = z.object({
  ok: z.boolean(),
  outcome: z
    .enum(SMTP_CHECK_OUTCOMES)
    .nullable()
    .describe(
      '`connected`, `auth_failed`, `tls_failed`, `unreachable` (refused, timed out, unresolvable, or an address the workspace does not allow) or `not_smtp` (something else answered); null when no SMTP server is set up',
    ),
  response: z
    .string()
    .describe(
      'what happened, in Parley’s words; an SMTP server’s reply to the login or the test message is quoted, nothing another kind of server sent',
    ),
  code: z.string().nullable().describe('`EAUTH`, `ETLS`, `ECONNREFUSED`, `refused_target`, …'),
});
export type SmtpCheck = z.infer<typeof smtpCheckSchema>;

export const emailCampaignPage = page(emailCampaignSchema);
export const emailMessagePage = page(emailMessageSchema);
