import { z } from 'zod';
import { environmentSchema, isoDate } from './common.ts';

export const EVENT_TYPES = [
  'message.received',
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'message.note',
  'message.reaction',
  'conversation.created',
  'conversation.updated',
  'template.status_updated',
  'campaign.status_updated',
  'campaign.progress',
  'workflow.run.started',
  'workflow.run.step',
  'workflow.run.completed',
  'workflow.run.failed',
  'email_campaign.status_updated',
  'email_campaign.progress',
  'wallet.low_balance',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The envelope of every event, on the stream (GET /events) and in webhook bodies. */
export const eventSchema = z.object({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  createdAt: isoDate,
  workspaceId: z.string(),
  environment: environmentSchema,
  data: z.record(z.string(), z.unknown()),
});
export type ParleyEvent = z.infer<typeof eventSchema>;

export const eventsQuery = z.object({
  types: z
    .string()
    .max(2000)
    .optional()
    .describe('comma-separated event types to receive; all when absent'),
});
