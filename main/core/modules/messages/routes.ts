import { page } from '../../../../shared/schemas/common.ts';
import {
  listMessagesQuery,
  messageSchema,
  sendTemplateBody,
  sendTemplateResponse,
  sendTextBody,
  sendTextResponse,
} from '../../../../shared/schemas/messages.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { sendJson } from '../../http/types.ts';

const tags = ['Messages'];

export const messagesRoutes: RegisterRoutes = (app, { messages }) => {
  app.post(
    '/api/send',
    {
      schema: {
        tags,
        summary: 'Send a template message (opens a conversation)',
        description:
          'Addressed by phone and template name (case-sensitive); the contact is created if absent and the active business account is used. A live key is charged the price of the template’s category; a test key never is.',
        body: sendTemplateBody,
        response: { 200: sendTemplateResponse },
      },
    },
    (req) => messages.sendTemplate(req.principal, req.body).response,
  );

  app.post(
    '/api/send-text',
    {
      schema: {
        tags,
        summary: 'Send free text inside the 24-hour service window',
        description:
          'Works only within 24 h of the contact’s last message; otherwise 422 `outside_service_window` (channel code 131047).',
        body: sendTextBody,
        response: { 200: sendTextResponse },
      },
    },
    (req) => messages.sendText(req.principal, req.body).response,
  );

  app.get(
    '/messages',
    {
      schema: {
        tags,
        summary: 'List messages of a conversation or contact, newest first',
        description: 'Give exactly one of `conversationId`, `contactId` or `phone`.',
        querystring: listMessagesQuery,
        response: { 200: page(messageSchema) },
      },
    },
    async (req, reply) => sendJson(reply, messages.list(req.principal, req.query)),
  );
};
