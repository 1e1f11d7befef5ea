import { parse } from 'csv-parse';
import type { Parser } from 'csv-parse';
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { Readable, TransformCallback } from 'node:stream';
import { z } from 'zod';
import { ApiError } from '../../../../shared/errors.ts';
import { labelsFromCell, labelsProblem } from '../../../../shared/labels.ts';
import type { StreamedBody } from '../../http/idempotency.ts';
import { checkPhone } from '../../../../shared/phone.ts';
import type {
  ColumnMapping,
  ImportPreview,
  ImportQuery,
  ImportRowError,
} from '../../../../shared/schemas/contacts.ts';
import type { CompiledMapping } from './columns.ts';
import { compileMapping, resolveMapping, splitMulti } from './columns.ts';
import type { ContactChanges } from './service.ts';

export const MAX_IMPORT_ROWS = 100_000;
/** Bytes read from the upload; the row limit usually stops a file long before. */
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;
/** One record (a line, or a quoted field running over lines) may not exceed this. */
const MAX_RECORD_BYTES = 1024 * 1024;
/** Errors kept for the answer; `failed` still counts them all. */
const MAX_REPORTED_ERRORS = 1000;
const SAMPLE_ROWS = 5;
const PROGRESS_EVERY = 500;
const emailSchema = z.email().max(320);

export type ImportEncoding = ImportPreview['encoding'];
export type ImportDelimiter = ImportPreview['delimiter'];

export interface ValidRow {
  line: number;
  phone: string;
  changes: ContactChanges;
}

/** What an import read: everything `commitImport` needs, and the preview's facts. */
export interface ReadImport {
  encoding: ImportEncoding;
  delimiter: ImportDelimiter;
  columns: string[];
  mapping: ColumnMapping;
  guessed: boolean;
  sample: SampleRow[];
  rows: ValidRow[];
  errors: ImportRowError[];
  failed: number;
  total: number;
}

const malformed = (e: unknown): ApiError => {
  if (e instanceof ApiError) return e;
  const err = e as Error & { lines?: number; code?: string };
  const where = err.lines ? ` at line ${err.lines}` : '';
  return new ApiError(
    'validation_error',
    `the CSV is malformed${where}: ${err.message}; nothing was imported`,
    { param: 'body' },
  );
};

const tooManyRows = () =>
  new ApiError(
    'payload_too_large',
    `the CSV has more than ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows; at most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} per import (split the file); nothing was imported`,
    { param: 'body' },
  );

export const tooManyBytes = () =>
  new ApiError(
    'payload_too_large',
    `the CSV is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MiB; split the file; nothing was imported`,
    { param: 'body' },
  );

/**
 * A `text/csv` body as app.ts's content-type parser hands it over: the request stream itself,
 * read by the import route as it arrives, never buffered whole.
 */
/**
 * A CSV request body, handed to the route as a stream (never buffered whole). Its bytes are
 * hashed as they pass, so an Idempotency-Key can compare uploads once the route has read one.
 */
export class CsvUpload implements StreamedBody {
  readonly streamed = true as const;
  readonly stream: Readable;
  private readonly hash = createHash('sha256');

  constructor(source: Readable) {
    const hash = this.hash;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    // pipe() forwards data and end, not failures: an aborted upload must end the read too.
    source.on('error', (e) => tap.destroy(e));
    source.on('close', () => {
      if (!source.readableEnded) tap.destroy(new Error('the upload was aborted'));
    });
    this.stream = source.pipe(tap);
  }

  /** SHA-256 of the bytes read so far: of the whole upload once it has been read. */
  digest(): string {
    return this.hash.copy().digest('hex');
  }
}

/**
 * Reads and drops the rest of an upload the import stopped parsing, then resolves: the answer
 * goes out once the client has finished sending, as every HTTP client expects (answering
 * mid-upload and closing makes most of them report a broken pipe instead of the answer).
 * Nothing is kept, so memory stays flat. Resolves false when more than `limit` bytes were
 * left: then the caller answers at once and closes the connection.
 */
