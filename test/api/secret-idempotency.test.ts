/**
 * A workflow's or webhook's signing secret is shown once (design.md §6: no stored idempotent
 * answer keeps a secret). `POST /workflows`, `POST /workflows/:id/secret/rotate` and
 * `POST /webhooks` under an Idempotency-Key store the record without its `secret`, and a replay answers 409
 * `idempotency_conflict` with that record in `error.details.created`, as `POST /api/keys` does.
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
const flow = { name: 'Order hook', trigger: { type: 'manual' }, steps: [{ id: 'e', type: 'end' }] };
const storedBodies = (c: TestCore) =>
  c.core.db.prepare('SELECT body FROM idempotency_keys').pluck().all() as string[];

describe('signing secrets (workflows, webhooks) and Idempotency-Key', () => {
  it('create: the stored answer has no secret; a replay answers 409 with the record, creating nothing', async () => {
    const c = (t = await makeCore());
    const key = c.key('test');
    const create = () =>
      c.request('POST', '/workflows', {
        key,
        headers: { 'idempotency-key': 'wf-create-1' },
        body: flow,
      });
    const first = await create();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const stored = storedBodies(c);
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(secret);
    expect(stored[0]).not.toMatch(WHSEC);
    expect(JSON.parse(stored[0]!)).toMatchObject({ id: first.body.id, name: 'Order hook' });

    const replay = await create();
    expect([replay.status, replay.body.error]).toMatchObject([
      409,
      {
        code: 'idempotency_conflict',
        message: expect.stringContaining('shown only once'),
        details: { created: { id: first.body.id, name: 'Order hook', status: 'active' } },
      },
    ]);
    expect(replay.body.error.details.created).not.toHaveProperty('secret');
    expect(replay.text).not.toMatch(WHSEC);
    // The replay made no second workflow.
    const list = await c.request('GET', '/workflows', { key });
    expect(list.body.data.filter((w: { name: string }) => w.name === 'Order hook')).toHaveLength(1);
    // The same key with another body is still a conflict of its own kind.
    const other = await c.request('POST', '/workflows', {
      key,
      headers: { 'idempotency-key': 'wf-create-1' },
      body: { ...flow, name: 'Another' },
    });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toContain('different request');
  });

  it('rotate: the stored answer has no secret; a replay answers 409 with the record and rotates nothing', async () => {
    const c = (t = await makeCore());
    const key = c.key('test');
    const created = await c.request('POST', '/workflows', { key, body: flow });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const rotate = () =>
      c.request('POST', `/workflows/${id}/secret/rotate`, {
        key,
        headers: { 'idempotency-key': 'rot-1' },
      });
    const first = await rotate();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.body.secret);

    const stored = storedBodies(c);
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(secret);
    expect(stored[0]).not.toMatch(WHSEC);

    const replay = await rotate();
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('idempotency_conflict');
    expect(replay.body.error.details.created).toMatchObject({ id, name: 'Order hook' });
    expect(replay.text).not.toMatch(WHSEC);
    // Not rotated a second time: the secret the first answer gave is the one that signs.
    const secretNow = c.core.db
      .prepare('SELECT secret FROM workflows WHERE id = ?')
      .pluck()
      .get(id) as string;
    expect(secretNow).toBe(secret);
    // One audit entry: the replay rotated nothing.
    const audit = await c.request('GET', '/audit?action=workflow_secret.rotated', {
      session: 'test',
    });
    expect(audit.body.data).toHaveLength(1);
  });

  it('a webhook: the stored answer has no secret; a replay answers 409 with the record, creating nothing', async () => {
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

    const stored = storedBodies(c);
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

  it('an answer with a secret an older version stored is stripped at start', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let c = await makeCore({ dataDir: dir });
    await c.core.stop();
    const db = new Database(path.join(dir, 'parley.db'));
    const insert = db.prepare(
      `INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, created_at)
       VALUES ('session:x:test', ?, 'h', 200, '{}', ?, ?)`,
    );
    const workflowAnswer = { id: 'wf_1', name: 'Old', steps: [], secret: 'whsec_oldSecret012345' };
    insert.run('wf', JSON.stringify(workflowAnswer), Date.now());
    const webhookRecord = { id: 'wh_1', url: 'https://8.8.8.8/hook', events: null, enabled: true };
    insert.run(
      'wh',
      JSON.stringify({ ...webhookRecord, secret: 'whsec_oldWebhook012345' }),
      Date.now(),
    );
    // Another answer that merely has a field called `secret` is neither's: left alone.
    insert.run(
      'other',
      JSON.stringify({ id: 'x_1', secret: 'whsec_notAWorkflow0123' }),
      Date.now(),
    );
    db.close();
    c = t = await makeCore({ dataDir: dir });
    const rows = c.core.db.prepare('SELECT key, body FROM idempotency_keys ORDER BY key').all() as {
      key: string;
      body: string;
    }[];
    expect(rows).toEqual([
      { key: 'other', body: JSON.stringify({ id: 'x_1', secret: 'whsec_notAWorkflow0123' }) },
      { key: 'wf', body: JSON.stringify({ id: 'wf_1', name: 'Old', steps: [] }) },
      { key: 'wh', body: JSON.stringify(webhookRecord) },
    ]);
  });
});
