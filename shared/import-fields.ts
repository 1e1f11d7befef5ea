import type { ColumnMapping } from './schemas/contacts.ts';

/**
 * The Parley fields a CSV column can fill (besides attributes). Zod-free on purpose: the
 * renderer imports these values, and zod would bring its code generator (and a CSP `eval`
 * violation) into the page.
 */
export const IMPORT_FIELDS = [
  'phone',
  'name',
  'firstName',
  'middleName',
  'lastName',
  'email',
  'labels',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** The fields one column at most fills (phone may list several, tried in order). */
export const SINGLE_IMPORT_FIELDS = IMPORT_FIELDS.filter(
  (f): f is Exclude<ImportField, 'phone'> => f !== 'phone',
);

/** A mapping that maps nothing (every field unset). */
export const emptyColumnMapping = (): ColumnMapping => ({
  phone: [],
  name: null,
  firstName: null,
  middleName: null,
  lastName: null,
  email: null,
  labels: null,
  skip: [],
});
