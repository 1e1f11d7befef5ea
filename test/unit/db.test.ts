import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createCore, openStore } from '../../main/core/core.ts';
import { loadMigrations, migrate } from '../../main/core/db/migrate.ts';
import { openDatabase } from '../../main/core/db/open.ts';
import { tempDir } from '../helpers.ts';

const dirs: string[] = [];
const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

it('creates an empty data dir with WAL, the Default workspace and one active business account', () => {
  const d = dir();
  const store = openStore({ dataDir: d });
  expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
  // Temp b-trees and journals in memory (2) for the running core; migrations used files.
  expect(store.db.pragma('temp_store', { simple: true })).toBe(2);
  expect(store.services.workspaces.list().map((w) => w.name)).toEqual(['Default']);
  expect(
    store.services.workspaces.activeAccount(store.services.workspaces.resolve().id).active,
  ).toBe(true);
  expect(store.migrations.applied).toEqual(loadMigrations().map((m) => m.name));
  store.close();
  // Opening again applies nothing and creates no second workspace.
  const again = openStore({ dataDir: d });
  expect(again.migrations.applied).toEqual([]);
  expect(again.services.workspaces.list()).toHaveLength(1);
  again.close();
});

it('refuses to start when an applied migration was edited', () => {
  const d = dir();
  openStore({ dataDir: d }).close();
  const db = openDatabase(path.join(d, 'parley.db'));
  const edited = loadMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'edited' } : m));
  expect(() => migrate(db, { migrations: edited })).toThrow(
    /0001_init was edited after it was applied/,
  );
  db.close();
});

it('copies an existing database to backups/ before applying a new migration', () => {
  const d = dir();
  const store = openStore({ dataDir: d });
  store.services.wallet.topup(store.services.workspaces.resolve().id, 5_000_000);
  store.close();
  const db = openDatabase(path.join(d, 'parley.db'));
  const next = [
    ...loadMigrations(),
    { id: 9999, name: '9999_test', sql: 'CREATE TABLE t (x);', checksum: 'c' },
  ];
  const result = migrate(db, { migrations: next, backupDir: path.join(d, 'backups') });
  db.close();
  expect(result.applied).toEqual(['9999_test']);
  expect(result.backupFile).toMatch(/parley-before-9999_test-.*\.db$/);
  const backup = new Database(result.backupFile!, { readonly: true });
  expect(backup.prepare('SELECT balance_micros FROM wallets').pluck().get()).toBe(5_000_000);
  expect(backup.prepare("SELECT count(*) FROM sqlite_master WHERE name = 't'").pluck().get()).toBe(
    0,
  );
  backup.close();
});

it('refuses a database migrated by a newer version', () => {
  const d = dir();
  const db = openDatabase(path.join(d, 'parley.db'));
  migrate(db, {
    migrations: [
      ...loadMigrations(),
      { id: 9998, name: '9998_future', sql: 'SELECT 1;', checksum: 'f' },
    ],
  });
  expect(() => migrate(db)).toThrow(/newer Parley/);
  db.close();
});

it('gives a clear error for a corrupt file or another application’s database', () => {
  const corrupt = dir();
  fs.writeFileSync(path.join(corrupt, 'parley.db'), 'this is not a database at all'.repeat(100));
  expect(() => openStore({ dataDir: corrupt })).toThrow(/not a usable Parley database/);

  const foreign = dir();
  const other = new Database(path.join(foreign, 'parley.db'));
  other.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1);');
  other.close();
  expect(() => openStore({ dataDir: foreign })).toThrow(/another application/);
  // Nothing was written to the foreign file.
  const check = new Database(path.join(foreign, 'parley.db'), { readonly: true });
  expect(check.prepare('SELECT name FROM sqlite_master').pluck().all()).toEqual(['notes']);
  check.close();
});

it('refuses an empty SQLite file stamped with another application’s id, and leaves it untouched', () => {
  const foreign = dir();
  const file = path.join(foreign, 'parley.db');
  const other = new Database(file);
  other.pragma('application_id = 1234');
  other.close();
  expect(() => openStore({ dataDir: foreign })).toThrow(
    /another application \(application_id 1234\)/,
  );
  const check = new Database(file, { readonly: true });
  expect(check.pragma('application_id', { simple: true })).toBe(1234);
  expect(check.pragma('journal_mode', { simple: true })).not.toBe('wal');
  expect(check.prepare('SELECT count(*) FROM sqlite_master').pluck().get()).toBe(0);
  check.close();

  // An empty, unstamped SQLite file is simply a new store.
  const blank = dir();
  new Database(path.join(blank, 'parley.db')).exec('VACUUM');
  const store = openStore({ dataDir: blank });
  expect(store.services.workspaces.list().map((w) => w.name)).toEqual(['Default']);
  store.close();
});

it('a serving core checkpoints the WAL on a worker thread: commits only append, the file still fills', async () => {
  const d = dir();
  const core = await createCore({ dataDir: d, sessionToken: null });
  try {
    await core.start({ port: 0 });
    const { db } = core;
    // The worker took over: the connection no longer checkpoints inside its commits.
    for (let i = 0; i < 100 && db.pragma('wal_autocheckpoint', { simple: true }) !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const file = path.join(d, 'parley.db');
    const before = fs.statSync(file).size;
    db.exec('CREATE TABLE filler (b BLOB)');
    const put = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    db.transaction(() => {
      for (let i = 0; i < 1000; i++) put.run();
    })();
    // Within a few of the worker's rounds the pages are in the database file itself.
    let after = before;
    for (let i = 0; i < 100 && after < before + 4_000_000; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = fs.statSync(file).size;
    }
    expect(after).toBeGreaterThanOrEqual(before + 4_000_000);
  } finally {
    await core.stop();
  }
  // Stopped: the connection checkpoints by itself again, and closed cleanly.
  expect(core.db.open).toBe(false);
  const reopened = new Database(path.join(d, 'parley.db'), { readonly: true });
  expect(reopened.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(1000);
  reopened.close();
});
