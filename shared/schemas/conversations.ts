import { z } from 'zod';
import { MEMBER_ROLES } from '../permissions.ts';
import { MAX_LABELS } from '../labels.ts';
import { contactSchema, labelSchema } from './contacts.ts';
import { isoDate, pageQuery } from './common.ts';
import { messageSchema } from './messages.ts';
import { activeRunSchema } from './workflows.ts';

export const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** A member as the inbox sees them: who conversations can be assigned to (design.md §6). */
export const agentSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: z.enum(MEMBER_ROLES),
  active: z.boolean().describe('false once deactivated: not assignable, the name still shown'),
  createdAt: isoDate,
});
export type Agent = z.infer<typeof agentSchema>;

export const createAgentBody = z.object({
  name: z.string().trim().min(1, 'name is required').max(100),
  email: z.email('email is not a valid address').max(320),
});

export const conversationSchema = z.object({
  id: z.string(),
  status: z.enum(CONVERSATION_STATUSES),
  assignee: z.string().nullable().describe('agent id'),
  labels: z.array(z.string()),
  snoozedUntil: isoDate.nullable(),
  contact: contactSchema,
  lastMessage: messageSchema
    .nullable()
    .describe('the last message exchanged (private notes aside)'),
  lastMessageAt: isoDate,
  lastInboundAt: isoDate.nullable(),
  windowOpen: z.boolean().describe('the 24-hour service window is open: free text allowed'),
  unreadCount: z.number().int(),
  createdAt: isoDate,
  updatedAt: isoDate,
  activeRun: activeRunSchema
    .optional()
    .describe(
      'a workflow run talking to this customer now, or null: on GET /conversations/:id (list rows, PATCH answers and events leave it out)',
    ),
});
export type Conversation = z.infer<typeof conversationSchema>;

export const conversationDetailSchema = conversationSchema.extend({
  activeRun: activeRunSchema,
  messages: z.array(messageSchema).describe('the last 20 messages, newest first'),
  messagesNextCursor: z
    .string()
    .nullable()
    .describe('cursor for GET /conversations/:id/messages, to load older ones'),
});

export const listConversationsQuery = pageQuery.extend({
  status: z.enum(CONVERSATION_STATUSES).optional(),
  assignee: z
    .string()
    .max(100)
    .optional()
    .describe('an agent id, `me` (X-Parley-Agent) or `unassigned`'),
  label: z.string().max(64).optional(),
  q: z.string().max(200).optional().describe('contact name or phone, or message text'),
  unread: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true`: only conversations with unread messages'),
  ids: z
    .string()
    .max(2000)
    .regex(/^[^,]+(,[^,]+){0,49}$/, 'ids is a comma-separated list of up to 50 conversation ids')
    .optional()
    .describe(
      'only these conversations (comma-separated, ≤ 50), if they match the other filters: a client re-checks changed rows against its view; `counts` ignore it',
    ),
});

export const createConversationBody = z
  .object({
    contactId: z.string().min(1).max(100).optional(),
    phone: z.string().min(1).max(32).optional().describe('E.164; the contact is created if new'),
    name: z.string().trim().max(200).optional().describe('for a contact created from `phone`'),
  })
  .refine((b) => (b.contactId === undefined) !== (b.phone === undefined), {
    message: 'give either contactId or phone',
    path: ['contactId'],
  })
  .describe('{ contactId } | { phone, name? }');

export const conversationPageSchema = z.object({
  data: z.array(conversationSchema),
  nextCursor: z.string().nullable(),
  counts: z.object({
    open: z.number().int(),
    pending: z.number().int(),
    snoozed: z.number().int(),
    resolved: z.number().int(),
  }),
});

export const patchConversationBody = z.object({
  status: z.enum(CONVERSATION_STATUSES).optional(),
  snoozedUntil: z.iso.datetime({ offset: true }).nullable().optional(),
  assignee: z
    .string()
    .max(100)
    .nullable()
    .optional()
    .describe('agent id, `me`, or null to unassign'),
  labels: z
    .array(labelSchema)
    .max(MAX_LABELS)
    .optional()
    .describe('replaces the labels (one label per entry: no commas or semicolons)'),
  addLabels: z
    .array(labelSchema)
    .min(1)
    .max(MAX_LABELS)
    .optional()
    .describe('adds labels, keeping the others (for bulk actions)'),
  read: z.literal(true).optional().describe('mark every message read (unreadCount → 0)'),
});
export type PatchConversationBody = z.infer<typeof patchConversationBody>;

export const replyBody = z
  .object({
    text: z.string().min(1).max(4096).optional(),
    templateName: z.string().min(1).max(512).optional(),
    variables: z.record(z.string(), z.string().max(1024)).optional(),
    listId: z.string().max(100).optional(),
    mediaId: z
      .string()
      .max(100)
      .optional()
      .describe(
        'a file stored with `POST /media`: a photo, voice note, video, document or sticker',
      ),
    caption: z.string().max(1024).optional().describe('with `mediaId`: images, videos, documents'),
    fileName: z.string().max(240).optional().describe('with `mediaId`: a document’s name'),
    replyToMessageId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('quote one of the conversation’s messages (a text, media or list reply)'),
    as: z.enum(['agent', 'bot']).default('agent'),
    private: z
      .boolean()
      .default(false)
      .describe('an internal note: never reaches the channel; `@Name` mentions a member'),
    basedOnMessageId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'the newest message the replier saw: a newer outbound message or note from someone else answers 409 `conversation_changed` (send again based on that message to send anyway); absent: no check',
      ),
  })
  .describe(
    'one of { text } | { templateName, variables } | { listId } | { mediaId, caption?, fileName? }; `replyToMessageId` quotes',
  );
