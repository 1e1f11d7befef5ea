import { page } from '../../../../shared/schemas/common.ts';
import {
  listMessagesQuery,
  messageSchema,
  sendMediaBody,
  sendMediaResponse,
  sendTemplateBody,
  sendTemplateResponse,
  sendTextBody,
  sendTextResponse,
} from '../../../../shared/schemas/messages.ts';
import { sendListBody, sendListResponse } from '../../../../shared/schemas/interactive-lists.ts';
import type { ApiError } from '../../../../shared/errors.ts';
import { errorBody } from '../../http/errors.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import { TEMPLATE_SEND_ERRORS } from '../../http/openapi.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RegisterRoutes, ZodApp } from '../../http/types.ts';
import { queryPhoneOrThrow } from '../contacts/service.ts';
import { sendJson } from '../../http/types.ts';
import { API_SENDER, type MessagesService, type Sender } from './service.ts';

const tags = ['Messages'];

const SEND_TEMPLATE_DOCS: OperationDocs = {
  errors: TEMPLATE_SEND_ERRORS,
  // Only the desk's session uses it: the agent the send is labelled with.
  headers: ['X-Parley-Agent'],
  requestExample: {
    phone: '+14155552671',
    templateName: 'order_shipped',
    variables: { '1': 'Ada', '2': '#1042' },
  },
  responseExample: {
    success: true,
    message: 'Template message accepted for +14155552671',
    data: {
      channelMessageId: 'wamid.HBgLMTQxNTU1NTI2NzE',
      phone: '+14155552671',
      templateName: 'order_shipped',
      contactId: 'ct_8Jd2kQ1xZr',
      wabaId: 'waba_5Gm1rT8yKc',
    },
  },
};

const SEND_TEXT_DOCS: OperationDocs = {
  // Free text is charged the SERVICE price, free by default but configurable.
  errors: ['outside_service_window', 'recipient_invalid', 'insufficient_balance', 'channel_error'],
  headers: ['X-Parley-Agent'],
  requestExample: { phone: '+14155552671', message: 'Your order has shipped.' },
  responseExample: {
    success: true,
    message: 'Text message accepted for +14155552671',
    data: {
      messageId: 'msg_3Fh7LwQ2pN',
      channelMessageId: 'wamid.HBgLMTQxNTU1NTI2NzE',
      phone: '+14155552671',
      contactId: 'ct_8Jd2kQ1xZr',
      conversationId: 'conv_9Kq2mZ7sT1',
      wabaId: 'waba_5Gm1rT8yKc',
    },
  },
};

/**
 * Who a send is from. A session is its signed-in member (the desktop window its owner), so the
 * thread labels the send theirs; an API key (a script) is the API, whatever header it adds.
 */
function senderOf(req: FastifyRequest): Sender {
  const { kind, agent } = req.principal;
  return kind === 'session' && agent.id !== null
    ? { sentBy: 'agent', agentId: agent.id }
    : API_SENDER;
}

/**
 * A live send the provider refused: the message exists and failed, so a retry of the request's
 * Idempotency-Key hears the same refusal (its stored 202 is replaced). Returns the error to throw.
 */
export function refusal(app: ZodApp, req: FastifyRequest, error: ApiError): ApiError {
  const base = `http://${req.headers.host ?? '127.0.0.1'}`;
  app.amendStoredAnswer(req, error.status, JSON.stringify(errorBody(base, error)));
  return error;
}

/**
 * An API send's answer (README "Connecting WhatsApp"). The simulator answers in the send's transaction: 200.
 * A live account on the Cloud API gets the message inside the request: the message is committed
 * first (with its idempotent answer, a 202 — what a retry of the key replays), then handed over,
 * bounded at 10 s: the provider's id → 200; its refusal → the mapped error (the message failed
 * and refunded); no answer → 202 with `channelMessageId: null` while the delivery job goes on.
 */
async function answerSend<
  R extends {
    remote: boolean;
    /** Handed to the provider by its job, not the request (a media message): 202. */
    queued?: boolean;
    message: { id: string };
    response: { data: { channelMessageId: string | null } };
  },
>(
  app: ZodApp,
  messages: MessagesService,
  req: FastifyRequest,
  reply: FastifyReply,
  send: () => R,
): Promise<R['response']> {
  // Not answered yet (202): spec §2.2's answer with our id, so the message can be followed.
  const pending = (r: R) =>
    ({ ...r.response, data: { ...r.response.data, messageId: r.message.id } }) as R['response'];
  const first = app.commitWithResponse(
    req,
    reply,
    () => {
      const r = send();
      if (r.remote || r.queued) reply.code(202);
      return r;
    },
    (r) => ({
      body: JSON.stringify(r.remote || r.queued ? pending(r) : r.response),
      contentType: 'application/json; charset=utf-8',
    }),
  );
  if (first === reply) return reply as never; // a replay: its stored answer went out
  const r = first as R;
  if (r.queued) return pending(r);
  if (!r.remote) return r.response;
  const answer = await messages.deliverNow(r.message.id);
  if (answer.kind === 'refused') throw refusal(app, req, answer.error);
  if (answer.kind === 'pending') return pending(r);
  reply.code(200);
  const final = {
    ...r.response,
    data: { ...r.response.data, channelMessageId: answer.channelMessageId },
  } as R['response'];
  app.amendStoredAnswer(req, 200, JSON.stringify(final));
  return final;
}

