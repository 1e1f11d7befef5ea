import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { idParams, page, pageQuery } from '../../../../shared/schemas/common.ts';
import {
  contactSchema,
  createGroupBody,
  groupMembersBody,
  groupSchema,
  importQuery,
  importResultSchema,
  listContactsQuery,
  patchContactBody,
  upsertContactBody,
} from '../../../../shared/schemas/contacts.ts';
import type { ImportProgressLine } from '../../../../shared/schemas/contacts.ts';
import { toApiError } from '../../http/errors.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { sendJson } from '../../http/types.ts';
import { prepareImport, runImport } from './import.ts';

const tags = ['Contacts'];
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

export const contactsRoutes: RegisterRoutes = (app, { contacts, db }) => {
  app.get(
    '/api/contacts',
    {
      schema: {
        tags,
        summary: 'List contacts, newest first',
        description:
          'Filters: `phone` (exact, any format), `label`, `group` (group id), `q` (name, phone or email contains).',
        querystring: listContactsQuery,
        response: { 200: page(contactSchema) },
      },
    },
    async (req, reply) => sendJson(reply, contacts.list(req.principal, req.query)),
  );

  app.post(
    '/api/contacts',
    {
      schema: {
        tags,
        summary: 'Create or update a contact by phone (201 when created, 200 when updated)',
        description: 'Attributes are merged; an attribute set to null is removed. Labels replace.',
        body: upsertContactBody,
        response: { 200: contactSchema, 201: contactSchema },
      },
    },
    async (req, reply) => {
      const { contact, created } = contacts.upsert(req.principal, req.body);
      reply.code(created ? 201 : 200);
      return contact;
    },
  );

  app.get(
    '/api/contacts/groups',
    {
      schema: {
        tags,
        summary: 'List contact groups',
        querystring: pageQuery,
        response: { 200: page(groupSchema) },
      },
    },
    async (req) => contacts.listGroups(req.principal, req.query.limit, req.query.cursor),
  );

  app.post(
    '/api/contacts/groups',
    {
      schema: {
        tags,
        summary: 'Create a group',
        body: createGroupBody,
        response: { 201: groupSchema },
      },
    },
    async (req, reply) => {
      reply.code(201);
      return contacts.createGroup(req.principal, req.body.name, req.body.contactIds);
    },
  );

  app.get(
    '/api/contacts/groups/:id',
    { schema: { tags, summary: 'Get a group', params: idParams, response: { 200: groupSchema } } },
    async (req) => contacts.getGroup(req.principal, req.params.id),
  );

  app.post(
    '/api/contacts/groups/:id/members',
    {
      schema: {
        tags,
        summary: 'Add contacts to a group',
        params: idParams,
        body: groupMembersBody,
        response: { 200: groupSchema },
      },
    },
    async (req) => contacts.addMembers(req.principal, req.params.id, req.body.contactIds),
  );

  app.post(
    '/api/contacts/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Import contacts from CSV (Content-Type: text/csv)',
        description:
          'Header row required: `phone` (required), `name`, `email`, `labels` (separated by `;`); any other column becomes an attribute. ' +
          'Valid rows land (upsert by phone, labels merged); each bad row is reported with its line and reason. ' +
          'With `Accept: application/x-ndjson` the answer streams `{"type":"progress",processed,total}` lines, then `{"type":"result",…}`.',
        querystring: importQuery,
        body: z.string().describe('CSV text'),
        response: { 200: importResultSchema },
      },
    },
    async (req, reply) => {
      const job = prepareImport(contacts, req.principal, req.body, req.query.groupId);
      if (!String(req.headers.accept ?? '').includes('application/x-ndjson')) {
        return runImport(db, contacts, job);
      }
      const out = new PassThrough();
      const line = (
        l: ImportProgressLine | { type: 'error'; error: { code: string; message: string } },
      ) => out.write(JSON.stringify(l) + '\n');
      reply.type('application/x-ndjson').header('cache-control', 'no-store');
      line({ type: 'progress', processed: 0, total: job.total });
      runImport(db, contacts, job, (processed, total) =>
        line({ type: 'progress', processed, total }),
      )
        .then((result) => line({ type: 'result', ...result }))
        .catch((e: unknown) => {
          const err = toApiError(e);
          line({ type: 'error', error: { code: err.code, message: err.message } });
        })
        .finally(() => out.end());
      // The typed body is the JSON answer; this branch streams NDJSON lines instead.
      return reply.send(out as never);
    },
  );

  app.get(
    '/api/contacts/:id',
    {
      schema: {
        tags,
        summary: 'Get a contact',
        params: idParams,
        response: { 200: contactSchema },
      },
    },
    async (req) => contacts.get(req.principal, req.params.id),
  );

  app.patch(
    '/api/contacts/:id',
    {
      schema: {
        tags,
        summary: 'Update a contact',
        params: idParams,
        body: patchContactBody,
        response: { 200: contactSchema },
      },
    },
    async (req) => contacts.patch(req.principal, req.params.id, req.body),
  );
};