export function drainUpload(stream: Readable, limit = 4 * MAX_IMPORT_BYTES): Promise<boolean> {
  if (stream.readableEnded) return Promise.resolve(true);
  if (stream.destroyed) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let dropped = 0;
    const finish = (drained: boolean) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onClose);
      stream.off('error', onClose);
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > limit) {
        stream.pause();
        finish(false);
      }
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(stream.readableEnded);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('close', onClose);
    stream.once('error', onClose);
    stream.resume();
  });
}

/** Counts the delimiters of the header line outside quotes; the most frequent one wins. */
export function sniffDelimiter(headerLine: string): ImportDelimiter {
  const counts: Record<ImportDelimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) counts[ch]++;
  }
  let best: ImportDelimiter = ',';
  for (const d of [';', '\t'] as const) if (counts[d] > counts[best]) best = d;
  return best;
}

/** Excel writes `sep=;` as the first line of some exports to name the delimiter. */
const SEP_LINE = /^sep=([,;\t])\r?$/;

/**
 * Bytes in, UTF-8 bytes out: sniffs the encoding from the BOM (UTF-8, UTF-16LE, UTF-16BE;
 * without one, UTF-8, or Windows-1252 when the start is not valid UTF-8, as older Excel saves
 * it), strips the BOM, and holds the text back until the header line is complete so the
 * delimiter is known before csv-parse starts. Stops with 413 past `maxBytes`.
 */
export class CsvDecoder extends Transform {
  encoding: ImportEncoding = 'utf-8';
  delimiter: ImportDelimiter = ',';
  /** 1 when an Excel `sep=` line was dropped: csv-parse's line numbers are one short. */
  lineOffset = 0;
  bytes = 0;
  /** Resolves once the delimiter is known (the header line was read, or the file ended). */
  readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private rejectReady!: (e: Error) => void;
  private decoder: TextDecoder | null = null;
  private pending = Buffer.alloc(0);
  private held = '';
  private sniffed = false;

  constructor(private readonly maxBytes = MAX_IMPORT_BYTES) {
    super();
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // Nobody may be waiting on `ready` when a later chunk fails; the stream's error says it.
    this.ready.catch(() => undefined);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(tooManyBytes());
      return;
    }
    try {
      if (!this.decoder) {
        this.pending = Buffer.concat([this.pending, chunk]);
        // Three bytes tell every BOM apart; without one, look at up to 4 KiB for the encoding.
        if (this.pending.length < 4096) {
          done();
          return;
        }
        chunk = this.startDecoding();
      }
      this.output(this.decoder!.decode(chunk, { stream: true }));
      done();
    } catch (e) {
      done(e as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      const rest = this.decoder ? Buffer.alloc(0) : this.startDecoding();
      this.output(this.decoder!.decode(rest));
      this.sniff(true);
      done();
    } catch (e) {
      done(e as Error);
    }
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.rejectReady(error ?? new Error('the upload ended early'));
    done(error);
  }

  private startDecoding(): Buffer {
    const b = this.pending;
    this.pending = Buffer.alloc(0);
    if (b[0] === 0xff && b[1] === 0xfe) this.encoding = 'utf-16le';
    else if (b[0] === 0xfe && b[1] === 0xff) this.encoding = 'utf-16be';
    else if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.encoding = 'utf-8';
    else {
      try {
        // A multi-byte character may be cut at the end of the sample: that is not an error.
        new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(0, 4096), { stream: true });
      } catch {
        this.encoding = 'windows-1252';
      }
    }
    this.decoder = new TextDecoder(this.encoding);
    return b;
  }

  private output(text: string): void {
    if (this.sniffed) {
      if (text) this.push(Buffer.from(text, 'utf8'));
      return;
    }
    this.held += text;
    this.sniff(false);
  }

  private sniff(ended: boolean): void {
    if (this.sniffed) return;
    let newline = this.held.indexOf('\n');
    const sep = SEP_LINE.exec(newline >= 0 ? this.held.slice(0, newline) : '');
    if (sep) {
      this.delimiter = sep[1] as ImportDelimiter;
      this.lineOffset = 1;
      this.held = this.held.slice(newline + 1);
      newline = this.held.indexOf('\n');
    }
    if (newline < 0 && !ended && this.held.length < 64 * 1024) return;
    if (!sep)
      this.delimiter = sniffDelimiter(newline >= 0 ? this.held.slice(0, newline) : this.held);
    this.sniffed = true;
    const text = this.held;
    this.held = '';
    if (text) this.push(Buffer.from(text, 'utf8'));
    this.resolveReady();
  }
}

