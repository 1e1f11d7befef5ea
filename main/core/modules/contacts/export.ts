/**
 * The contacts export (README "Exports"): the contacts the list's filters match, newest first,
 * one row each — the contact's fields, its labels joined by `;` (as the import reads them), then
 * one column per attribute key the exported contacts use, so a spreadsheet gets one value a cell.
 */
import type { Contact } from '../../../../shared/schemas/contacts.ts';
import type { CsvBatches } from '../../http/csv-export.ts';
import { EXPORT_BATCH } from '../../http/csv-export.ts';
import type { Scope } from '../../runtime.ts';
import type { ContactFilter, ContactsRepo } from './repo.ts';

export const CONTACT_CSV_COLUMNS = [
  'id',
  'phone',
  'whatsapp_user_id',
  'name',
  'email',
  'labels',
  'created_at',
  'updated_at',
  'last_inbound_at',
  'email_unsubscribed_at',
] as const;

/** An attribute's column: its key, unless a contact field has that name already. */
const FIXED = new Set<string>(CONTACT_CSV_COLUMNS);
export const attributeColumn = (key: string): string =>
  FIXED.has(key.toLowerCase()) ? `attributes.${key}` : key;

export interface ContactsExport {
  header: string[];
  next: CsvBatches<string>;
}

/** The header and the batches of an export of the contacts a filter matches, in one scope. */
export function contactsExport(
  repo: ContactsRepo,
  scope: Scope,
  filter: ContactFilter,
): ContactsExport {
  const keys = repo.attributeKeys(scope, filter);
  const row = (c: Contact): unknown[] => [
    c.id,
    c.phone,
    c.waUserId,
    c.name,
    c.email,
    c.labels.join(';'),
    c.createdAt,
    c.updatedAt,
    c.lastInboundAt,
    c.emailUnsubscribedAt,
    ...keys.map((k) => c.attributes[k]),
  ];
  return {
    header: [...CONTACT_CSV_COLUMNS, ...keys.map(attributeColumn)],
    next(after) {
      const rows = repo.list(scope, filter, after, EXPORT_BATCH);
      return {
        rows: rows.map(([, json]) => row(JSON.parse(json) as Contact)),
        last: rows.length === EXPORT_BATCH ? rows[rows.length - 1]![0] : null,
      };
    },
  };
}
