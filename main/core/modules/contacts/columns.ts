import { ApiError } from '../../../../shared/errors.ts';
import type {
  ColumnMapping,
  ImportField,
  ImportQuery,
} from '../../../../shared/schemas/contacts.ts';
import { emptyColumnMapping, IMPORT_FIELDS } from '../../../../shared/schemas/contacts.ts';

/**
 * A header as compared: case, accents, spaces and punctuation do not count
 * (`E-mail Address` → `emailaddress`, `Téléphone` → `telephone`).
 */
export const headerKey = (header: string): string =>
  header
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Known header names of real exports (Google Contacts old and new, Outlook, Apple/iCloud via
 * vCard converters, plain lists, German/French/Spanish spreadsheets), as `headerKey`s. For
 * `phone` the order is the preference: a mobile column before a landline.
 */
const ALIASES: Record<Exclude<ImportField, 'phone'>, string[]> & { phone: string[] } = {
  phone: [
    'phone',
    'mobile',
    'mobilephone',
    'mobilenumber',
    'mobilephonenumber',
    'cell',
    'cellphone',
    'cellular',
    'cellnumber',
    'whatsapp',
    'whatsappnumber',
    'msisdn',
    'handy',
    'handynummer',
    'mobil',
    'mobilnummer',
    'portable',
    'movil',
    'celular',
    'phonenumber',
    'phoneno',
    'number',
    'tel',
    'telephone',
    'telephonenumber',
    'telefon',
    'telefonnummer',
    'telefono',
    'primaryphone',
    'businessphone',
    'businessphone2',
    'companymainphone',
    'homephone',
    'homephone2',
    'otherphone',
    'carphone',
    'assistantsphone',
  ],
  name: ['name', 'fullname', 'displayname', 'contactname', 'contact', 'nomcomplet'],
  firstName: ['firstname', 'givenname', 'forename', 'first', 'vorname', 'prenom', 'nombre'],
  middleName: ['middlename', 'additionalname'],
  lastName: ['lastname', 'familyname', 'surname', 'last', 'nachname', 'nomdefamille', 'apellido'],
  email: [
    'email',
    'emailaddress',
    'mail',
    'emailadresse',
    'courriel',
    'correo',
    'email1value',
    'email1address',
  ],
  labels: ['labels', 'label', 'tags', 'tag', 'groups', 'groupmembership', 'categories'],
};

/** Google's numbered columns: `Phone 1 - Value` (old "Type", new "Label" beside it). */
const GOOGLE_PHONE = /^phone(\d+)value$/;
const GOOGLE_PHONE_TYPE = /^phone(\d+)(type|label)$/;
const GOOGLE_EMAIL = /^email(\d+)value$/;
const GOOGLE_EMAIL_TYPE = /^email(\d+)(type|label)$/;
const OUTLOOK_EMAIL = /^email(\d+)address$/;

/** Guesses which column fills which field from the header names alone. */
export function guessMapping(columns: string[]): ColumnMapping {
  const keys = columns.map(headerKey);
  const mapping = emptyColumnMapping();
  const taken = new Set<string>();
  const pick = (field: Exclude<ImportField, 'phone'>) => {
    for (const alias of ALIASES[field]) {
      const at = keys.indexOf(alias);
      if (at >= 0 && !taken.has(columns[at]!)) {
        taken.add(columns[at]!);
        return columns[at]!;
      }
    }
    return null;
  };

  // Phones: every known phone column, mobile first, then Google's numbered ones in order.
  const phones: string[] = [];
  for (const alias of ALIASES.phone) {
    keys.forEach((k, i) => {
      if (k === alias && !phones.includes(columns[i]!)) phones.push(columns[i]!);
    });
  }
  const numbered = (re: RegExp) =>
    keys
      .map((k, i) => ({ m: re.exec(k), column: columns[i]! }))
      .filter((x): x is { m: RegExpExecArray; column: string } => x.m !== null)
      .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
      .map((x) => x.column);
  for (const c of numbered(GOOGLE_PHONE)) if (!phones.includes(c)) phones.push(c);
  mapping.phone = phones;
  phones.forEach((c) => taken.add(c));

  mapping.name = pick('name');
  mapping.firstName = pick('firstName');
  mapping.middleName = pick('middleName');
  mapping.lastName = pick('lastName');
  mapping.email = pick('email') ?? numbered(GOOGLE_EMAIL)[0] ?? numbered(OUTLOOK_EMAIL)[0] ?? null;
  if (mapping.email) taken.add(mapping.email);
  mapping.labels = pick('labels');

  // The type columns beside Google's numbered values say "Mobile" or "Work": not attributes.
  keys.forEach((k, i) => {
    if (GOOGLE_PHONE_TYPE.test(k) || GOOGLE_EMAIL_TYPE.test(k)) mapping.skip.push(columns[i]!);
  });
  return mapping;
}

