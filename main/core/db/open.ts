import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { privateDir, privateFile } from '../files.ts';

/** Written into every Parley database (`PRAGMA application_id`) so a foreign file is recognised. */
export const APPLICATION_ID = 0x50524c59; // "PRLY"

export class DatabaseOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseOpenError';
  }
}

export interface OpenOptions {
  /** Path to an Electron-ABI build of better-sqlite3's addon when running inside Electron. */
  nativeBinding?: string;
  readonly?: boolean;
}

export function databasePath(dataDir: string): string {
  return path.join(dataDir, 'parley.db');
}

/**
 * Opens (creating if needed) the data dir's database with Parley's pragmas. A file that is not
 * a SQLite database, is damaged, or belongs to another application is refused with a clear
 * message instead of being touched.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  privateDir.ensure(path.dirname(file));
  const existed = fs.existsSync(file) && fs.statSync(file).size > 0;
  // Created 0600 here, not by SQLite (0644 less the umask); its -wal and -shm take its mode.
  // process.umask would do it too, but it is process-wide: a file another part of the process
  // created meanwhile (a worker, a download) would get it as well.
  if (!options.readonly && !fs.existsSync(file)) {
    try {
      privateFile.create(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  let db: Db;
  try {
    db = new Database(file, {
      ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
      ...(options.readonly ? { readonly: true } : {}),
    });
  } catch (e) {
    throw new DatabaseOpenError(`cannot open database ${file}: ${(e as Error).message}`);
  }
  try {
    db.pragma('busy_timeout = 5000');
    if (existed) {
      const appId = db.pragma('application_id', { simple: true }) as number;
      const tables = db
        .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'")
        .get() as { n: number };
      // A file stamped by another application is refused even while it holds no tables yet
      // (that application may be about to create them); an unstamped file is foreign only once
      // it has tables.
      const foreign = appId !== 0 && appId !== APPLICATION_ID;
      if (foreign || (appId !== APPLICATION_ID && tables.n > 0)) {
        throw new DatabaseOpenError(
          `${file} is a SQLite database of another application (application_id ${appId}); ` +
            'refusing to use it. Point --data-dir at an empty folder or a Parley data dir.',
        );
      }
      // Reading the schema (above) catches a file that is not a database or has a broken
      // header; a full integrity check would read every page, seconds on a large store, so it is
      // left to `parley backup` (VACUUM INTO fails on a damaged file) and to query time.
    }
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // A page cache that holds a busy store's hot pages (the default is 2 MiB).
      db.pragma('cache_size = -65536');
      // Statement journals and savepoints' sub-journals (a page copy per page a statement with
      // triggers, or a savepoint, first touches) stay in memory instead of a temp file: a
      // conversation insert (its count triggers) costs a third as much.
      db.pragma('temp_store = MEMORY');
      db.pragma('foreign_keys = ON');
      // A rewritten value (a secret sealed in place, a redacted answer) leaves no copy of the
      // old bytes in the page's free space, where no extra write is needed to clear them.
      db.pragma('secure_delete = FAST');
      db.pragma(`application_id = ${APPLICATION_ID}`);
      // A WAL or SHM an older Parley (or another tool) left with looser modes.
      for (const side of [`${file}-wal`, `${file}-shm`]) {
        if (fs.existsSync(side)) privateFile.tighten(side);
      }
    }
    return db;
  } catch (e) {
    db.close();
    if (e instanceof DatabaseOpenError) throw e;
    const msg = (e as Error).message;
    if (/not a database|malformed|file is encrypted/i.test(msg)) {
      throw new DatabaseOpenError(
        `${file} is not a usable Parley database (${msg}). Restore a backup or move the file away.`,
      );
    }
    throw new DatabaseOpenError(`cannot open database ${file}: ${msg}`);
  }
}
