import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { idParams, page, pageQuery } from '../../../../shared/schemas/common.ts';
import { ApiError } from '../../../../shared/errors.ts';
import {
  contactPage,
  contactSchema,
  createGroupBody,
  groupMembersBody,
  groupSchema,
  importPreviewSchema,
  importQuery,
  importResultSchema,
  listContactsQuery,
  patchContactBody,
  upsertContactBody,
} from '../../../../shared/schemas/contacts.ts';
import type { ImportProgressLine, ImportResult } from '../../../../shared/schemas/contacts.ts';
import { toApiError } from '../../http/errors.ts';
import { sendStored } from '../../http/idempotency.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { sendJson } from '../../http/types.ts';
import type { ReadImport } from './import.ts';
import {
  CsvUpload,
  drainUpload,
  MAX_IMPORT_BYTES,
  readImportStream,
  toPreview,
  tooManyBytes,
} from './import.ts';

const tags = ['Contacts'];

/** Rows in the whole file, estimated from the share of its bytes read so far. */
const commitOptions = (read: ReadImport, groupId: string | undefined) => ({
  groupId: groupId ?? null,
  total: read.total,
  failed: read.failed,
  errors: read.errors,
});

const estimateRows = (rows: number, bytesRead: number, bytesTotal: number): number =>
  bytesTotal > 0 && bytesRead > 0 ? Math.max(rows, Math.round((rows * bytesTotal) / bytesRead)) : 0;

const IMPORT_DESCRIPTION = [
  'The body is the CSV file itself (`Content-Type: text/csv`), streamed: UTF-8, UTF-16LE/BE with a BOM, or Windows-1252; delimiter `,` `;` or tab, sniffed from the header row (an Excel `sep=;` line is honoured). At most 100,000 rows and 16 MiB: past either the upload is stopped and answered 413 `payload_too_large`.',
  '',
  '**Columns.** The header row is matched to Parley fields by name, ignoring case, spaces and punctuation: `phone` (also `Mobile`, `Mobile Phone`, `Phone Number`, `Primary Phone`, `Business Phone`, `Home Phone`, Google’s `Phone 1 - Value`…; every phone column found is tried in order, a mobile first, and a cell may hold several numbers separated by ` ::: `), `name` (or `First Name`/`Given Name`, `Middle Name`, `Last Name`/`Family Name`), `email` (`E-mail Address`, `E-mail 1 - Value`…), `labels` (`Labels`, `Group Membership`, `Categories`; separated by `;`, `|` or ` ::: `). Any other column with a value becomes an attribute. With no phone column the answer is 400 listing the columns found.',
  '',
  '**Mapping.** To choose columns yourself, send `map.<field>=<column header>` for `phone` (repeatable: tried in order), `name`, `firstName`, `middleName`, `lastName`, `email`, `labels`, and `skip=<column>` (repeatable) to keep a column out of the attributes, e.g. `?map.phone=Mobile%20Phone&map.firstName=First%20Name&skip=Notes`. Any `map.` parameter replaces the guess as a whole.',
  '',
  '**Dry run.** `?dryRun=true` reads and checks the whole file and writes nothing; it answers the detected `encoding` and `delimiter`, the `columns`, the `mapping` used (`guessed` tells whether it was the guess), a `sample` of the first rows as read, and the counts and errors the import would give.',
  '',
  '**Import.** Valid rows land in one transaction after the whole file was read (upsert by phone, labels merged); a malformed file writes nothing; each bad row is reported with its line and reason (the first 1,000; `failed` counts all). With `Accept: application/x-ndjson` the answer streams `{"type":"progress",processed,total}` lines while the file is read (`total` is an estimate from `Content-Length` until the last progress line), then `{"type":"result",…}`, or `{"type":"error",error}` when the file is refused after its first row.',
].join('\n');

