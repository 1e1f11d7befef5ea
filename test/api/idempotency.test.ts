import { afterEach, beforeEach, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

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
