import { z } from 'zod';
import { EVENT_TYPES } from './events.ts';
import { isoDate, pageQuery } from './common.ts';

const webhookUrl = z.url('url must be an absolute http(s) URL').max(2000);
const eventTypes = z.array(z.enum(EVENT_TYPES)).min(1);

export const createWebhookBody = z.object({
  url: webhookUrl,
  events: eventTypes.optional().describe('event types to deliver; all when absent'),
  description: z.string().max(200).optional(),
});
export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

export const updateWebhookBody = z
  .object({
    enabled: z
      .boolean()
      .optional()
      .describe(
        'false: no new deliveries, and the pending ones end `failed`; true: deliveries start again with the next event',
      ),
    events: eventTypes.nullable().optional().describe('event types to deliver; null: all'),
    url: webhookUrl
      .optional()
      .describe('checked against the outbound address policy, as on create'),
    description: z.string().max(200).nullable().optional(),
  })
  .refine(
    (b) => Object.keys(b).length > 0,
    'send at least one of enabled, events, url, description',
  );
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const deliveryStatus = z.enum(DELIVERY_STATUSES);

export const lastDeliverySchema = z
  .object({
    id: z.string(),
    eventType: z.string(),
    status: deliveryStatus,
    lastStatusCode: z.number().int().nullable(),
    createdAt: isoDate,
    lastAttemptAt: isoDate.nullable(),
  })
  .describe("the webhook's newest delivery, null before its first");

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()).nullable().describe('null: every event type'),
  description: z.string().nullable(),
  enabled: z.boolean(),
  createdAt: isoDate,
  lastDelivery: lastDeliverySchema.nullable(),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().describe('signing secret (whsec_…); shown exactly once'),
});
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;

/** The first bytes of the receiver's answer the log keeps. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export const deliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: deliveryStatus.describe(
    '`pending` (on its way or waiting for its next try), `succeeded` (a 2xx answer), `failed` (gave up, the webhook was disabled or deleted, or its job died: `lastError` says which)',
  ),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable().describe("the last answer's HTTP status"),
  lastError: z.string().nullable().describe('why the last attempt did not succeed, in words'),
  lastAttemptAt: isoDate.nullable(),
  responseExcerpt: z
    .string()
    .nullable()
    .describe(`the first ${RESPONSE_EXCERPT_BYTES} bytes of the last answer's body, as text`),
  responseTruncated: z.boolean().describe('the answer was longer than `responseExcerpt`'),
  nextAttemptAt: isoDate.nullable(),
  createdAt: isoDate,
  deliveredAt: isoDate.nullable(),
});
export type WebhookDelivery = z.infer<typeof deliverySchema>;

export const deliveriesQuery = pageQuery.extend({
  status: deliveryStatus.optional().describe('only deliveries in this status'),
});
