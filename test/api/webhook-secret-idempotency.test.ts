/**
 * A webhook's signing secret is shown once (design.md §6: no stored idempotent answer keeps a
 * secret). `POST /webhooks` under an Idempotency-Key stores the webhook's record without its
 * `secret`, and a replay answers 409 `idempotency_conflict` with that record in
 * `error.details.created`, as `POST /api/keys` and `POST /workflows` do.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, tempDir } from '../helpers.ts';

let t: TestCore | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const WHSEC = /whsec_[A-Za-z0-9+/=_-]{8,}/;

describe('webhook secrets and Idempotency-Key', () => {
  it('create: the stored answer has no secret; a replay answers 409 with the record, creating nothing', async () => {
    const c = (t = await makeCore());
    const key = c.key('test');
    const create = () =>
      c.request('POST', '/webhooks', {
        key,
        headers: { 'idempotency-key': 'wh-create-1' },
        body: { url: 'https://8.8.8.8/hook', events: ['message.received'] },
      });
    const first = await create();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const stored = c.core.db.prepare('SELECT body FROM idempotency_keys').pluck().all() as string[];
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(secret);
    expect(stored[0]).not.toMatch(WHSEC);
    expect(JSON.parse(stored[0]!)).toMatchObject({
      id: first.body.id,
      url: 'https://8.8.8.8/hook',
    });

    const replay = await create();
    expect([replay.status, replay.body.error]).toMatchObject([
      409,
      {
        code: 'idempotency_conflict',
        message: expect.stringContaining('shown only once'),
        details: { created: { id: first.body.id, url: 'https://8.8.8.8/hook', enabled: true } },
      },
    ]);
    expect(replay.body.error.details.created).not.toHaveProperty('secret');
    expect(replay.text).not.toMatch(WHSEC);
    const list = await c.request('GET', '/webhooks', { key });
    expect(list.body.data).toHaveLength(1);
  });

  it("a webhook's answer with a secret an older version stored is stripped at start", async () => {
    const dir = tempDir();
    dirs.push(dir);
    let c = await makeCore({ dataDir: dir });
    await c.core.stop();
    const db = new Database(path.join(dir, 'parley.db'));
    const insert = db.prepare(
      `INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, created_at)
       VALUES ('session:x:test', ?, 'h', 201, '{}', ?, ?)`,
    );
    const record = { id: 'wh_1', url: 'https://8.8.8.8/hook', events: null, enabled: true };
    insert.run('wh', JSON.stringify({ ...record, secret: 'whsec_oldWebhook012345' }), Date.now());
    // Another answer that merely has a field called `secret` is not a webhook's: left alone.
    const other = JSON.stringify({ id: 'x_1', secret: 'whsec_notAWebhook01234' });
    insert.run('other', other, Date.now());
    db.close();
    c = t = await makeCore({ dataDir: dir });
    const rows = c.core.db.prepare('SELECT key, body FROM idempotency_keys ORDER BY key').all();
    expect(rows).toEqual([
      { key: 'other', body: other },
      { key: 'wh', body: JSON.stringify(record) },
    ]);
  });
});
