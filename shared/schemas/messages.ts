import { z } from 'zod';
import { environmentSchema, isoDate, pageQuery } from './common.ts';
import { interactiveListSchema, listReplySchema } from './interactive-lists.ts';
import { locationSchema, messageMediaSchema, sharedContactSchema } from './media.ts';

export const MESSAGE_STATUSES = [
  'accepted',
  'sent',
  'delivered',
  'read',
  'failed',
  'received',
  'note',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * What a message is: `media` (a photo, voice note, video, document or sticker: see `media`),
 * `location`, `contacts` (shared contact cards), `reaction` (the business's reaction to a
 * customer's message, as sent: shown on that message, `context.messageId`), `note` (private).
 */
export const MESSAGE_TYPES = [
  'template',
  'text',
  'list',
  'note',
  'media',
  'location',
  'contacts',
  'reaction',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const sendTemplateBody = z.object({
  phone: z.string().min(1, 'phone is required').max(32),
  templateName: z.string().min(1, 'templateName is required').max(512),
  variables: z
    .record(z.string().regex(/^[1-9]\d*$/, 'variable keys are "1", "2", …'), z.string().max(1024))
    .optional(),
});
export type SendTemplateBody = z.infer<typeof sendTemplateBody>;

/** Response exactly per spec §2.2. */
export const sendTemplateResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({
    channelMessageId: z
      .string()
      .nullable()
      .describe('null in a 202: the provider has not answered yet (see messageId)'),
    messageId: z.string().optional().describe('our id; follow it with GET /messages or events'),
    phone: z.string(),
    templateName: z.string(),
    contactId: z.string(),
    wabaId: z.string(),
  }),
});

export const TEXT_MAX = 4096;
export const sendTextBody = z.object({
  phone: z.string().min(1, 'phone is required').max(32),
  message: z
    .string()
    .min(1, 'message is required')
    .max(TEXT_MAX, `message is at most ${TEXT_MAX} characters`),
});

export const sendTextResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({
    messageId: z.string(),
    channelMessageId: z
      .string()
      .nullable()
      .describe('null in a 202: the provider has not answered yet'),
    phone: z.string(),
    contactId: z.string(),
    conversationId: z.string(),
    wabaId: z.string(),
  }),
});

export const sendMediaBody = z.object({
  phone: z.string().min(1, 'phone is required').max(32),
  mediaId: z.string().min(1, 'mediaId is required').max(100),
  caption: z.string().max(1024).optional().describe('images, videos and documents'),
  fileName: z.string().max(240).optional().describe('documents: the name the customer sees'),
  replyToMessageId: z
    .string()
    .max(100)
    .optional()
    .describe('quote one of the conversation’s messages'),
});

export const sendMediaResponse = sendTextResponse.extend({
  data: sendTextResponse.shape.data.extend({ mediaId: z.string() }),
});

export const messageSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  contactId: z.string(),
  phone: z.string(),
  direction: z.enum(['outbound', 'inbound']),
  type: z
    .enum(MESSAGE_TYPES)
    .describe(
      'note: a private note, never sent; media: see `media`; reaction: the business’s reaction to `context.messageId`',
    ),
  templateName: z.string().nullable(),
  text: z
    .string()
    .describe(
      'the rendered text as the recipient sees it (a media message: its caption, or empty; a reaction: its emoji)',
    ),
  variables: z.record(z.string(), z.string()).nullable(),
  status: z.enum(MESSAGE_STATUSES),
  sentBy: z.enum(['api', 'agent', 'bot', 'contact']),
  agentId: z.string().nullable(),
  campaignId: z.string().nullable().describe('the campaign that sent it (`sentBy: bot`), if any'),
  environment: environmentSchema,
  category: z
    .string()
    .nullable()
    .describe('pricing category: MARKETING, UTILITY, AUTHENTICATION or SERVICE'),
  costMicros: z.number().int(),
  channelMessageId: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  createdAt: isoDate,
  sentAt: isoDate.nullable(),
  deliveredAt: isoDate.nullable(),
  readAt: isoDate.nullable(),
  failedAt: isoDate.nullable(),
  list: interactiveListSchema
    .nullable()
    .describe('an outbound list message: the list as it was sent'),
  listReply: listReplySchema.nullable().describe('an inbound pick from an interactive list'),
  reaction: z
    .object({ emoji: z.string(), at: isoDate })
    .nullable()
    .describe("the customer's reaction to this message (WhatsApp shows it on the bubble)"),
  mentions: z
    .array(z.string())
    .describe('a private note: the members its `@name`s mention (member ids); else empty'),
  media: messageMediaSchema
    .nullable()
    .describe('a photo, voice note, video, document or sticker: GET /media/:id serves the file'),
  location: locationSchema.nullable().describe('a location message'),
  contacts: z.array(sharedContactSchema).nullable().describe('shared contact cards'),
  context: z
    .object({
      messageId: z.string().nullable().describe('our id of the quoted message, when we have it'),
      channelMessageId: z.string().nullable().describe('the provider’s id of the quoted message'),
    })
    .nullable()
    .describe('the message this one quotes (a reply) or reacts to (a reaction)'),
  agentReaction: z
    .object({
      emoji: z.string(),
      at: isoDate,
      agentId: z.string().nullable(),
      messageId: z.string().describe('the reaction message that carried it'),
    })
    .nullable()
    .describe('the business’s reaction to this (customer’s) message'),
});
export type Message = z.infer<typeof messageSchema>;

export const listMessagesQuery = pageQuery.extend({
  conversationId: z.string().max(100).optional(),
  contactId: z.string().max(100).optional(),
  phone: z.string().max(32).optional(),
});
