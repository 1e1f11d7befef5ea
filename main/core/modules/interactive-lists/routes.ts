import { z } from 'zod';
import { ApiError } from '../../../../shared/errors.ts';
import { idParams, pageQuery } from '../../../../shared/schemas/common.ts';
import {
  createListBody,
  deleteListBody,
  deleteListQuery,
  interactiveListSchema,
  listPage,
  LIST_LIMITS,
  updateListBody,
} from '../../../../shared/schemas/interactive-lists.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Interactive lists'];

const example = {
  id: 'lst_01JH2Z3Q4R5S6T7V8W9X0Y1Z2A',
  name: 'Support topics',
  header: 'How can we help?',
  body: 'Pick a topic and an agent who knows it will answer.',
  footer: 'Replies within an hour',
  buttonText: 'Choose a topic',
  sections: [
    {
      title: 'Orders',
      rows: [
        { id: 'track', title: 'Track my order', description: 'Where is my parcel?' },
        { id: 'return', title: 'Return an item', description: null },
      ],
    },
    { title: 'Account', rows: [{ id: 'billing', title: 'Billing', description: null }] },
  ],
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedAt: '2026-03-01T09:00:00.000Z',
};
const { id: _id, createdAt: _c, updatedAt: _u, ...createExample } = example;

const RULES = `Limits (the spec’s): at most ${LIST_LIMITS.sections} sections and ${LIST_LIMITS.rowsPerSection} rows per section — more answers 400 \`list_limits_exceeded\`; \`buttonText\` ≤ ${LIST_LIMITS.buttonText}, section and row titles ≤ ${LIST_LIMITS.rowTitle}, row descriptions ≤ ${LIST_LIMITS.rowDescription}, row ids ≤ ${LIST_LIMITS.rowId} and unique in the list, \`header\`/\`footer\` ≤ ${LIST_LIMITS.header}, \`body\` ≤ ${LIST_LIMITS.body} — else 400 \`validation_error\` naming the field (\`sections.1.rows.0.title\`). Sent inside the 24 h window with \`POST /api/send-list\` or \`POST /conversations/:id/reply {listId}\`; the message keeps the list as it was.`;

export const interactiveListsRoutes: RegisterRoutes = (app, { interactiveLists }) => {
  app.get(
    '/interactive-lists',
    {
      config: {
        right: 'lists.read',
        docs: { responseExample: { data: [example], nextCursor: null } },
      },
      schema: {
        operationId: 'listInteractiveLists',
        tags,
        summary: 'Saved interactive lists, newest first',
        querystring: pageQuery,
        response: { 200: listPage },
      },
    },
    async (req) => interactiveLists.list(req.principal, req.query),
  );

  app.get(
    '/interactive-lists/:id',
    {
      config: { right: 'lists.read', docs: { errors: ['not_found'], responseExample: example } },
      schema: {
        operationId: 'getInteractiveList',
        tags,
        summary: 'One interactive list',
        params: idParams,
        response: { 200: interactiveListSchema },
      },
    },
    async (req) => interactiveLists.get(req.principal, req.params.id),
  );

  app.post(
    '/interactive-lists',
    {
      config: {
        right: 'lists.write',
        docs: {
          errors: ['list_limits_exceeded'],
          requestExample: createExample,
          responseExample: example,
        },
      },
      schema: {
        operationId: 'createInteractiveList',
        tags,
        summary: 'Save an interactive list',
        description: RULES,
        body: createListBody,
        response: { 201: interactiveListSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return interactiveLists.create(req.principal, req.body);
    },
  );

  app.put(
    '/interactive-lists',
    {
      config: {
        right: 'lists.write',
        docs: {
          errors: ['not_found', 'list_limits_exceeded'],
          requestExample: { id: example.id, buttonText: 'Pick a topic' },
          responseExample: example,
        },
      },
      schema: {
        operationId: 'updateInteractiveList',
        tags,
        summary: 'Edit an interactive list',
        description: `The body names the list by \`id\` and carries any of its fields; the others keep their values. Messages already sent keep the list as it was. ${RULES}`,
        body: updateListBody,
        response: { 200: interactiveListSchema },
      },
    },
    async (req) => interactiveLists.update(req.principal, req.body),
  );

  app.delete(
    '/interactive-lists',
    {
      config: { right: 'lists.write', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'deleteInteractiveList',
        tags,
        summary: 'Delete an interactive list',
        description:
          'Names the list by `id` in a JSON body or `?id=`. Messages that sent it keep their copy.',
        querystring: deleteListQuery,
        body: deleteListBody,
        response: { 200: z.object({ success: z.literal(true), id: z.string() }) },
      },
    },
    async (req) => {
      const id = req.body?.id ?? req.query.id;
      if (!id) throw new ApiError('validation_error', 'give the list’s id', { param: 'id' });
      return interactiveLists.remove(req.principal, id);
    },
  );
};
