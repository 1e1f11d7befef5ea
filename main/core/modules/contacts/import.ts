import type { Database as Db } from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { ApiError } from '../../../../shared/errors.ts';
import { normalizePhone } from '../../../../shared/phone.ts';
import type { ImportResult, ImportRowError } from '../../../../shared/schemas/contacts.ts';
import type { Scope } from '../../runtime.ts';
import type { ContactChanges, ContactsService } from './service.ts';

export const MAX_IMPORT_ROWS = 100_000;
const BATCH = 500;
const KNOWN = new Set(['phone', 'name', 'email', 'labels']);
const emailSchema = z.email();

interface ValidRow {
  line: number;
  phone: string;
  changes: ContactChanges;
}

/** Reads a CSV into valid rows and per-line errors; writes nothing. Header row required. */
export function readContactsCsv(text: string): {
  rows: ValidRow[];
  errors: ImportRowError[];
  total: number;
} {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }) as unknown as typeof records;
  } catch (e) {
    const err = e as Error & { lines?: number };
    throw new ApiError(
      'validation_error',
      `the CSV is malformed${err.lines ? ` at line ${err.lines}` : ''}: ${err.message}; nothing was imported`,
      { param: 'body' },
    );
  }
  const [header, ...data] = records;
  if (!header) throw new ApiError('validation_error', 'the CSV is empty', { param: 'body' });
  const columns = header.record.map((c) => c.trim());
  const lower = columns.map((c) => c.toLowerCase());
  const phoneAt = lower.indexOf('phone');
  if (phoneAt < 0) {
    throw new ApiError('validation_error', 'the CSV needs a header row with a "phone" column', {
      param: 'phone',
    });
  }
  if (data.length > MAX_IMPORT_ROWS) {
    throw new ApiError(
      'validation_error',
      `the CSV has ${data.length} rows; at most ${MAX_IMPORT_ROWS} per import`,
      { param: 'body' },
    );
  }
  const nameAt = lower.indexOf('name');
  const emailAt = lower.indexOf('email');
  const labelsAt = lower.indexOf('labels');

  const rows: ValidRow[] = [];
  const errors: ImportRowError[] = [];
  const seen = new Map<string, number>();
  for (const { record, info } of data) {
    const line = info.lines;
    const fail = (reason: string, param?: string) =>
      errors.push(param ? { line, reason, param } : { line, reason });
    if (record.length !== columns.length) {
      fail(`expected ${columns.length} columns, found ${record.length}`);
      continue;
    }
    const rawPhone = record[phoneAt]!;
    if (!rawPhone) {
      fail('phone is required', 'phone');
      continue;
    }
    const phone = normalizePhone(rawPhone);
    if (!phone) {
      fail(`phone "${rawPhone}" is not a valid international number (+ and country code)`, 'phone');
      continue;
    }
    const dup = seen.get(phone);
    if (dup !== undefined) {
      fail(`phone ${phone} appears already on line ${dup}`, 'phone');
      continue;
    }
    const changes: ContactChanges = { mergeLabels: true };
    if (nameAt >= 0 && record[nameAt]) {
      if (record[nameAt]!.length > 200) {
        fail('name is longer than 200 characters', 'name');
        continue;
      }
      changes.name = record[nameAt]!;
    }
    if (emailAt >= 0 && record[emailAt]) {
      if (!emailSchema.safeParse(record[emailAt]).success) {
        fail(`email "${record[emailAt]}" is not a valid address`, 'email');
        continue;
      }
      changes.email = record[emailAt]!;
    }
    if (labelsAt >= 0 && record[labelsAt]) {
      const labels = record[labelsAt]!.split(/[;|]/)
        .map((l) => l.trim())
        .filter(Boolean);
      if (labels.some((l) => l.length > 64) || labels.length > 50) {
        fail('labels: at most 50, each at most 64 characters', 'labels');
        continue;
      }
      changes.labels = labels;
    }
    const attributes: Record<string, string> = {};
    columns.forEach((col, i) => {
      if (!KNOWN.has(lower[i]!) && col && record[i]) attributes[col] = record[i]!;
    });
    if (Object.keys(attributes).length) changes.attributes = attributes;
    seen.set(phone, line);
    rows.push({ line, phone, changes });
  }
  return { rows, errors, total: data.length };
}

export interface PreparedImport {
  scope: Scope;
  groupId: string | null;
  rows: ValidRow[];
  errors: ImportRowError[];
  total: number;
}

/** Parses and validates the whole file first: a malformed file or unknown group writes nothing. */
export function prepareImport(
  contacts: ContactsService,
  scope: Scope,
  text: string,
  groupId?: string,
): PreparedImport {
  const read = readContactsCsv(text);
  if (groupId) contacts.requireGroup(scope, groupId, 'groupId');
  return { scope, groupId: groupId ?? null, ...read };
}

/**
 * Imports the valid rows (upsert by phone, labels merged); each bad row is reported with its
 * line and reason. Every row is written whole or not at all; rows are committed in batches so a
 * large file yields to other requests between them and can report progress.
 */
export async function runImport(
  db: Db,
  contacts: ContactsService,
  job: PreparedImport,
  onProgress?: (processed: number, total: number) => void,
): Promise<ImportResult> {
  const { rows, errors, total, scope, groupId } = job;
  let created = 0;
  let updated = 0;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    db.transaction(() => {
      for (const r of batch) {
        const { row, created: isNew } = contacts.write(scope, r.phone, r.changes);
        if (isNew) created++;
        else updated++;
        if (groupId) contacts.repo.addMember(groupId, row.id, row.updated_at);
      }
    }).immediate();
    onProgress?.(Math.min(i + BATCH, rows.length) + errors.length, total);
    if (i + BATCH < rows.length) await new Promise((resolve) => setImmediate(resolve));
  }
  if (rows.length === 0) onProgress?.(total, total);
  const sorted = [...errors].sort((a, b) => a.line - b.line);
  return { total, created, updated, failed: sorted.length, errors: sorted };
}