const asList = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

const quoteList = (columns: string[]) =>
  columns.length ? columns.map((c) => `"${c}"`).join(', ') : '(none)';

/** True when the query names a mapping of its own (`map.*`). */
export const hasExplicitMapping = (q: ImportQuery): boolean =>
  IMPORT_FIELDS.some((f) => q[`map.${f}`] !== undefined);

/**
 * The mapping the import uses: the client's (`map.*`, `skip`) when it sent one, else the guess.
 * Column names must be in the header (exactly, or equal as `headerKey`s).
 */
export function resolveMapping(
  columns: string[],
  q: ImportQuery,
): { mapping: ColumnMapping; guessed: boolean } {
  const guessed = !hasExplicitMapping(q);
  const mapping = guessed ? guessMapping(columns) : emptyColumnMapping();
  const find = (name: string, param: string): string => {
    if (columns.includes(name)) return name;
    const byKey = columns.find((c) => headerKey(c) === headerKey(name));
    if (byKey !== undefined && headerKey(name) !== '') return byKey;
    throw new ApiError(
      'validation_error',
      `the CSV has no column "${name}"; its columns are ${quoteList(columns)}`,
      { param, details: { columns } },
    );
  };
  if (!guessed) {
    mapping.phone = asList(q['map.phone']).map((c) => find(c, 'map.phone'));
    for (const field of IMPORT_FIELDS) {
      if (field === 'phone') continue;
      const name = q[`map.${field}`];
      if (name) mapping[field] = find(name, `map.${field}`);
    }
  }
  for (const c of asList(q.skip)) {
    const column = find(c, 'skip');
    if (!mapping.skip.includes(column)) mapping.skip.push(column);
  }
  if (mapping.phone.length === 0) {
    throw new ApiError(
      'validation_error',
      guessed
        ? `no phone column found; the columns are ${quoteList(columns)}. Name a phone column "phone", or choose one with ?map.phone=COLUMN`
        : `map.phone must name the phone column; the columns are ${quoteList(columns)}`,
      { param: guessed ? 'phone' : 'map.phone', details: { columns } },
    );
  }
  return { mapping, guessed };
}

/** Indexes of the mapped columns, resolved once per file. */
export interface CompiledMapping {
  phone: { at: number; typeAt: number }[];
  name: number;
  firstName: number;
  middleName: number;
  lastName: number;
  email: number;
  labels: number;
  /** Columns stored as attributes: neither mapped nor skipped. */
  attributes: number[];
}

export function compileMapping(columns: string[], mapping: ColumnMapping): CompiledMapping {
  const at = (c: string | null) => (c === null ? -1 : columns.indexOf(c));
  const keys = columns.map(headerKey);
  const typeColumn = (column: string) => {
    const m = GOOGLE_PHONE.exec(headerKey(column));
    if (!m) return -1;
    return keys.findIndex((k) => GOOGLE_PHONE_TYPE.exec(k)?.[1] === m[1]);
  };
  const used = new Set<string>([
    ...mapping.phone,
    ...mapping.skip,
    ...(['name', 'firstName', 'middleName', 'lastName', 'email', 'labels'] as const)
      .map((f) => mapping[f])
      .filter((c): c is string => c !== null),
  ]);
  return {
    phone: mapping.phone.map((c) => ({ at: at(c), typeAt: typeColumn(c) })),
    name: at(mapping.name),
    firstName: at(mapping.firstName),
    middleName: at(mapping.middleName),
    lastName: at(mapping.lastName),
    email: at(mapping.email),
    labels: at(mapping.labels),
    attributes: columns.flatMap((c, i) => (c && !used.has(c) ? [i] : [])),
  };
}

/** Google packs several values into one cell: `+1 415… ::: +1 650…`. */
export const splitMulti = (value: string): string[] =>
  value
    .split(/\s*:::\s*/)
    .map((v) => v.trim())
    .filter(Boolean);