export const messagesRoutes: RegisterRoutes = (app, { messages }) => {
  app.post(
    '/api/send',
    {
      config: { right: 'send', docs: SEND_TEMPLATE_DOCS },
      schema: {
        operationId: 'sendTemplate',
        tags,
        summary: 'Send a template message (opens a conversation)',
        description:
          'Addressed by phone and template name (case-sensitive); the contact is created if absent and the active business account is used. A live key is charged the price of the template’s category; a test key never is.',
        body: sendTemplateBody,
        response: { 200: sendTemplateResponse, 202: sendTemplateResponse },
      },
    },
    async (req, reply) =>
      answerSend(app, messages, req, reply, () =>
        messages.sendTemplate(req.principal, req.body, senderOf(req)),
      ),
  );

  app.post(
    '/api/send-text',
    {
      config: { right: 'send', docs: SEND_TEXT_DOCS },
      schema: {
        operationId: 'sendText',
        tags,
        summary: 'Send free text inside the 24-hour service window',
        description:
          'Works only within 24 h of the contact’s last message; otherwise 422 `outside_service_window` (channel code 131047).',
        body: sendTextBody,
        response: { 200: sendTextResponse, 202: sendTextResponse },
      },
    },
    async (req, reply) =>
      answerSend(app, messages, req, reply, () =>
        messages.sendText(req.principal, req.body, senderOf(req)),
      ),
  );

  app.post(
    '/api/send-list',
    {
      config: {
        right: 'send',
        docs: {
          errors: [
            'not_found',
            'outside_service_window',
            'recipient_invalid',
            'insufficient_balance',
            'list_limits_exceeded',
            'channel_error',
          ],
          headers: ['X-Parley-Agent'],
          requestExample: { phone: '+14155552671', listId: 'lst_01JH2Z3Q4R5S6T7V8W9X0Y1Z2A' },
          responseExample: {
            success: true,
            message: 'List message accepted for +14155552671',
            data: {
              messageId: 'msg_3Fh7LwQ2pN',
              channelMessageId: 'wamid.HBgLMTQxNTU1NTI2NzE',
              phone: '+14155552671',
              listId: 'lst_01JH2Z3Q4R5S6T7V8W9X0Y1Z2A',
              contactId: 'ct_8Jd2kQ1xZr',
              conversationId: 'conv_9Kq2mZ7sT1',
              wabaId: 'waba_5Gm1rT8yKc',
            },
          },
        },
      },
      schema: {
        operationId: 'sendList',
        tags,
        summary: 'Send an interactive list inside the 24-hour service window',
        description:
          'Like free text, only within 24 h of the contact’s last message (else 422 `outside_service_window`, channel code 131047). An unknown `listId` answers 404 naming it. The message keeps the list as it is now; the person’s pick arrives as an inbound message with `listReply` `{listId, rowId, title}`.',
        body: sendListBody,
        response: { 200: sendListResponse, 202: sendListResponse },
      },
    },
    async (req, reply) =>
      answerSend(app, messages, req, reply, () =>
        messages.sendList(req.principal, req.body, senderOf(req)),
      ),
  );

  app.post(
    '/api/send-media',
    {
      config: {
        right: 'send',
        docs: {
          errors: [
            'not_found',
            'invalid_state',
            'outside_service_window',
            'recipient_invalid',
            'insufficient_balance',
            'channel_error',
          ],
          headers: ['X-Parley-Agent'],
          requestExample: {
            phone: '+14155552671',
            mediaId: 'med_7Gh2kQ9xZr',
            caption: 'Your return label',
          },
          responseExample: {
            success: true,
            message: 'Media message accepted for +14155552671',
            data: {
              messageId: 'msg_3Fh7LwQ2pN',
              channelMessageId: 'wamid.HBgLMTQxNTU1NTI2NzE',
              phone: '+14155552671',
              mediaId: 'med_7Gh2kQ9xZr',
              contactId: 'ct_8Jd2kQ1xZr',
              conversationId: 'conv_9Kq2mZ7sT1',
              wabaId: 'waba_5Gm1rT8yKc',
            },
          },
        },
      },
      schema: {
        operationId: 'sendMedia',
        tags,
        summary: 'Send a photo, voice note, video, document or sticker inside the service window',
        description:
          'The file is one `POST /media` stored (`mediaId`; 404 naming it if unknown, 409 `invalid_state` unless it is ready). Only within 24 h of the contact’s last message (else 422 `outside_service_window`, channel code 131047), charged like free text (the SERVICE price). `caption` for images, videos and documents; `fileName` for documents. On the WhatsApp Cloud API the delivery job uploads the file (`POST /{phone-number-id}/media`) and sends it by id, so the answer is 202 with `channelMessageId: null`; events tell the rest.',
        body: sendMediaBody,
        response: { 200: sendMediaResponse, 202: sendMediaResponse },
      },
    },
    async (req, reply) =>
      answerSend(app, messages, req, reply, () =>
        messages.sendMedia(req.principal, req.body, senderOf(req)),
      ),
  );

  app.get(
    '/messages',
    {
      config: { right: 'inbox' },
      schema: {
        operationId: 'listMessages',
        tags,
        summary: 'List messages of a conversation or contact, newest first',
        description: 'Give exactly one of `conversationId`, `contactId` or `phone`.',
        querystring: listMessagesQuery,
        response: { 200: page(messageSchema) },
      },
    },
    async (req, reply) => {
      // A `+` sent unencoded arrives as a space: say so instead of "not a valid number".
      if (req.query.phone !== undefined) queryPhoneOrThrow(req.query.phone);
      return sendJson(reply, messages.list(req.principal, req.query));
    },
  );
};
