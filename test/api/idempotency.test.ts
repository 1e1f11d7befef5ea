import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { processOwner } from '../../main/core/jobs/owner.ts';
import type { TestCore } from '../helpers.ts';
import { deadPid, makeCore } from '../helpers.ts';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => t.close());

it('replays the first response for the same key and body, and refuses a different body', async () => {
  const key = t.key();
  const headers = { 'idempotency-key': 'order-42' };
  const first = await t.request('POST', '/api/contacts', {
    key,
    headers,
    body: { phone: '+14155552671', name: 'A' },
  });
  expect(first.status).toBe(201);
  const replay = await t.request('POST', '/api/contacts', {
    key,
    headers,
    body: { phone: '+14155552671', name: 'A' },
  });
  expect(replay.status).toBe(201);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body).toEqual(first.body);
  const conflict = await t.request('POST', '/api/contacts', {
    key,
    headers,
    body: { phone: '+14155552671', name: 'B' },
  });
  expect(conflict.status).toBe(409);
  expect(conflict.body.error.code).toBe('idempotency_conflict');
  // Keys are per credential: another key may reuse the same Idempotency-Key.
  const other = await t.request('POST', '/api/contacts', {
    key: t.key(),
    headers,
    body: { phone: '+14155552672' },
  });
  expect(other.status).toBe(201);
});

it('replays top-ups instead of charging twice', async () => {
  const headers = { 'idempotency-key': 'topup-1' };
  await t.request('POST', '/api/wallet/topup', {
    session: 'live',
    headers,
    body: { amountMicros: 1_000_000 },
  });
  const again = await t.request('POST', '/api/wallet/topup', {
    session: 'live',
    headers,
    body: { amountMicros: 1_000_000 },
  });
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(t.core.services.wallet.get(t.workspaceId).balanceMicros).toBe(1_000_000);
});

const sendBody = { phone: '+14155552671', templateName: 'nope', variables: {} };

it('releases a reservation whose process died, so the retry runs', async () => {
  const key = t.key();
  const keyId = t.core.db.prepare('SELECT id FROM api_keys ORDER BY created_at DESC').pluck().get();
  const dead = processOwner({ bytes: (n) => Buffer.alloc(n, 1) }, deadPid());
  // What a process SIGKILLed mid-request leaves: an in-progress reservation with its name.
  t.core.db
    .prepare(
      `INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, created_at, owner)
       VALUES (?, 'c-1', ?, 0, '{}', '', ?, ?)`,
    )
    .run(
      keyId,
      createHash('sha256')
        .update(`POST /webhooks\n${JSON.stringify({ url: 'https://example.com/hook' })}`)
        .digest('hex'),
      Date.now(),
      dead.id,
    );
  const res = await t.request('POST', '/webhooks', {
    key,
    headers: { 'idempotency-key': 'c-1' },
    body: { url: 'https://example.com/hook' },
  });
  expect(res.status).toBe(201);
  // A reservation of a live process still answers 409 (the first request is running).
  t.core.db
    .prepare('UPDATE idempotency_keys SET status = 0, owner = ? WHERE key = ?')
    .run(t.core.services.owner.id, 'c-1');
  const busy = await t.request('POST', '/webhooks', {
    key,
    headers: { 'idempotency-key': 'c-1' },
    body: { url: 'https://example.com/hook' },
  });
  expect(busy.status).toBe(409);
  expect(busy.body.error.message).toMatch(/in progress/);
});

it('stores no error, so a corrected retry with the same key runs', async () => {
  const key = t.key();
  const headers = { 'idempotency-key': 'send-1' };
  const wrong = await t.request('POST', '/api/send', { key, headers, body: sendBody });
  expect(wrong.status).toBe(404);
  // The same request again runs again (nothing was stored), and so does a corrected one.
  const again = await t.request('POST', '/api/send', { key, headers, body: sendBody });
  expect(again.status).toBe(404);
  expect(again.headers['idempotent-replayed']).toBeUndefined();
  const fixed = await t.request('POST', '/api/contacts', {
    key,
    headers,
    body: { phone: '+14155552671' },
  });
  expect(fixed.status).toBe(201);
  expect(fixed.headers['idempotent-replayed']).toBeUndefined();
});

