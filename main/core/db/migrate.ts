import type { Database as Db } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateDir, privateFile } from '../files.ts';
import { DatabaseOpenError } from './open.ts';

export interface Migration {
  id: number;
  name: string;
  sql: string;
  checksum: string;
}

/** In the source tree and in the bundle alike, the migrations sit beside this module's output. */
export function defaultMigrationsDir(): string {
  return fileURLToPath(new URL('./migrations/', import.meta.url));
}

export function loadMigrations(dir = defaultMigrationsDir()): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      return {
        id: Number(file.slice(0, 4)),
        name: file.replace(/\.sql$/, ''),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
}

export interface MigrateResult {
  applied: string[];
  backupFile: string | null;
}

/**
 * Applies pending migrations in order, each in its own transaction. An applied migration whose
 * file changed since is refused (its checksum is recorded). Before migrating a database that
 * already holds data, a consistent copy is written next to it.
 */
export function migrate(
  db: Db,
  options: { migrations?: Migration[]; backupDir?: string; now?: () => number } = {},
): MigrateResult {
  const migrations = options.migrations ?? loadMigrations();
  const now = options.now ?? Date.now;
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Map(
    (db.prepare('SELECT id, name, checksum FROM schema_migrations').all() as Migration[]).map(
      (m) => [m.id, m],
    ),
  );
  for (const [id, row] of applied) {
    const file = migrations.find((m) => m.id === id);
    if (!file) {
      throw new DatabaseOpenError(
        `the database was migrated by a newer Parley (migration ${row.name} is unknown to this version); upgrade Parley.`,
      );
    }
    if (file.checksum !== row.checksum) {
      throw new DatabaseOpenError(
        `migration ${row.name} was edited after it was applied (checksum mismatch); ` +
          'restore the original file and add a new migration instead.',
      );
    }
  }
  const pending = migrations.filter((m) => !applied.has(m.id));
  if (pending.length === 0) return { applied: [], backupFile: null };

  let backupFile: string | null = null;
  if (applied.size > 0 && options.backupDir) {
    privateDir.ensure(options.backupDir);
    const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-');
    backupFile = path.join(options.backupDir, `parley-before-${pending[0]!.name}-${stamp}.db`);
    // Created 0600 first: VACUUM INTO fills an empty file and keeps its mode.
    privateFile.create(backupFile);
    db.prepare('VACUUM INTO ?').run(backupFile);
  }
  const record = db.prepare(
    'INSERT INTO schema_migrations (id, name, checksum, applied_at) VALUES (?, ?, ?, ?)',
  );
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').pluck();
  const done: string[] = [];
  // A migration may sort or rewrite a whole table (an index over a million messages): its temp
  // b-trees and journals go to temp files, not the memory the running core keeps them in.
  const tempStore = db.pragma('temp_store', { simple: true }) as number;
  db.pragma('temp_store = FILE');
  // SQLite's way to change a table's shape (create the new one, copy, drop, rename) needs
  // foreign keys off while it runs, or the drop would cascade into every child table; they
  // are checked before each migration commits instead, and switched back on after.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  const violations = db.prepare('PRAGMA foreign_key_check');
  try {
    for (const m of pending) {
      // IMMEDIATE + re-check: a second process opening the same data dir at the same moment
      // waits, then sees the migration applied and skips it.
      db.transaction(() => {
        if (isApplied.get(m.id)) return;
        db.exec(m.sql);
        const broken = violations.all() as { table: string; parent: string }[];
        if (broken.length > 0) {
          throw new DatabaseOpenError(
            `migration ${m.name} would leave ${broken.length} rows of ${broken[0]!.table} pointing at missing ${broken[0]!.parent} rows; nothing was changed.`,
          );
        }
        record.run(m.id, m.name, m.checksum, now());
        done.push(m.name);
      }).immediate();
    }
  } finally {
    db.pragma(`temp_store = ${tempStore}`);
    db.pragma(`foreign_keys = ${foreignKeys}`);
  }
  return { applied: done, backupFile };
}
