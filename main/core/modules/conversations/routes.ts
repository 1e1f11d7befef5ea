import { z } from 'zod';
import { idParams, pageQuery, page } from '../../../../shared/schemas/common.ts';
import { reactionBody } from '../../../../shared/schemas/media.ts';
import { ApiError } from '../../../../shared/errors.ts';
import {
  conversationDetailSchema,
  conversationPageSchema,
  conversationSchema,
  createConversationBody,
  listConversationsQuery,
  patchConversationBody,
  replyBody,
} from '../../../../shared/schemas/conversations.ts';
import type { Message } from '../../../../shared/schemas/messages.ts';
import { messageSchema } from '../../../../shared/schemas/messages.ts';
import { refusal } from '../messages/routes.ts';
import { toMessage } from '../messages/service.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import { messageExample, TEMPLATE_SEND_ERRORS } from '../../http/openapi.ts';
import type { Conversation } from '../../../../shared/schemas/conversations.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { sendJson } from '../../http/types.ts';

const tags = ['Conversations (inbox)'];

/** One emoji: pictographs with their modifiers and joiners, a flag, or a keycap. */
const EMOJI =
  /^(?:[#*0-9]\uFE0F?\u20E3|\p{Regional_Indicator}{2}|\p{Extended_Pictographic}[\p{Emoji_Modifier}\uFE0F\u200D\p{Extended_Pictographic}]*)$/u;

const REPLY_DOCS: OperationDocs = {
  // A reply is a text, template, list or media send; `listId` or `mediaId` naming nothing is a
  // 404 too, a media not ready a 409.
  errors: [...TEMPLATE_SEND_ERRORS, 'conversation_changed', 'invalid_state'],
  headers: ['X-Parley-Agent'],
  requestExample: { text: 'Your order has shipped.' },
  responseExample: messageExample,
};

export const conversationsRoutes: RegisterRoutes = (app, { conversations, messages }) => {
  app.get(
    '/conversations',
    {
      config: { right: 'inbox', docs: { headers: ['X-Parley-Agent'] } },
      schema: {
        operationId: 'listConversations',
        tags,
        summary: 'List conversations by last activity, with counts per status for tabs',
        description:
          'Filters: `status`, `assignee` (agent id, `me` with the `X-Parley-Agent` header, or `unassigned`), `label`, `q` (contact name or phone, or message text), `unread=true` (unread messages only), `ids` (only these, if they match the rest). `counts` apply every filter but `status` and `ids`.',
        querystring: listConversationsQuery,
        response: { 200: conversationPageSchema },
      },
    },
    async (req, reply) =>
      sendJson(reply, conversations.list(req.principal, req.query, req.principal.agent)),
  );

  app.post(
    '/conversations',
    {
      config: {
        right: 'inbox',
        docs: { errors: ['not_found'], requestExample: { phone: '+14155552671' } },
      },
      schema: {
        operationId: 'openConversation',
        tags,
        summary: 'Open the conversation with a contact (by id, or by phone: created if new)',
        description:
          'Answers the existing conversation (200) or starts one (201, `conversation.created`), so an agent can write first: outside the 24-hour window, with a template.',
        body: createConversationBody,
        response: { 200: conversationSchema, 201: conversationSchema },
      },
    },
    // Synchronous, and returning its answer (not sending raw bytes): its Idempotency-Key answer
    // commits with the conversation it creates.
    (req, reply) => {
      const { json, created } = conversations.open(req.principal, req.body);
      reply.code(created ? 201 : 200);
      return JSON.parse(json) as Conversation;
    },
  );

  app.get(
    '/conversations/:id',
    {
      config: { right: 'inbox' },
      schema: {
        operationId: 'getConversation',
        tags,
        summary: 'One conversation with its last 20 messages',
        params: idParams,
        response: { 200: conversationDetailSchema },
      },
    },
    async (req, reply) => sendJson(reply, conversations.get(req.principal, req.params.id)),
  );

  app.get(
    '/conversations/:id/messages',
    {
      config: { right: 'inbox' },
      schema: {
        operationId: 'listConversationMessages',
        tags,
        summary: 'Page through a conversation’s messages, newest first',
        params: idParams,
        querystring: pageQuery,
        response: { 200: page(messageSchema) },
      },
    },
    async (req, reply) =>
      sendJson(reply, conversations.messages(req.principal, req.params.id, req.query)),
  );

  app.post(
    '/conversations/:id/reply',
    {
      config: { right: 'inbox', docs: REPLY_DOCS },
      schema: {
        operationId: 'replyToConversation',
        tags,
        summary:
          'Reply as the agent or the bot: { text } | { templateName, variables } | { listId }',
        description:
          '`as`: agent (default; the `X-Parley-Agent` header or the assignee) or bot. `private: true` stores an internal note that never reaches the channel; its `@Name`s mention members (`mentions`, and a `notification` to each). Free text needs the 24-hour window (422 `outside_service_window`). `basedOnMessageId` (the newest message the replier saw): when the conversation has a newer outbound message or note from someone else, nothing is sent and the answer is 409 `conversation_changed` with that message in `details.message`; send again with its id to send anyway. A member’s reply to an unassigned conversation assigns it to them (workspace setting `assignOnFirstReply`, on by default).',
        params: idParams,
        body: replyBody,
        response: { 200: messageSchema },
      },
    },
    async (req, reply) => {
      const stored = app.commitWithResponse(req, reply, () =>
        conversations.reply(req.principal, req.params.id, req.body, req.principal.agent),
      );
      if (stored === reply) return reply as never; // a replay
      const message = stored as Message;
      // Live on the Cloud API: handed to Meta inside the request, like /api/send (README "Connecting WhatsApp");
      // elsewhere (the simulator) the message is already on its way.
      if (
        message.environment !== 'live' ||
        message.direction !== 'outbound' ||
        message.status !== 'accepted'
      ) {
        return message;
      }
      const answer = await messages.deliverNow(message.id);
      if (answer.kind === 'refused') throw refusal(app, req, answer.error);
      const final = toMessage(messages.byId(message.id)!);
      app.amendStoredAnswer(req, 200, JSON.stringify(final));
      return final;
    },
  );

  app.post(
    '/conversations/:id/messages/:messageId/reaction',
    {
      config: {
        right: 'inbox',
        docs: {
          errors: ['outside_service_window', 'insufficient_balance', 'channel_error'],
          headers: ['X-Parley-Agent'],
          requestExample: { emoji: '👍' },
          responseExample: messageExample,
        },
      },
      schema: {
        operationId: 'reactToMessage',
        tags,
        summary: 'React to a customer’s message with an emoji (an empty one takes it back)',
        description:
          'Inside the 24-hour service window only (422 `outside_service_window`). Sends a `reaction` message to the channel (its statuses follow like any send’s) and puts the emoji on the message (`agentReaction`, event `message.reaction`); the answer is that message. A reaction whose send fails comes off again.',
        params: z.object({
          id: z.string().min(1).max(100),
          messageId: z.string().min(1).max(100),
        }),
        body: reactionBody,
        response: { 200: messageSchema },
      },
    },
    async (req, reply) => {
      const emoji = req.body.emoji.trim();
      if (emoji !== '' && !EMOJI.test(emoji)) {
        throw new ApiError(
          'validation_error',
          'emoji must be one emoji (or empty to take it back)',
          {
            param: 'emoji',
          },
        );
      }
      const sent = app.commitWithResponse(
        req,
        reply,
        () =>
          conversations.react(
            req.principal,
            req.params.id,
            req.params.messageId,
            emoji,
            req.principal.agent,
          ),
        (r) => ({
          body: JSON.stringify(r.message),
          contentType: 'application/json; charset=utf-8',
        }),
      );
      if (sent === reply) return reply as never; // a replay
      const r = sent as ReturnType<typeof conversations.react>;
      if (!r.remote) return r.message;
      // Live on the Cloud API: handed to Meta inside the request, like a reply.
      const answer = await messages.deliverNow(r.reaction.id);
      if (answer.kind === 'refused') throw refusal(app, req, answer.error);
      const final = toMessage(messages.byId(r.message.id)!);
      app.amendStoredAnswer(req, 200, JSON.stringify(final));
      return final;
    },
  );

  app.patch(
    '/conversations/:id',
    {
      config: { right: 'inbox', docs: { headers: ['X-Parley-Agent'] } },
      schema: {
        operationId: 'updateConversation',
        tags,
        summary: 'Change status (snoozed needs snoozedUntil), assignee, labels, or mark read',
        params: idParams,
        body: patchConversationBody,
        response: { 200: conversationSchema },
      },
    },
    async (req, reply) =>
      sendJson(
        reply,
        conversations.patch(req.principal, req.params.id, req.body, req.principal.agent),
      ),
  );
};
