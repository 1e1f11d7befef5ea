/**
 * Exports (design.md §8, README "Exports"): CSV streamed a batch at a time, UTF-8 with a BOM (so
 * spreadsheet programs read it as UTF-8), and formula-safe — a cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a CR is prefixed with `'`, so opening the file never runs what a customer
 * typed. Quoting is csv-stringify's (RFC 4180). The API's exports (`sendCsv`) and the command
 * line's (`csvStream`, `parley contacts export`) are the one mechanism.
 */
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';
import type { Readable as ReadableStream } from 'node:stream';
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
 * The rows after a cursor and the cursor of the last (null: that was the last batch), or an
 * empty batch at the end. Each call is its own short query, so a long export never holds the
 * database, and only one batch is in memory at a time.
 */
export type CsvBatches<C> = (after: C | null) => { rows: unknown[][]; last: C | null };

/** Rows an export reads per query. */
export const EXPORT_BATCH = 1000;

/** The CSV text of `header` and every batch, as a stream (BOM first, CRLF rows). */
export function csvStream<C>(header: readonly string[], next: CsvBatches<C>): ReadableStream {
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
  // A failure mid-way ends the stream short (a reader sees a cut transfer), never a hang.
  pipeline(Readable.from(batches()), csv, () => undefined);
  return csv;
}

/** An export's file name: `parley-<what>-<YYYY-MM-DD>.csv` (the day in UTC). */
export const exportFilename = (what: string, now: number): string =>
  `parley-${what}-${new Date(now).toISOString().slice(0, 10)}.csv`;

/** Streams an export as the answer: `text/csv`, a download with its file name, never cached. */
export function sendCsv<C>(
  reply: FastifyReply,
  filename: string,
  header: readonly string[],
  next: CsvBatches<C>,
): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .send(csvStream(header, next));
}