/** A data row as read, and as the import would store it (or why it would not). */
export type SampleRow = ImportPreview['sample'][number];

/** Checks data rows one by one against the mapping; keeps the valid ones and the reasons. */
export class RowChecker {
  readonly rows: ValidRow[] = [];
  readonly errors: ImportRowError[] = [];
  readonly sample: SampleRow[] = [];
  failed = 0;
  total = 0;
  private readonly seen = new Map<string, number>();
  private readonly map: CompiledMapping;

  constructor(
    private readonly columns: string[],
    mapping: ColumnMapping,
  ) {
    this.map = compileMapping(columns, mapping);
  }

  add(record: string[], line: number): void {
    this.total++;
    if (this.total > MAX_IMPORT_ROWS) throw tooManyRows();
    const result = this.check(record, line);
    // The preview shows the very result the import will act on, never a second reading of it.
    if (this.sample.length < SAMPLE_ROWS) {
      this.sample.push(
        'reason' in result
          ? {
              line,
              values: record,
              phone: null,
              error: result.reason,
              name: null,
              email: null,
              labels: [],
            }
          : {
              line,
              values: record,
              phone: result.phone,
              error: null,
              name: result.changes.name ?? null,
              email: result.changes.email ?? null,
              labels: result.changes.labels ?? [],
            },
      );
    }
    if ('reason' in result) {
      this.failed++;
      if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push(result);
    } else {
      this.seen.set(result.phone, line);
      this.rows.push(result);
    }
  }

