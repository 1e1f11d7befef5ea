import { z } from 'zod';
import {
  cannedReplyBody,
  cannedReplySchema,
  listCannedRepliesQuery,
} from '../../../../shared/schemas/canned-replies.ts';
import { idParams, page } from '../../../../shared/schemas/common.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Canned replies'];

const example = {
  id: 'cr_01JH2Z3Q4R5S6T7V8W9X0Y1Z2A',
  shortcut: 'thanks',
  text: 'Thanks {{contact.name}}! Your order {{contact.attributes.order}} is on its way.',
  createdAt: '2026-01-05T10:00:00.000Z',
  updatedAt: '2026-01-05T10:00:00.000Z',
};

// `validation_error` (a taken shortcut, an unknown placeholder) is every operation's already.
const WRITE_DOCS: OperationDocs = {
  requestExample: { shortcut: example.shortcut, text: example.text },
  responseExample: example,
};
const BY_ID_DOCS: OperationDocs = { errors: ['not_found'] };

const TEXT_RULES =
  'The `shortcut` (1–32 of `a-z 0-9 _ -`) is unique in the scope; a taken one answers 400 `validation_error` with `param: shortcut`. The `text` (1–4096 characters) may use `{{contact.name}}`, `{{contact.phone}}`, `{{contact.email}}` and `{{contact.attributes.KEY}}`, filled from the conversation’s contact when an agent inserts it; any other `{{…}}` answers 400 `validation_error` naming it (`param: text`).';

export const cannedRepliesRoutes: RegisterRoutes = (app, { cannedReplies }) => {
  app.get(
    '/canned-replies',
    {
      config: { right: 'inbox' },
      schema: {
        operationId: 'listCannedReplies',
        tags,
        summary: 'List canned replies by shortcut',
        description: '`q` keeps those whose shortcut or text contains it (ignoring case).',
        querystring: listCannedRepliesQuery,
        response: { 200: page(cannedReplySchema) },
      },
    },
    async (req) => cannedReplies.list(req.principal, req.query),
  );

  app.post(
    '/canned-replies',
    {
      config: { right: 'inbox', docs: WRITE_DOCS },
      schema: {
        operationId: 'createCannedReply',
        tags,
        summary: 'Save a canned reply',
        description: TEXT_RULES,
        body: cannedReplyBody,
        response: { 201: cannedReplySchema },
      },
    },
    // Synchronous: the Idempotency-Key layer commits the insert and its answer together.
    (req, reply) => {
      reply.code(201);
      return cannedReplies.create(req.principal, req.body);
    },
  );

  app.get(
    '/canned-replies/:id',
    {
      config: { right: 'inbox', docs: BY_ID_DOCS },
      schema: {
        operationId: 'getCannedReply',
        tags,
        summary: 'One canned reply',
        params: idParams,
        response: { 200: cannedReplySchema },
      },
    },
    async (req) => cannedReplies.get(req.principal, req.params.id),
  );

  app.put(
    '/canned-replies/:id',
    {
      config: { right: 'inbox', docs: { ...WRITE_DOCS, ...BY_ID_DOCS } },
      schema: {
        operationId: 'updateCannedReply',
        tags,
        summary: 'Replace a canned reply’s shortcut and text',
        description: TEXT_RULES,
        params: idParams,
        body: cannedReplyBody,
        response: { 200: cannedReplySchema },
      },
    },
    async (req) => cannedReplies.update(req.principal, req.params.id, req.body),
  );

  app.delete(
    '/canned-replies/:id',
    {
      config: { right: 'inbox', docs: BY_ID_DOCS },
      schema: {
        operationId: 'deleteCannedReply',
        tags,
        summary: 'Delete a canned reply',
        params: idParams,
        response: { 200: z.object({ success: z.literal(true), id: z.string() }) },
      },
    },
    async (req) => cannedReplies.remove(req.principal, req.params.id),
  );
};
