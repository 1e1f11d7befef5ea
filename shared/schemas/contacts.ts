import { z } from 'zod';
import { headerText } from './header-text.ts';
import { hasLabelSeparator, MAX_LABEL_LENGTH, MAX_LABELS } from '../labels.ts';
import { isoDate, page, pageQuery } from './common.ts';

export const labelSchema = z
  .string()
  .trim()
  .min(1, 'labels cannot be empty')
  .max(MAX_LABEL_LENGTH, `labels are at most ${MAX_LABEL_LENGTH} characters`)
  // One rule everywhere (shared/labels.ts): such a label would read back as several.
  .refine(
    (l) => !hasLabelSeparator(l),
    'a label cannot contain , ; | or :::: send separate labels',
  );

const attributeValue = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

export const attributesSchema = z
  .record(z.string().min(1).max(64), attributeValue)
  .refine((a) => Object.keys(a).length <= 100, 'at most 100 attributes');

export const contactSchema = z.object({
  id: z.string(),
  phone: z
    .string()
    .nullable()
    .describe('E.164; null for a WhatsApp user known only by their user id (`waUserId`)'),
  waUserId: z
    .string()
    .nullable()
    .describe(
      "Meta's business-scoped user id (BSUID, e.g. `US.13491208655302741918`), when the channel named it",
    ),
  name: z.string().nullable(),
  email: z.string().nullable(),
  labels: z.array(z.string()),
  attributes: z.record(z.string(), attributeValue),
  createdAt: isoDate,
  updatedAt: isoDate,
  lastInboundAt: isoDate
    .nullable()
    .describe('last message from the contact; opens the 24 h window'),
  emailUnsubscribedAt: isoDate
    .nullable()
    .describe('when the contact unsubscribed from email (no email campaign reaches them since)'),
});
export type Contact = z.infer<typeof contactSchema>;

export const contactPage = page(contactSchema).extend({
  total: z
    .number()
    .int()
    .optional()
    .describe('contacts matching the filters; on the first page only (no `cursor`)'),
});

export const listContactsQuery = pageQuery.extend({
  phone: z.string().max(32).optional(),
  waUserId: z.string().max(140).optional().describe('the contact with this WhatsApp user id'),
  label: z.string().max(64).optional(),
  group: z.string().max(100).optional(),
  q: z.string().max(200).optional(),
});

export const upsertContactBody = z.object({
  phone: z.string().min(1, 'phone is required').max(32),
  // A name ends up in mail headers (an email's subject, a `To` display name): no CR, LF or other
  // control characters.
  name: headerText().trim().max(200).nullable().optional(),
  email: z.email('email is not a valid address').max(320).nullable().optional(),
  labels: z.array(labelSchema).max(MAX_LABELS).optional(),
  attributes: attributesSchema.optional(),
});
export type UpsertContactBody = z.infer<typeof upsertContactBody>;

export const patchContactBody = upsertContactBody.partial();
export type PatchContactBody = z.infer<typeof patchContactBody>;

/** One column name, or several (a repeated query parameter). */
const columnParam = z.union([z.string().max(200), z.array(z.string().max(200)).max(50)]);
const oneColumn = z.string().max(200).optional();

/**
 * `POST /api/contacts/import` query. The column mapping rides in the query string so a client
 * streams the file as the body: `map.<field>=<column header>` (percent-encoded; `map.phone`
 * may repeat: the columns are tried in order), `skip=<column>` (repeatable) keeps a column out
 * of the attributes. Any `map.` parameter replaces the guessed mapping as a whole.
 */
export const importQuery = z.object({
  groupId: z.string().max(100).optional(),
  dryRun: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true`: read and check the whole file, write nothing, answer the preview'),
  'map.phone': columnParam.optional().describe('column(s) holding the phone, tried in order'),
  'map.name': oneColumn.describe('column holding the full name'),
  'map.firstName': oneColumn,
  'map.middleName': oneColumn,
  'map.lastName': oneColumn,
  'map.email': oneColumn,
  'map.labels': oneColumn.describe('labels separated by `,` or `;` (also `|` and ` ::: `)'),
  skip: columnParam.optional().describe('column(s) not stored as attributes'),
});
export type ImportQuery = z.infer<typeof importQuery>;

export { emptyColumnMapping, IMPORT_FIELDS, SINGLE_IMPORT_FIELDS } from '../import-fields.ts';
export type { ImportField } from '../import-fields.ts';

export const columnMappingSchema = z.object({
  phone: z.array(z.string()).describe('columns tried in order; the first valid number wins'),
  name: z.string().nullable(),
  firstName: z.string().nullable(),
  middleName: z.string().nullable(),
  lastName: z.string().nullable(),
  email: z.string().nullable(),
  labels: z.string().nullable(),
  skip: z.array(z.string()).describe('columns not stored as attributes'),
});
export type ColumnMapping = z.infer<typeof columnMappingSchema>;

export const importRowError = z.object({
  line: z.number().int().describe('1-based line number in the file (the header is line 1)'),
  reason: z.string(),
  param: z.string().optional(),
});
export type ImportRowError = z.infer<typeof importRowError>;

export const importResultSchema = z.object({
  total: z.number().int().describe('data rows read'),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  errors: z.array(importRowError),
});
export type ImportResult = z.infer<typeof importResultSchema>;

export const importPreviewSchema = z.object({
  dryRun: z.literal(true),
  encoding: z.enum(['utf-8', 'utf-16le', 'utf-16be', 'windows-1252']),
  delimiter: z.enum([',', ';', '\t']),
  columns: z.array(z.string()).describe('the header row'),
  mapping: columnMappingSchema,
  guessed: z.boolean().describe('true when the mapping was guessed from the header names'),
  sample: z
    .array(
      z.object({
        line: z.number().int(),
        values: z.array(z.string()).describe('one value per column, as read'),
        phone: z.string().nullable().describe('the number it would import, or null'),
        error: z.string().nullable().describe('why the row would fail, or null'),
        name: z.string().nullable(),
        email: z.string().nullable(),
        labels: z.array(z.string()),
      }),
    )
    .describe('the first data rows, as read and as the import would store them with this mapping'),
  total: z.number().int().describe('data rows read'),
  valid: z.number().int().describe('rows that would be imported'),
  failed: z.number().int(),
  errors: z.array(importRowError),
});
export type ImportPreview = z.infer<typeof importPreviewSchema>;

/** Lines of the NDJSON stream answered when the client sends `Accept: application/x-ndjson`. */
export type ImportProgressLine =
  { type: 'progress'; processed: number; total: number } | ({ type: 'result' } & ImportResult);

export const groupSchema = z.object({
  id: z.string(),
  name: z.string(),
  memberCount: z.number().int(),
  createdAt: isoDate,
});
export type Group = z.infer<typeof groupSchema>;

export const createGroupBody = z.object({
  name: z.string().trim().min(1, 'name is required').max(100),
  contactIds: z.array(z.string().max(100)).max(10000).optional(),
});

export const groupMembersBody = z.object({
  contactIds: z.array(z.string().max(100)).min(1).max(10000),
});
