/**
 * Who may change the simulator's settings (README "Members and roles"): its tier and throughput
 * are the business account's and also pace live sends while the simulated channel serves live
 * mode, and `approvalWaitMs` holds live templates, so `PUT /api/simulator/settings` needs
 * `simulator.manage` — the owner, admins and test keys, in test mode. Everyone who may use the
 * simulator still reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
let agent: string;
let builder: string;
let admin: string;
beforeAll(async () => {
  t = await makeCore();
  agent = (await t.member({ name: 'Abe Agent', role: 'agent' })).cookie;
  builder = (
    await t.member({ name: 'Bea Builder', role: 'agent', rights: ['campaigns', 'automation'] })
  ).cookie;
  admin = (await t.member({ name: 'Ada Admin', role: 'admin' })).cookie;
});
afterAll(async () => {
  await t.close();
});

const settings = async () =>
  (await t.request('GET', '/api/simulator/settings', { key: t.key() })).body;
const live = { 'x-parley-environment': 'live' };

describe('PUT /api/simulator/settings', () => {
  it('an agent reads the settings but may not change them, with or without grants', async () => {
    const before = await settings();
    for (const cookie of [agent, builder]) {
      const read = await t.request('GET', '/api/simulator/settings', { cookie });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(before);
      const put = await t.request('PUT', '/api/simulator/settings', {
        cookie,
        body: { throughputMps: 1, messagingTier: 'TIER_250', approvalWaitMs: 86_400_000 },
      });
      expect(put.status).toBe(403);
      expect(put.body.error).toMatchObject({
        code: 'forbidden',
        details: { requires: 'simulator.manage' },
      });
      expect(put.body.error.message).toContain('ask an admin');
    }
    // Nothing changed: not the account's pace, not the live templates' wait.
    expect(await settings()).toEqual(before);
    const me = await t.request('GET', '/api/me', { cookie: agent });
    expect(me.body.rights).toContain('simulator');
    expect(me.body.rights).not.toContain('simulator.manage');
  });

  it('the owner, an admin and a test key change them in test mode; the account pace follows', async () => {
    const callers = [
      { name: 'owner', auth: { session: 'test' as const } },
      { name: 'admin', auth: { cookie: admin } },
      { name: 'test key', auth: { key: t.key('test') } },
    ];
    let throughput = 20;
    for (const caller of callers) {
      throughput += 1;
      const put = await t.request('PUT', '/api/simulator/settings', {
        ...caller.auth,
        body: { throughputMps: throughput, approvalWaitMs: 1000 * throughput },
      });
      expect([caller.name, put.status]).toEqual([caller.name, 200]);
      expect(put.body).toMatchObject({
        throughputMps: throughput,
        approvalWaitMs: 1000 * throughput,
      });
      // The account's pace, as the top bar and the governor read it.
      const me = await t.request('GET', '/api/me', { key: t.key('test') });
      expect(me.body.businessAccount).toMatchObject({ throughputMps: throughput });
    }
    for (const auth of [{ session: 'test' as const }, { cookie: admin }]) {
      const me = await t.request('GET', '/api/me', auth);
      expect(me.body.rights).toContain('simulator.manage');
    }
  });

  it('in live mode nobody changes them there: a live key, or an admin in live mode', async () => {
    const before = await settings();
    for (const auth of [
      { key: t.key('live') },
      { cookie: admin, headers: live },
      { session: 'live' as const },
    ]) {
      const put = await t.request('PUT', '/api/simulator/settings', {
        ...auth,
        body: { throughputMps: 2 },
      });
      expect(put.status).toBe(403);
      expect(put.body.error).toMatchObject({
        code: 'forbidden',
        details: { requires: 'simulator.manage' },
      });
      expect(put.body.error.message).toMatch(/test keys only/);
    }
    expect(await settings()).toEqual(before);
  });

  it('the other simulator routes stay an agent’s in test mode', async () => {
    const inbound = await t.request('POST', '/api/simulator/inbound', {
      cookie: agent,
      body: { phone: '+14155552671', message: 'hello' },
    });
    expect(inbound.status, JSON.stringify(inbound.body)).toBe(200);
  });
});
