import { z } from 'zod';
import type { Campaign, CampaignProgress } from './campaigns.ts';
import { environmentSchema, isoDate } from './common.ts';
import type { EmailCampaign, EmailCounts } from './email.ts';
import type { Message } from './messages.ts';
import type { Template, TemplateStatus } from './templates.ts';
import type { WorkflowRun } from './workflows.ts';

export const EVENT_TYPES = [
  'message.received',
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'message.note',
  'message.reaction',
  'message.media_ready',
  'message.media_failed',
  'conversation.created',
  'conversation.updated',
  'template.status_updated',
  'campaign.status_updated',
  'campaign.progress',
  'workflow.run.started',
  'workflow.run.step',
  'workflow.run.completed',
  'workflow.run.failed',
  'workflow.run.handed_off',
  'email_campaign.status_updated',
  'email_campaign.progress',
  'email.unsubscribed',
  'email.resubscribed',
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
  campaigns: z
    .enum(['all', 'summary'])
    .default('all')
    .describe(
      "`summary`: leave out a campaign's per-recipient events (its messages, their statuses and the conversations its sends create or move) and follow it by `campaign.progress`; what the desk asks for",
    ),
});

/**
 * What each event type carries in `data` (and a webhook body's `data`): the core's `emit` is
 * checked against it, and clients read it typed. Conversations travel as their API JSON, built
 * by the store; `changes` name each changed field with its old and new value.
 */
export interface EventPayloads {
  'message.received': { message: Message };
  'message.sent': { message: Message };
  'message.delivered': { message: Message };
  'message.read': { message: Message };
  'message.failed': { message: Message };
  'message.note': { message: Message };
  'message.reaction': { message: Message };
  /** A received file was fetched and stored: `message.media.status` is `ready`. */
  'message.media_ready': { message: Message };
  /** A received file could not be fetched or kept: `message.media.error` says why. */
  'message.media_failed': { message: Message };
  'conversation.created': { conversation: Record<string, unknown> };
  'conversation.updated': {
    conversation: Record<string, unknown>;
    changes: Record<string, { from: unknown; to: unknown }>;
  };
  'template.status_updated': {
    template: Template;
    previousStatus: TemplateStatus | null;
    reason?: string;
  };
  'campaign.status_updated': { campaign: Campaign; previousStatus: Campaign['status'] | null };
  'campaign.progress': { campaignId: string; name: string; progress: CampaignProgress };
  'workflow.run.started': { run: WorkflowRun };
  'workflow.run.step': {
    runId: string;
    workflowId: string;
    step: { stepId: string; type: string; status: string; output: unknown; error: string | null };
  };
  'workflow.run.completed': { run: WorkflowRun };
  'workflow.run.failed': { run: WorkflowRun; reason?: string };
  /**
   * A person took the conversation over: an agent's reply (`agent_reply`), an assignment to a
   * member (`assigned`), or the workflow's own `assign` step (`assign_step`). `by`: the member.
   */
  'workflow.run.handed_off': {
    run: WorkflowRun;
    reason: 'agent_reply' | 'assigned' | 'assign_step';
    by: string | null;
    conversationId: string | null;
  };
  'email_campaign.status_updated': { campaign: EmailCampaign };
  'email_campaign.progress': {
    campaignId: string;
    status: EmailCampaign['status'];
    counts: EmailCounts;
  };
  /**
   * A recipient followed an email's unsubscribe link (or header), or its page's "Resubscribe":
   * the address stops (or starts again) getting campaign email in this workspace and mode.
   */
  'email.unsubscribed': EmailSubscriptionChange;
  'email.resubscribed': EmailSubscriptionChange;
  'wallet.low_balance': { balanceMicros: number; thresholdMicros: number };
}

export interface EmailSubscriptionChange {
  address: string;
  messageId: string;
  campaignId: string | null;
  contactId: string | null;
}

/**
 * Ephemeral events: who is online, who is viewing or typing in a conversation, and a member's
 * own notifications. They go to the streams that are open now (to an audience of members, or to
 * everyone in the scope but the member who caused them) and are never stored, replayed after a
 * reconnect, or sent to webhooks; they carry no `id`.
 */
export const EPHEMERAL_EVENT_TYPES = [
  'presence.updated',
  'conversation.viewing',
  'conversation.typing',
  'notification',
] as const;
export type EphemeralEventType = (typeof EPHEMERAL_EVENT_TYPES)[number];

export const PRESENCE_STATUSES = ['online', 'away', 'offline'] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];

/** Why a member is notified: work was assigned to them, or a private note named them. */
export const NOTIFICATION_KINDS = ['assigned', 'mention'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface EphemeralPayloads {
  'presence.updated': { memberId: string; status: PresenceStatus };
  'conversation.viewing': { conversationId: string; memberId: string };
  'conversation.typing': { conversationId: string; memberId: string };
  /**
   * To the member concerned only. `by`: the member who did it, or null (auto-assignment, a
   * workflow, an API key). `messageId`: the note of a mention.
   */
  notification: {
    kind: NotificationKind;
    conversationId: string;
    by: string | null;
    messageId?: string;
  };
}