export const contactsRoutes: RegisterRoutes = (app, { contacts }) => {
  app.get(
    '/api/contacts',
    {
      config: { right: 'contacts' },
      schema: {
        tags,
        summary: 'List contacts, newest first',
        description:
          'Filters: `phone` (exact, any format), `label`, `group` (group id), `q` (name, phone or email contains). The first page (no `cursor`) also answers `total`, how many contacts match.',
        querystring: listContactsQuery,
        response: { 200: contactPage },
      },
    },
    async (req, reply) => sendJson(reply, contacts.list(req.principal, req.query)),
  );

  app.post(
    '/api/contacts',
    {
      config: { right: 'contacts' },
      schema: {
        tags,
        summary: 'Create or update a contact by phone (201 when created, 200 when updated)',
        description: 'Attributes are merged; an attribute set to null is removed. Labels replace.',
        body: upsertContactBody,
        response: { 200: contactSchema, 201: contactSchema },
      },
    },
    (req, reply) => {
      const { contact, created } = contacts.upsert(req.principal, req.body);
      reply.code(created ? 201 : 200);
      return contact;
    },
  );

  app.get(
    '/api/contacts/groups',
    {
      config: { right: 'contacts' },
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
      config: { right: 'contacts' },
      schema: {
        tags,
        summary: 'Create a group',
        body: createGroupBody,
        response: { 201: groupSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return contacts.createGroup(req.principal, req.body.name, req.body.contactIds);
    },
  );

  app.get(
    '/api/contacts/groups/:id',
    {
      config: { right: 'contacts' },
      schema: { tags, summary: 'Get a group', params: idParams, response: { 200: groupSchema } },
    },
    async (req) => contacts.getGroup(req.principal, req.params.id),
  );

  app.post(
    '/api/contacts/groups/:id/members',
    {
      config: { right: 'contacts' },
      schema: {
        tags,
        summary: 'Add contacts to a group',
        params: idParams,
        body: groupMembersBody,
        response: { 200: groupSchema },
      },
    },
    (req) => contacts.addMembers(req.principal, req.params.id, req.body.contactIds),
  );

  app.post(
    '/api/contacts/import',
    {
      config: { right: 'contacts' },
      schema: {
        tags,
        summary: 'Import contacts from CSV (Content-Type: text/csv)',
        description: IMPORT_DESCRIPTION,
        querystring: importQuery,
        response: { 200: z.union([importResultSchema, importPreviewSchema]) },
      },
    },
    async (req, reply) => {
      const scope = req.principal;
      const query = req.query;
      const dryRun = query.dryRun === 'true';
      const upload = req.body;
      if (upload === undefined && /csv/.test(String(req.headers['content-type']))) {
        // Fastify hands an empty body to no parser.
        throw new ApiError('validation_error', 'the CSV is empty', { param: 'body' });
      }
      if (!(upload instanceof CsvUpload)) {
        throw new ApiError(
          'unsupported_media_type',
          'send the CSV file as the request body with Content-Type: text/csv',
        );
      }
      const declared = Number(req.headers['content-length'] ?? 0);
      try {
        if (declared > MAX_IMPORT_BYTES) throw tooManyBytes();
        // An unknown group is refused before the upload is read.
        if (query.groupId && !dryRun) contacts.requireGroup(scope, query.groupId, 'groupId');
        const ndjson = !dryRun && String(req.headers.accept ?? '').includes('application/x-ndjson');
        if (!ndjson) {
          const read = await readImportStream(upload.stream, { query });
          if (dryRun) return toPreview(read);
          // Same key, same file: the first answer again, nothing imported twice.
          const stored = app.bindStreamedBody(req, upload.digest());
          if (stored) return sendStored(reply, stored);
          return await contacts.commitImport(scope, read.rows, commitOptions(read, query.groupId), {
            lastBatch: (effect) => app.commitWithResponse(req, reply, effect) as ImportResult,
          });
        }
        // NDJSON: a file refused at its header (no phone column, bad mapping) still gets its
        // status; once the first row is read the answer streams and a later stop is an error line.
        const out = new PassThrough();
        const line = (
          l: ImportProgressLine | { type: 'error'; error: { code: string; message: string } },
        ) => out.write(JSON.stringify(l) + '\n');
        let lastProcessed = -1;
        const progress = (processed: number, total: number) => {
          if (processed === lastProcessed) return;
          lastProcessed = processed;
          line({ type: 'progress', processed, total });
        };
        let headerRead!: () => void;
        const header = new Promise<void>((resolve) => (headerRead = resolve));
        const reading = readImportStream(upload.stream, {
          query,
          onHeader: () => {
            progress(0, 0);
            headerRead();
          },
          onProgress: (rows, bytes) => progress(rows, estimateRows(rows, bytes, declared)),
        });
        await Promise.race([header, reading]);
        const resultLine = (r: ImportResult) => `${JSON.stringify({ type: 'result', ...r })}\n`;
        reading
          .then(async (read) => {
            progress(read.total, read.total);
            const stored = app.bindStreamedBody(req, upload.digest());
            if (stored) {
              // Same key, same file: the stored result line, nothing imported twice (the
              // answer is already streaming, so it goes into the stream).
              out.write(stored.body);
              return;
            }
            const result = await contacts.commitImport(
              scope,
              read.rows,
              commitOptions(read, query.groupId),
              {
                lastBatch: (effect) =>
                  app.commitWithResponse(req, reply, effect, (r) => ({
                    body: resultLine(r),
                    contentType: 'application/x-ndjson',
                  })) as ImportResult,
              },
            );
            out.write(resultLine(result));
          })
          .catch(async (e: unknown) => {
            const err = toApiError(e);
            await drainUpload(upload.stream);
            line({ type: 'error', error: { code: err.code, message: err.message } });
          })
          .finally(() => out.end());
        reply.type('application/x-ndjson').header('cache-control', 'no-store');
        // The typed body is the JSON answer; this branch streams NDJSON lines instead. The
        // stream is returned (not sent) so its Idempotency-Key reservation lasts until it ends.
        return out as never;
      } catch (e) {
        // Stopped before the end of the upload: drop the rest of it, then answer.
        if (!(await drainUpload(upload.stream))) reply.header('connection', 'close');
        throw e;
      }
    },
  );

  app.get(
    '/api/contacts/:id',
    {
      config: { right: 'contacts' },
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
      config: { right: 'contacts' },
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