  private check(record: string[], line: number): ValidRow | ImportRowError {
    const m = this.map;
    const fail = (reason: string, param?: string): ImportRowError =>
      param ? { line, reason, param } : { line, reason };
    if (record.length !== this.columns.length) {
      return fail(`expected ${this.columns.length} columns, found ${record.length}`);
    }
    const cell = (at: number) => (at >= 0 ? record[at]! : '');

    // Phones: the mapped columns in order (Google's "Mobile" ones first), several per cell.
    const candidates = m.phone.flatMap(({ at, typeAt }) =>
      splitMulti(cell(at)).map((value) => ({
        // A phone a Parley export defused (`'+1 415…`, README "Exports") reads as the phone.
        value: value.replace(/^'(?=\+)/, ''),
        mobile: typeAt >= 0 && /mobile|cell/i.test(cell(typeAt)),
      })),
    );
    candidates.sort((a, b) => Number(b.mobile) - Number(a.mobile));
    if (candidates.length === 0) return fail('phone is required', 'phone');
    let phone: string | null = null;
    let firstReason = '';
    for (const c of candidates) {
      const checked = checkPhone(c.value);
      if (checked.ok) {
        phone = checked.phone;
        break;
      }
      firstReason ||= `phone "${c.value}" is not a valid international number: ${checked.reason}`;
    }
    if (!phone) return fail(firstReason, 'phone');
    const dup = this.seen.get(phone);
    if (dup !== undefined) return fail(`phone ${phone} appears already on line ${dup}`, 'phone');

    const changes: ContactChanges = { mergeLabels: true };
    const name =
      cell(m.name) ||
      [cell(m.firstName), cell(m.middleName), cell(m.lastName)].filter(Boolean).join(' ');
    if (name) {
      if (name.length > 200) return fail('name is longer than 200 characters', 'name');
      changes.name = name;
    }
    const emails = splitMulti(cell(m.email));
    if (emails.length) {
      const email = emails.find((e) => emailSchema.safeParse(e).success);
      if (!email) return fail(`email "${emails[0]}" is not a valid address`, 'email');
      changes.email = email;
    }
    const labels = labelsFromCell(cell(m.labels));
    const problem = labelsProblem(labels);
    if (problem) return fail(problem, 'labels');
    if (labels.length) changes.labels = labels;
    const attributes: Record<string, string> = {};
    for (const i of m.attributes) if (record[i]) attributes[this.columns[i]!] = record[i]!;
    if (Object.keys(attributes).length) changes.attributes = attributes;
    return { line, phone, changes };
  }
}

const PARSE_OPTIONS = {
  info: true,
  skip_empty_lines: true,
  relax_column_count: true,
  trim: true,
  max_record_size: MAX_RECORD_BYTES,
} as const;

interface ParsedRecord {
  record: string[];
  info: { lines: number };
}

export interface ReadOptions {
  query: ImportQuery;
  /** Called once the header is read and the mapping resolved (before any data row). */
  onHeader?: () => void;
  /** Rows read so far, every few hundred rows. */
  onProgress?: (rowsRead: number, bytesRead: number) => void;
}

/**
 * Reads an upload as it arrives: decodes, parses and checks each row, and stops at the first
 * fatal problem (malformed CSV, no phone column, too many rows or bytes) by throwing. Writes
 * nothing. The source is never destroyed here: the caller owns it (an HTTP request must stay
 * open to carry the answer).
 */
export async function readImportStream(source: Readable, opts: ReadOptions): Promise<ReadImport> {
  const decoder = new CsvDecoder();
  let parser: Parser | null = null;
  const onClose = () => {
    if (!source.readableEnded) decoder.destroy(new Error('the upload was aborted'));
  };
  source.once('close', onClose);
  source.pipe(decoder);
  try {
    await decoder.ready;
    parser = parse({ ...PARSE_OPTIONS, delimiter: decoder.delimiter });
    const into = parser;
    decoder.once('error', (e) => into.destroy(e));
    decoder.pipe(parser);
    let checker: RowChecker | null = null;
    let columns: string[] = [];
    let mapping: ColumnMapping | null = null;
    let guessed = true;
    for await (const parsed of into as AsyncIterable<ParsedRecord>) {
      const line = parsed.info.lines + decoder.lineOffset;
      if (!checker) {
        columns = parsed.record.map((c) => c.trim());
        ({ mapping, guessed } = resolveMapping(columns, opts.query));
        checker = new RowChecker(columns, mapping);
        opts.onHeader?.();
        continue;
      }
      checker.add(parsed.record, line);
      if (checker.total % PROGRESS_EVERY === 0) opts.onProgress?.(checker.total, decoder.bytes);
    }
    if (!checker || !mapping)
      throw new ApiError('validation_error', 'the CSV is empty', { param: 'body' });
    return {
      encoding: decoder.encoding,
      delimiter: decoder.delimiter,
      columns,
      mapping,
      guessed,
      sample: checker.sample,
      rows: checker.rows,
      errors: checker.errors,
      failed: checker.failed,
      total: checker.total,
    };
  } catch (e) {
    throw malformed(e);
  } finally {
    source.off('close', onClose);
    source.unpipe(decoder);
    decoder.destroy();
    parser?.destroy();
  }
}

/** The dry run's answer. */
export const toPreview = (read: ReadImport): ImportPreview => ({
  dryRun: true,
  encoding: read.encoding,
  delimiter: read.delimiter,
  columns: read.columns,
  mapping: read.mapping,
  guessed: read.guessed,
  sample: read.sample,
  total: read.total,
  valid: read.rows.length,
  failed: read.failed,
  errors: read.errors,
});
