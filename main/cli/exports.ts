/**
 * `parley contacts export` (README "Exports"): the contacts the filters match as CSV — the same
 * filters, columns and CSV (UTF-8 with BOM, formula-safe, streamed a batch at a time) as
 * `GET /api/contacts/export`, to stdout or to a file, in the audit trail as `export.created`.
 */
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { csvStream } from '../core/http/csv-export.ts';
import type { Command } from './common.ts';
import { cliAudit, envOrUsage, UsageError } from './common.ts';

/** Writes the CSV to stdout; a reader that stops early (`| head`) ends the export quietly. */
async function toStdout(csv: Readable): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const done = (e?: Error | null) => {
      process.stdout.off('error', onError);
      if (e && (e as NodeJS.ErrnoException).code !== 'EPIPE') reject(e);
      else resolve();
    };
    const onError = (e: Error) => {
      csv.destroy();
      done(e);
    };
    process.stdout.on('error', onError);
    csv.once('error', done);
    csv.once('end', () => done());
    csv.pipe(process.stdout, { end: false });
  });
}

export const exportCommands: Record<string, Command> = {
  'contacts export': async ({ values, open, print, io, json }) => {
    const out = values.out;
    if (json && !out) {
      throw new UsageError('--json needs --out FILE (without it, stdout is the CSV itself)');
    }
    const environment = envOrUsage(values.env);
    const { services } = open();
    const ws = services.workspaces.resolve(values.workspace);
    const scope = { workspaceId: ws.id, environment };
    const filter = Object.fromEntries(
      Object.entries({ label: values.label, group: values.group, q: values.q }).filter(
        ([, v]) => v !== undefined && v !== '',
      ),
    );
    // The same checks and batches as the API's export (an unknown group stops here).
    const { header, next } = services.contacts.export(scope, filter);
    cliAudit(
      services,
      ws.id,
      'export.created',
      { type: 'contacts', id: null },
      { environment, filter },
    );
    const total = (
      JSON.parse(services.contacts.list(scope, { ...filter, limit: 1 })) as { total: number }
    ).total;
    let rows = 0;
    const bar = !json && io.isTTY && out !== undefined;
    const counted: typeof next = (after) => {
      const batch = next(after);
      rows += batch.rows.length;
      if (bar) {
        const pct = total ? Math.round((rows / total) * 100) : 100;
        process.stderr.write(`\rexporting [${'#'.repeat(pct / 5).padEnd(20)}] ${pct}%   `);
      }
      return batch;
    };
    const csv = csvStream(header, counted);
    if (!out) return toStdout(csv);
    // Contacts are personal data: the file is the user's own (0600), like a backup.
    await pipeline(csv, fs.createWriteStream(out, { mode: 0o600 }));
    if (bar) process.stderr.write('\n');
    print(`exported ${rows} contacts to ${out}`, {
      file: out,
      rows,
      environment,
      workspaceId: ws.id,
      filter,
    });
  },
};
