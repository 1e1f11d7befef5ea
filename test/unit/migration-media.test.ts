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
 * Migration 0019 rebuilds `messages` (new message types) and its full-text index (file names).
 * A store migrated up to 0018 keeps every message with its rowid, reaction and campaign, its
 * search finds them, and the triggers that keep conversations' JSON fresh still fire.
 */
it('rebuilds messages without losing a row, a reaction or the search index', () => {
  const d = tempDir();
  dirs.push(d);
  const db = openDatabase(path.join(d, 'parley.db'));
  migrate(db, { migrations: loadMigrations().filter((m) => m.id <= 18) });
  const now = Date.now();
  db.prepare(`INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'Shop', ?)`).run(now);
  db.prepare(
    `INSERT INTO business_accounts (id, workspace_id, name, active, created_at) VALUES ('ba_1', 'ws_1', 'Shop', 1, ?)`,
  ).run(now);
  db.prepare(
    `INSERT INTO contacts (id, workspace_id, environment, phone, name, labels, attributes, created_at, updated_at)
     VALUES ('ct_1', 'ws_1', 'test', '+14155550100', 'Ann', '[]', '{}', ?, ?)`,
  ).run(now, now);
  db.prepare(
    `INSERT INTO conversations (id, workspace_id, environment, contact_id, business_account_id, last_message_at, created_at, updated_at)
     VALUES ('conv_1', 'ws_1', 'test', 'ct_1', 'ba_1', ?, ?, ?)`,
  ).run(now, now, now);
  const insert = db.prepare(
    `INSERT INTO messages (id, workspace_id, environment, conversation_id, contact_id, phone, direction, type, text,
       status, sent_by, created_at, reaction, reaction_at)
     VALUES (?, 'ws_1', 'test', 'conv_1', 'ct_1', '+14155550100', 'inbound', 'text', ?, 'received', 'contact', ?, ?, ?)`,
  );
  for (let i = 0; i < 30; i++) {
    insert.run(
      `msg_${String(i).padStart(3, '0')}`,
      `parcel number ${i}`,
      now + i,
      i === 3 ? '👍' : null,
      i === 3 ? now : null,
    );
  }
  const rows = db.prepare('SELECT rowid, * FROM messages ORDER BY id').all();
  db.close();

  const store = openStore({ dataDir: d });
  try {
    // 0019 and every migration after it (none of them touches these rows).
    expect(store.migrations.applied[0]).toBe('0019_media');
    expect(store.migrations.applied).toEqual(
      loadMigrations()
        .filter((m) => m.id > 18)
        .map((m) => m.name),
    );
    const after = store.db;
    expect(
      after
        .prepare(
          `SELECT rowid, id, workspace_id, environment, conversation_id, contact_id, phone, direction, type,
             template_name, text, variables, status, sent_by, agent_id, category, cost_micros,
             channel_message_id, error_code, error_message, created_at, sent_at, delivered_at,
             read_at, failed_at, dispatching_at, campaign_id, interactive, reaction, reaction_at,
             mentions
           FROM messages ORDER BY id`,
        )
        .all(),
    ).toEqual(rows);
    expect(
      after
        .prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH '"parcel"'`)
        .pluck()
        .get(),
    ).toBe(30);
    expect(after.pragma('foreign_key_check')).toEqual([]);
    // The conversation's JSON follows its messages again: an insert bumps its version.
    const version = () =>
      after
        .prepare(`SELECT version FROM conversations WHERE id = 'conv_1'`)
        .pluck()
        .get() as number;
    const before = version();
    after
      .prepare(
        `INSERT INTO messages (id, workspace_id, environment, conversation_id, contact_id, phone, direction, type, text,
           status, sent_by, created_at, file_name)
         VALUES ('msg_new', 'ws_1', 'test', 'conv_1', 'ct_1', '+14155550100', 'inbound', 'media', '', 'received', 'contact', ?, 'warranty.pdf')`,
      )
      .run(now + 100);
    expect(version()).toBe(before + 1);
    expect(
      after
        .prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH '"warranty"'`)
        .pluck()
        .get(),
    ).toBe(1);
  } finally {
    store.close();
  }
});
