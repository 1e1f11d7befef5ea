import type { Database as Db } from 'better-sqlite3';
import type { Sealer } from '../secrets.ts';
import { SEALED_COLUMNS } from '../secrets.ts';

/**
 * Secrets an older Parley kept in the clear (README "Data, backups and security"): provider
 * secrets are sealed, and a created API key or a workflow's or webhook's signing secret stored
 * in an idempotent answer is taken out (its record stays: a replay answers 409 with it). Code, not a
 * SQL migration (SQL cannot encrypt): run at every start in one transaction, before the
 * migrations (so their backup copy holds no plaintext) and after them; values already sealed are
 * left alone, so a second run changes nothing. Tables or columns a database does not have yet
 * are skipped. Returns how many values it changed.
 */
export function sealPlaintextSecrets(db: Db, sealer: Sealer): number {
  const hasColumn = db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?').pluck();
  return db
    .transaction(() => {
      let changed = 0;
      for (const { table, keys, column } of SEALED_COLUMNS) {
        if (!hasColumn.get(table, column)) continue;
        const where = keys.map((k) => `${k} = @${k}`).join(' AND ');
        const rows = db
          .prepare(
            `SELECT ${keys.join(', ')}, ${column} AS value FROM ${table}
             WHERE ${column} IS NOT NULL AND ${column} NOT LIKE 'sealed:%'`,
          )
          .all() as ({ value: string } & Record<string, string>)[];
        if (rows.length === 0) continue;
        const update = db.prepare(`UPDATE ${table} SET ${column} = @sealed WHERE ${where}`);
        for (const row of rows) {
          update.run({ ...row, sealed: sealer.seal(`${table}.${column}`, row.value) });
          changed += 1;
        }
      }
      if (hasColumn.get('idempotency_keys', 'body')) {
        changed += db
          .prepare(
            `UPDATE idempotency_keys SET body = json_remove(body, '$.key')
             WHERE json_valid(body) AND json_extract(body, '$.key') LIKE 'svc\\_%' ESCAPE '\\'`,
          )
          .run().changes;
        // A created or rotated workflow's answer: its record (with its steps) and `secret`.
        changed += db
          .prepare(
            `UPDATE idempotency_keys SET body = json_remove(body, '$.secret')
             WHERE json_valid(body) AND json_type(body, '$.steps') = 'array'
               AND json_extract(body, '$.secret') LIKE 'whsec\\_%' ESCAPE '\\'`,
          )
          .run().changes;
        // A created webhook's answer: its record (url, enabled, …) and `secret`.
        changed += db
          .prepare(
            `UPDATE idempotency_keys SET body = json_remove(body, '$.secret')
             WHERE json_valid(body) AND json_type(body, '$.url') = 'text'
               AND json_type(body, '$.enabled') IN ('true', 'false')
               AND json_extract(body, '$.secret') LIKE 'whsec\\_%' ESCAPE '\\'`,
          )
          .run().changes;
      }
      return changed;
    })
    .immediate();
}
