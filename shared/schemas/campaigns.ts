import { z } from 'zod';
import {
  BLOCKED_BY,
  CAMPAIGN_STATUSES,
  PAUSE_REASONS,
  RECIPIENT_STATUSES,
} from '../campaign-rules.ts';
import { isoDate, page, pageQuery } from './common.ts';
import { labelSchema } from './contacts.ts';

export { BLOCKED_BY, CAMPAIGN_STATUSES, PAUSE_REASONS, RECIPIENT_STATUSES };

const attributeMatch = z.union([z.string().max(1000), z.number(), z.boolean()]);

/** Who a campaign reaches: one group, or a filter (labels: any of; attributes: all equal). */
export const campaignTargetSchema = z
  .object({
    groupId: z.string().min(1).max(100).optional(),
    filter: z
      .object({
        labels: z.array(labelSchema).min(1).max(50).optional(),
        phones: z.array(z.string().min(1).max(32)).min(1).max(100_000).optional(),
        attributes: z
          .record(z.string().min(1).max(64), attributeMatch)
          .refine((a) => Object.keys(a).length <= 50, 'at most 50 attributes')
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((t) => (t.groupId === undefined) !== (t.filter === undefined), {
    message: 'target takes either groupId or filter',
  })
  .describe('`{groupId}` or `{filter: {labels?, phones?, attributes?}}`');
export type CampaignTarget = z.infer<typeof campaignTargetSchema>;

export const campaignVariablesSchema = z
  .record(
    z.string().regex(/^[1-9][0-9]{0,2}$/, 'variable keys are "1", "2", …'),
    z.string().max(1024),
  )
  .describe(
    'values for `{{1}}…{{n}}`; may use {{contact.name}}, {{contact.phone}}, {{contact.email}}, {{contact.attributes.KEY}}',
  );

export const createCampaignBody = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(200),
    templateName: z.string().min(1, 'templateName is required').max(512),
    variables: campaignVariablesSchema.optional(),
    target: campaignTargetSchema,
    scheduledFor: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .strict();
export type CreateCampaignBody = z.infer<typeof createCampaignBody>;

export const updateCampaignBody = z
  .object({
    id: z.string().min(1).max(100),
    name: createCampaignBody.shape.name.optional(),
    templateName: createCampaignBody.shape.templateName.optional(),
    variables: campaignVariablesSchema.optional(),
    target: campaignTargetSchema.optional(),
    scheduledFor: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .strict();
export type UpdateCampaignBody = z.infer<typeof updateCampaignBody>;

export const launchCampaignBody = z
  .object({
    id: z.string().min(1).max(100),
    scheduledFor: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('in the future: the campaign waits as `scheduled` until then'),
  })
  .strict();

export const campaignIdBody = z.object({ id: z.string().min(1).max(100) }).strict();

export const campaignProgressSchema = z.object({
  status: z.enum(CAMPAIGN_STATUSES),
  total: z.number().int(),
  pending: z.number().int(),
  retrying: z.number().int(),
  sent: z.number().int().describe('handed to the channel (delivered and read ones included)'),
  delivered: z.number().int(),
  read: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  ratePerSecond: z.number().describe('messages handed over per second, over the last 10 s'),
  etaSeconds: z.number().int().nullable().describe('null when nothing is left or nothing moves'),
  blockedUntil: isoDate.nullable(),
  blockedBy: z.enum(BLOCKED_BY).nullable(),
});
export type CampaignProgress = z.infer<typeof campaignProgressSchema>;

export const recipientErrorSchema = z.object({ code: z.string(), message: z.string() });

export const campaignSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  templateName: z.string(),
  variables: z.record(z.string(), z.string()),
  target: campaignTargetSchema,
  scheduledFor: isoDate.nullable(),
  metrics: campaignProgressSchema,
  pauseReason: z.enum(PAUSE_REASONS).nullable().describe('null unless it paused by itself'),
  failureReason: z.string().nullable().describe('why a `failed` campaign stopped'),
  environment: z.enum(['test', 'live']),
  createdAt: isoDate,
  updatedAt: isoDate,
  launchedAt: isoDate.nullable(),
  completedAt: isoDate.nullable(),
});
export type Campaign = z.infer<typeof campaignSchema>;

/** A campaign listed for one contact (`?contactId=`) also says how it went for that contact. */
export const contactCampaignSchema = campaignSchema.extend({
  recipient: z
    .object({
      status: z.enum(RECIPIENT_STATUSES),
      messageId: z.string().nullable(),
      error: recipientErrorSchema.nullable(),
      updatedAt: isoDate,
    })
    .optional(),
});

export const listCampaignsQuery = pageQuery.extend({
  status: z.enum(CAMPAIGN_STATUSES).optional(),
  contactId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('only campaigns this contact is a recipient of, each with its `recipient` outcome'),
});

export const recipientSchema = z.object({
  contactId: z.string(),
  phone: z.string(),
  name: z.string().nullable(),
  status: z.enum(RECIPIENT_STATUSES),
  attempts: z.number().int(),
  messageId: z.string().nullable(),
  error: recipientErrorSchema.nullable(),
  nextAttemptAt: isoDate.nullable().describe('when a `retrying` recipient is tried again'),
  updatedAt: isoDate,
});
export type CampaignRecipient = z.infer<typeof recipientSchema>;

export const listRecipientsQuery = pageQuery.extend({
  status: z.enum(RECIPIENT_STATUSES).optional(),
});

export const campaignTimelineSchema = z.object({
  bucketSeconds: z.number().int(),
  data: z.array(
    z.object({
      at: isoDate.describe('start of the bucket'),
      sent: z.number().int(),
      failed: z.number().int(),
    }),
  ),
});
export type CampaignTimeline = z.infer<typeof campaignTimelineSchema>;

export const audienceBody = z
  .object({
    target: campaignTargetSchema,
    templateName: z.string().min(1).max(512).optional(),
    variables: campaignVariablesSchema.optional(),
  })
  .strict();

/** The audience check's missing placeholders (shared/template-strings.ts): campaigns and email. */
export const missingPlaceholdersSchema = z
  .array(
    z.object({
      placeholder: z.string().describe('as `{{contact.attributes.code}}`'),
      recipients: z.number().int().describe('how many recipients have no value for it'),
    }),
  )
  .describe(
    'exactly the placeholders some recipients have no value for (a fallback, `{{contact.name | "there"}}`, is never missing), most-missing first',
  );

export const audienceSchema = z.object({
  total: z.number().int().describe('contacts the target matches now (one per phone)'),
  missingVariables: z
    .number()
    .int()
    .describe('of them, how many would fail with `variable_missing`'),
  missingPlaceholders: missingPlaceholdersSchema,
  sample: z
    .object({
      contactId: z.string(),
      phone: z.string(),
      name: z.string().nullable(),
      variables: z.record(z.string(), z.string()),
      text: z.string().nullable().describe('the template rendered for this contact'),
    })
    .nullable(),
});
export type CampaignAudience = z.infer<typeof audienceSchema>;

export const campaignPage = page(campaignSchema);
export const contactCampaignPage = page(contactCampaignSchema);
export const recipientPage = page(recipientSchema);
