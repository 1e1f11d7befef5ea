import { afterEach, beforeEach, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => t.close());

it('tops up from the dashboard and keeps an append-only ledger whose sum is the balance', async () => {
  const empty = await t.request('GET', '/api/wallet', { session: 'live' });
  expect(empty.body).toMatchObject({ balanceMicros: 0, currency: 'USD' });
  const a = await t.request('POST', '/api/wallet/topup', {
    session: 'live',
    body: { amountMicros: 25_000_000 },
  });
  expect(a.status).toBe(200);
  expect(a.body.wallet.balanceMicros).toBe(25_000_000);
  expect(a.body.entry).toMatchObject({
    type: 'topup',
    amountMicros: 25_000_000,
    balanceAfterMicros: 25_000_000,
    description: 'Top-up',
  });
  await t.request('POST', '/api/wallet/topup', {
    session: 'test',
    body: { amountMicros: 500_000, description: 'Promo credit' },
  });

  const key = t.key('test');
  const wallet = await t.request('GET', '/api/wallet', { key });
  expect(wallet.body.balanceMicros).toBe(25_500_000);
  const txns = await t.request('GET', '/api/wallet/transactions?limit=1', { key });
  expect(txns.body.data[0].description).toBe('Promo credit');
  const next = await t.request(
    'GET',
    `/api/wallet/transactions?limit=1&cursor=${txns.body.nextCursor}`,
    { key },
  );
  expect(next.body.data[0].amountMicros).toBe(25_000_000);
  expect(next.body.nextCursor).toBeNull();
  expect(t.core.services.wallet.ledgerSum(t.workspaceId)).toBe(25_500_000);

  expect(() => t.core.db.prepare('UPDATE wallet_ledger SET amount_micros = 1').run()).toThrow(
    /append-only/,
  );
  expect(() => t.core.db.prepare('DELETE FROM wallet_ledger').run()).toThrow(/append-only/);
});

it('refuses invalid amounts naming the field', async () => {
  for (const amountMicros of [0, -5, 1.5, '10', 2_000_000_000_000]) {
    const res = await t.request('POST', '/api/wallet/topup', {
      session: 'live',
      body: { amountMicros },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('amountMicros');
  }
  expect((await t.request('GET', '/api/wallet', { session: 'live' })).body.balanceMicros).toBe(0);
});

it('never overdraws: a debit larger than the balance applies nothing', () => {
  const { wallet, db } = t.core.services;
  wallet.topup(t.workspaceId, 1_000_000);
  const result = db.transaction(() =>
    wallet.applyEntry(t.workspaceId, {
      type: 'charge',
      amountMicros: -2_000_000,
      description: 'x',
    }),
  )();
  expect(result).toBeNull();
  expect(wallet.get(t.workspaceId).balanceMicros).toBe(1_000_000);
  expect(wallet.ledgerSum(t.workspaceId)).toBe(1_000_000);
});
