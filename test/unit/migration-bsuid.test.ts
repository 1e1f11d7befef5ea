import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../main/core/core.ts';
import { loadMigrations, migrate } from '../../main/core/db/migrate.ts';
import { openDatabase } from '../../main/core/db/open.ts';
import { tempDir } from '../helpers.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/**
 * Migration 0014 rebuilds `contacts` (phone becomes optional beside the WhatsApp user id). A
 * store migrated up to 0013 with contacts in labels and groups keeps every row, rowid, label
 * and membership, and its search still finds them (the trigram index is keyed by rowid).
 */
it('rebuilds contacts without losing a label, a group membership or the search index', () => {
  const d = tempDir();
  dirs.push(d);
  fs.mkdirSync(d, { recursive: true });
  const db = openDatabase(path.join(d, 'parley.db'));
  migrate(db, { migrations: loadMigrations().filter((m) => m.id <= 13) });
  const now = Date.now();
  db.prepare('INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)').run(
    'ws_1',
    'Shop',
    now,
  );
  db.prepare(
    `INSERT INTO business_accounts (id, workspace_id, name, active, created_at) VALUES ('ba_1', 'ws_1', 'Shop', 1, ?)`,
  ).run(now);
  const insert = db.prepare(
    `INSERT INTO contacts (id, workspace_id, environment, phone, name, email, labels, attributes, created_at, updated_at)
     VALUES (?, 'ws_1', 'test', ?, ?, NULL, ?, '{}', ?, ?)`,
  );
  for (let i = 0; i < 50; i++) {
    insert.run(`ct_${i}`, `+1415555${String(1000 + i)}`, `Customer ${i}`, '["vip"]', now, now);
    db.prepare(
      `INSERT INTO contact_labels (contact_id, workspace_id, environment, label) VALUES (?, 'ws_1', 'test', 'vip')`,
    ).run(`ct_${i}`);
  }
  db.prepare(
    `INSERT INTO contact_groups (id, workspace_id, environment, name, created_at) VALUES ('grp_1', 'ws_1', 'test', 'Regulars', ?)`,
  ).run(now);
  db.prepare(
    `INSERT INTO group_members (group_id, contact_id, added_at) SELECT 'grp_1', id, ? FROM contacts`,
  ).run(now);
  const rowids = db.prepare('SELECT id, rowid FROM contacts ORDER BY id').all();
  db.close();

  const store = openStore({ dataDir: d });
  expect(store.migrations.applied).toContain('0014_bsuid_contacts');
  const after = store.db;
  expect(after.prepare('SELECT id, rowid FROM contacts ORDER BY id').all()).toEqual(rowids);
  expect(after.prepare('SELECT count(*) FROM contact_labels').pluck().get()).toBe(50);
  expect(after.prepare('SELECT count(*) FROM group_members').pluck().get()).toBe(50);
  expect(after.pragma('foreign_key_check')).toEqual([]);
  expect(after.pragma('foreign_keys', { simple: true })).toBe(1);
  expect(
    after
      .prepare(`SELECT count(*) FROM contacts_fts WHERE contacts_fts MATCH '"Customer 4"'`)
      .pluck()
      .get(),
  ).toBeGreaterThan(0);
  // A contact known only by its WhatsApp user id fits now; one with neither does not.
  const scope = { workspaceId: 'ws_1', environment: 'test' as const };
  const bsuid = after.transaction(() =>
    store.services.contacts.identify(scope, { waUserId: 'US.123456789', profileName: 'Ann' }),
  )();
  expect(bsuid).toMatchObject({ phone: null, wa_user_id: 'US.123456789', name: 'Ann' });
  expect(() =>
    after
      .prepare(
        `INSERT INTO contacts (id, workspace_id, environment, created_at, updated_at) VALUES ('ct_x', 'ws_1', 'test', 0, 0)`,
      )
      .run(),
  ).toThrow(/CHECK/);
  store.close();
});
