/**
 * Exports (design.md §8, README "Exports"): CSV streamed a batch at a time, UTF-8 with a BOM (so
 * spreadsheet programs read it as UTF-8), and formula-safe — a cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a CR is prefixed with `'`, so opening the file never runs what a customer
 * typed. Quoting is csv-stringify's (RFC 4180).
 */
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';
import { Readable, pipeline } from 'node:stream';

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell as text, defused when a spreadsheet would read it as a formula. */
export function safeCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value as number | boolean);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * Streams rows read in batches (each batch its own short query, so a long export never holds
 * the database): `next(after)` returns the rows after a cursor and the cursor of the last, or
 * an empty batch at the end.
 */
export function sendCsv<C>(
  reply: FastifyReply,
  filename: string,
  header: readonly string[],
  next: (after: C | null) => { rows: unknown[][]; last: C | null },
): FastifyReply {
  async function* batches() {
    let after: C | null = null;
    for (;;) {
      const { rows, last } = next(after);
      if (rows.length === 0) return;
      for (const row of rows) yield row.map(safeCell);
      if (last === null) return;
      after = last;
      // Let other requests run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const csv = stringify({
    header: true,
    columns: [...header],
    bom: true,
    record_delimiter: '\r\n',
  });
  // A failure mid-way ends the download short (the client sees a cut transfer), never a hang.
  pipeline(Readable.from(batches()), csv, () => undefined);
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .send(csv);
}
