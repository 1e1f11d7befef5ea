/**
 * "Paste rows" in the list editor: lines copied from a spreadsheet (tab-separated) or written as
 * CSV — `title, description, id`, the last two optional — read by csv-parse (quotes, cells with
 * commas or line breaks, a header line), each line checked against the shared list rules
 * (shared/list-rules.ts) and its row id made up from the title when it has none.
 */
import { parse } from 'csv-parse/browser/esm/sync';
import { LIST_LIMITS } from '../../../../shared/list-rules.ts';

export interface PastedRow {
  /** The line of the pasted text the row starts on (1-based). */
  line: number;
  id: string;
  title: string;
  description: string;
}

export interface PasteLineError {
  line: number;
  message: string;
}

export interface PasteResult {
  rows: PastedRow[];
  errors: PasteLineError[];
  /** The first line named the columns (`title`, `description`, `id`) and was not a row. */
  header: boolean;
  delimiter: 'tab' | 'comma';
}

type Column = 'title' | 'description' | 'id';
const DEFAULT_COLUMNS: readonly Column[] = ['title', 'description', 'id'];
const HEADER_NAMES: Readonly<Record<string, Column>> = {
  title: 'title',
  'row title': 'title',
  description: 'description',
  id: 'id',
  'row id': 'id',
};

/** A row id from a title: `Track my order` → `track-my-order` (letters and digits, dashes). */
export function slugOf(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}

/** `base`, or `base-2`, `base-3`, … the first no row has yet; `row` when the base is empty. */
export function uniqueId(base: string, taken: ReadonlySet<string>): string {
  const stem = (base || 'row').slice(0, LIST_LIMITS.rowId - 4);
  if (!taken.has(stem) && base) return stem;
  let n = base ? 2 : 1;
  while (taken.has(`${stem}-${n}`)) n++;
  return `${stem}-${n}`;
}

const chars = (n: number) => `${n} character${n === 1 ? '' : 's'}`;

function tooLong(what: string, value: string, max: number): string | null {
  return value.length > max ? `${what} is at most ${chars(max)} (it has ${value.length})` : null;
}

/**
 * Reads pasted lines into rows. `takenIds` are the ids the list's rows already have: a pasted id
 * among them (or twice in the paste) is an error on its line; a made-up id never collides.
 */
export function parsePastedRows(text: string, takenIds: Iterable<string> = []): PasteResult {
  const delimiter = text.includes('\t') ? 'tab' : 'comma';
  const result: PasteResult = { rows: [], errors: [], header: false, delimiter };
  if (text.trim() === '') return result;

  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      delimiter: delimiter === 'tab' ? '\t' : ',',
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (e) {
    const line = (e as { lines?: number }).lines ?? 1;
    result.errors.push({
      line,
      message: `Can't read the text: ${e instanceof Error ? e.message.replace(/^Invalid Record Length: /, '') : String(e)}`,
    });
    return result;
  }

  let columns = DEFAULT_COLUMNS;
  const first = records[0]?.record.map((cell) => cell.toLowerCase());
  if (
    first &&
    HEADER_NAMES[first[0] ?? ''] &&
    first.every((cell) => cell === '' || HEADER_NAMES[cell])
  ) {
    columns = first.map((cell) => HEADER_NAMES[cell] ?? 'title');
    result.header = true;
    records = records.slice(1);
  }

  const taken = new Set(takenIds);
  const pastedIds = new Map<string, number>();
  // Ids given in the paste are claimed first, so a made-up one never takes a later line's.
  for (const { record, info } of records) {
    const id = record[columns.indexOf('id')]?.trim();
    if (id && !pastedIds.has(id)) pastedIds.set(id, info.lines);
  }

  for (const { record, info } of records) {
    const line = info.lines;
    const cell = (column: Column) => {
      const at = columns.indexOf(column);
      return at < 0 ? '' : (record[at] ?? '').trim();
    };
    if (record.every((value) => value.trim() === '')) continue;
    if (record.length > columns.length && record.slice(columns.length).some((v) => v.trim())) {
      result.errors.push({
        line,
        message: `Line ${line} has ${record.length} cells; a row has ${columns.length} (${columns.join(', ')})`,
      });
      continue;
    }
    const title = cell('title');
    const description = cell('description');
    let id = cell('id');
    const problems: string[] = [];
    if (title === '') problems.push('Row title is empty');
    const long =
      tooLong('Row title', title, LIST_LIMITS.rowTitle) ??
      tooLong('Description', description, LIST_LIMITS.rowDescription) ??
      tooLong('Row ID', id, LIST_LIMITS.rowId);
    if (long) problems.push(long);
    if (id) {
      if (taken.has(id)) {
        problems.push(
          pastedIds.get(id) === line
            ? `Row ID "${id}" is already used in the list`
            : `Row ID "${id}" is used twice (also on line ${pastedIds.get(id)})`,
        );
      }
    } else {
      id = uniqueId(slugOf(title), new Set([...taken, ...pastedIds.keys()]));
    }
    if (problems.length > 0) {
      result.errors.push({ line, message: `Line ${line}: ${problems.join('; ')}` });
      // A refused line's id is still taken: a later line using it is the repeat.
      taken.add(id);
      continue;
    }
    taken.add(id);
    result.rows.push({ line, id, title, description });
  }
  return result;
}
