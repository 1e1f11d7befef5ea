import { z } from 'zod';
import { EVENT_TYPES } from './events.ts';
import { isoDate } from './common.ts';

export const createWebhookBody = z.object({
  url: z.url('url must be an absolute http(s) URL').max(2000),
  events: z
    .array(z.enum(EVENT_TYPES))
    .min(1)
    .optional()
    .describe('event types to deliver; all when absent'),
  description: z.string().max(200).optional(),
});

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()).nullable(),
  description: z.string().nullable(),
  createdAt: isoDate,
});
export type Webhook = z.infer<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().describe('signing secret (whsec_…); shown exactly once'),
});

export const deliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: isoDate.nullable(),
  createdAt: isoDate,
  deliveredAt: isoDate.nullable(),
});
export type WebhookDelivery = z.infer<typeof deliverySchema>;