it('commits the response with the effect: a stored key always has its message, and back', async () => {
  const key = t.key();
  for (let i = 0; i < 5; i++) {
    await t.request('POST', '/api/contacts', {
      key,
      headers: { 'idempotency-key': `k-${i}` },
      body: { phone: `+1415555267${i}` },
    });
  }
  // Never a reservation left behind by a synchronous handler: the key is written with its
  // response inside the effect's transaction, or not at all.
  const rows = t.core.db.prepare('SELECT status, owner FROM idempotency_keys').all();
  expect(rows).toEqual(Array.from({ length: 5 }, () => ({ status: 201, owner: null })));
});

it('honours Idempotency-Key on CSV imports, JSON and NDJSON alike', async () => {
  const key = t.key();
  const csv = 'phone,name\n+14155552671,Ann\n+14155552672,Bob\n';
  const post = (body: string, k: string, accept = 'application/json') =>
    t.request('POST', '/api/contacts/import', {
      key,
      body,
      headers: { 'content-type': 'text/csv', accept, 'idempotency-key': k },
    });
  const first = await post(csv, 'imp-1');
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ created: 2, updated: 0 });
  const again = await post(csv, 'imp-1');
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toEqual(first.body); // the first answer: not "2 updated"
  const other = await post('phone\n+14155552673\n', 'imp-1');
  expect(other.status).toBe(409);
  expect(other.body.error.code).toBe('idempotency_conflict');

  const nd = await post(csv.replace('Bob', 'Rob'), 'imp-2', 'application/x-ndjson');
  const last = (text: string) => JSON.parse(text.trim().split('\n').pop()!);
  expect(last(nd.text)).toMatchObject({ type: 'result', created: 0, updated: 2 });
  const ndAgain = await post(csv.replace('Bob', 'Rob'), 'imp-2', 'application/x-ndjson');
  expect(last(ndAgain.text)).toEqual(last(nd.text));
  // Another file under the same key is refused (inside the stream: its header went out first).
  const ndOther = await post('phone\n+14155552679\n', 'imp-2', 'application/x-ndjson');
  expect(last(ndOther.text)).toMatchObject({
    type: 'error',
    error: { code: 'idempotency_conflict' },
  });
  expect(
    t.core.db.prepare("SELECT status FROM idempotency_keys WHERE key = 'imp-2'").pluck().get(),
  ).toBe(200);
  expect(t.core.db.prepare('SELECT count(*) FROM contacts').pluck().get()).toBe(2);
  // A dry run with a key stores nothing: the real import with that key then runs.
  const dry = await t.request('POST', '/api/contacts/import?dryRun=true', {
    key,
    body: 'phone\n+14155552674\n',
    headers: { 'content-type': 'text/csv', 'idempotency-key': 'imp-3' },
  });
  expect(dry.status).toBe(200);
  const real = await post('phone\n+14155552674\n', 'imp-3');
  expect(real.body).toMatchObject({ created: 1 });
});

it('a client that gives up and retries gets "in progress", then what the first made (its secret is shown once): one effect', async () => {
  await t.close();
  // The first request's DNS check waits on a gate the test opens: no timing is guessed.
  let entered!: () => void;
  const inHandler = new Promise<void>((r) => (entered = r));
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  t = await makeCore({
    resolveHost: async () => {
      entered();
      await gate;
      return [{ address: '93.184.215.14', family: 4 }];
    },
  });
  const { url } = await t.core.start({ port: 0 });
  const key = t.key();
  const post = (signal?: AbortSignal) =>
    fetch(`${url}/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'w-1' },
      body: JSON.stringify({ url: 'https://hooks.example.com/x' }),
      ...(signal ? { signal } : {}),
    });
  const giveUp = new AbortController();
  const first = post(giveUp.signal);
  await inHandler;
  giveUp.abort(); // the client gives up while its request is being handled
  await expect(first).rejects.toThrow();
  const busy = await post();
  expect(busy.status).toBe(409);
  open();
  // The first answer held the webhook's signing secret, which is never stored: the retry gets
  // 409 with the webhook it made (README "Created API keys and Idempotency-Key").
  await vi.waitFor(
    async () => {
      const again = await post();
      expect(again.status).toBe(409);
      const body = (await again.json()) as {
        error: { message: string; details?: { created?: Record<string, unknown> } };
      };
      expect(body.error.message).toContain('shown only once');
      expect(body.error.details?.created).toMatchObject({ url: 'https://hooks.example.com/x' });
      expect(body.error.details?.created).not.toHaveProperty('secret');
    },
    { timeout: 5000, interval: 20 },
  );
  expect(t.core.db.prepare('SELECT count(*) FROM webhooks').pluck().get()).toBe(1);
});
