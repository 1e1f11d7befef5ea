import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../main/core/core.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

describe('API key auth', () => {
  beforeEach(async () => {
    t = await makeCore();
  });

  it('answers 401 invalid_api_key, exactly per spec §7, when the key is missing, malformed or unknown', async () => {
    for (const key of [
      null,
      'nope',
      'svc_test_short',
      `svc_test_${'A'.repeat(40)}`,
      `svc_prod_${'A'.repeat(40)}`,
    ]) {
      const res = await t.request('GET', '/api/contacts', { key });
      expect(res.status).toBe(401);
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'docs', 'message']);
      expect(res.body.error.code).toBe('invalid_api_key');
      expect(res.body.error.message).toBe('API key is missing or invalid');
      expect(res.body.error.docs).toMatch(/^http:\/\/.+\/docs#invalid_api_key$/);
    }
  });

  it('accepts a valid key and reports its scope', async () => {
    const res = await t.request('GET', '/api/me', { key: t.key('live') });
    expect(res.status).toBe(200);
    expect(res.body.environment).toBe('live');
    expect(res.body.auth).toBe('api_key');
    expect(res.body.workspace.name).toBe('Default');
    expect(res.body.keyPrefix).toMatch(/^svc_live_[A-Za-z0-9]{8}$/);
    expect(res.body.businessAccount.active).toBe(true);
  });

  it('stores only a SHA-256 hash and a display prefix, never the key', async () => {
    const key = t.key();
    const rows = t.core.db.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(key);
    expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.startsWith(rows[0]!.prefix as string)).toBe(true);
  });

  it('refuses a key revoked by another process on the same data dir on its very next request', async () => {
    const key = t.key();
    expect((await t.request('GET', '/api/contacts', { key })).status).toBe(200);
    const other = openStore({ dataDir: t.dataDir });
    const id = other.services.keys.list(t.workspaceId, 10).data[0]!.id;
    other.services.keys.revoke(t.workspaceId, id);
    other.close();
    const res = await t.request('GET', '/api/contacts', { key });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('records the last-used time, at most once a minute', async () => {
    const key = t.key();
    await t.request('GET', '/api/contacts', { key });
    const keys = await t.request('GET', '/api/keys', { session: 'test' });
    expect(keys.body.data[0].lastUsedAt).not.toBeNull();
  });
});

describe('session (desktop UI) auth', () => {
  beforeEach(async () => {
    t = await makeCore();
  });

  it('lets the session manage keys; API keys get 403 on dashboard-only routes', async () => {
    const created = await t.request('POST', '/api/keys', {
      session: 'test',
      body: { name: 'CI', environment: 'live' },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
    expect(created.body.prefix).toBe(created.body.key.slice(0, 17));

    const list = await t.request('GET', '/api/keys', { session: 'test' });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).not.toHaveProperty('key');
    expect(list.body.data[0].lastUsedAt).toBeNull();

    const withKey = await t.request('GET', '/api/keys', { key: created.body.key });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.code).toBe('forbidden');
    const topup = await t.request('POST', '/api/wallet/topup', {
      key: created.body.key,
      body: { amountMicros: 1 },
    });
    expect(topup.status).toBe(403);

    const revoked = await t.request('DELETE', `/api/keys/${created.body.id}`, { session: 'test' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    expect((await t.request('GET', '/api/me', { key: created.body.key })).status).toBe(401);
    const again = await t.request('DELETE', `/api/keys/${created.body.id}`, { session: 'test' });
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('acts as the owner of the workspace it asks for (the first one by default), 404 for one that does not exist', async () => {
    const other = t.core.services.workspaces.create('Other');
    const owner = (ws: string) => t.core.services.members.ownerOf(ws).id;
    const first = await t.request('GET', '/api/me', { session: 'test' });
    expect(first.body.workspace.id).toBe(t.workspaceId);
    expect(first.body.member.id).toBe(owner(t.workspaceId));
    const asked = await t.request('GET', '/api/me', {
      session: 'test',
      headers: { 'x-parley-workspace': other.id },
    });
    expect(asked.body.workspace.id).toBe(other.id);
    expect(asked.body.member.id).toBe(owner(other.id));
    // (A route whose 404 /openapi.json lists: the workspace's is checked before any route's.)
    const unknown = await t.request('GET', '/api/contacts/ct_nope', {
      session: 'test',
      headers: { 'x-parley-workspace': 'ws_nope' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      code: 'not_found',
      message: 'no workspace ws_nope',
    });
  });

  it('rejects a wrong session token', async () => {
    const res = await t.request('GET', '/api/me', { headers: { 'x-parley-session': 'wrong' } });
    expect(res.status).toBe(401);
  });

  it('scopes the session by the environment header', async () => {
    const me = await t.request('GET', '/api/me', { session: 'live' });
    expect(me.body.environment).toBe('live');
    expect(me.body.auth).toBe('session');
    const bad = await t.request('GET', '/api/me', {
      headers: { 'x-parley-session': 'test-session-token', 'x-parley-environment': 'prod' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('X-Parley-Environment');
  });

  it('validates key creation with the field named', async () => {
    const res = await t.request('POST', '/api/keys', {
      session: 'test',
      body: { name: '', environment: 'test' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.param).toBe('name');
    const env = await t.request('POST', '/api/keys', {
      session: 'test',
      body: { name: 'x', environment: 'prod' },
    });
    expect(env.body.error.param).toBe('environment');
  });
});

describe('scope: workspace + environment', () => {
  beforeEach(async () => {
    t = await makeCore();
  });

  it('never shows test data to live keys, and another scope’s id answers 404', async () => {
    const test = t.key('test');
    const live = t.key('live');
    const other = t.core.services.workspaces.create('Other');
    const otherKey = t.key('test', other.id);

    const c = await t.request('POST', '/api/contacts', {
      key: test,
      body: { phone: '+14155552671' },
    });
    expect(c.status).toBe(201);
    expect((await t.request('GET', '/api/contacts', { key: live })).body.data).toEqual([]);
    expect((await t.request('GET', '/api/contacts', { key: otherKey })).body.data).toEqual([]);
    for (const key of [live, otherKey]) {
      const res = await t.request('GET', `/api/contacts/${c.body.id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      const patch = await t.request('PATCH', `/api/contacts/${c.body.id}`, {
        key,
        body: { name: 'x' },
      });
      expect(patch.status).toBe(404);
    }
    expect((await t.request('GET', `/api/contacts/${c.body.id}`, { key: test })).status).toBe(200);
    // Same phone in another scope is another contact.
    const liveCopy = await t.request('POST', '/api/contacts', {
      key: live,
      body: { phone: '+14155552671' },
    });
    expect(liveCopy.status).toBe(201);
    expect(liveCopy.body.id).not.toBe(c.body.id);
  });

  it('lists another workspace’s key only in that workspace', async () => {
    const other = t.core.services.workspaces.create('Other');
    const otherKey = t.key('test', other.id);
    const ws = await t.request('GET', '/api/workspaces', { key: otherKey });
    expect(ws.body.data.map((w: { name: string }) => w.name)).toEqual(['Other']);
    const all = await t.request('GET', '/api/workspaces', { session: 'test' });
    expect(all.body.data).toHaveLength(2);
  });
});

describe('guards and limits', () => {
  it('rejects a foreign Host (DNS rebinding) and cross-origin browser requests', async () => {
    t = await makeCore();
    const key = t.key();
    const rebinding = await t.request('GET', '/api/contacts', {
      key,
      headers: { host: 'attacker.example:4780' },
    });
    expect(rebinding.status).toBe(403);
    expect(rebinding.body.error.code).toBe('forbidden');
    const cors = await t.request('GET', '/api/contacts', {
      key,
      headers: { origin: 'http://evil.example' },
    });
    expect(cors.status).toBe(403);
    const site = await t.request('GET', '/api/contacts', {
      key,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(site.status).toBe(403);
    const same = await t.request('GET', '/api/contacts', {
      key,
      headers: {
        host: '127.0.0.1:80',
        origin: 'http://127.0.0.1:80',
        'sec-fetch-site': 'same-origin',
      },
    });
    expect(same.status).toBe(200);
  });

  it('limits bodies to 1 MiB (413), takes only JSON (415), and reports bad JSON (400)', async () => {
    t = await makeCore();
    const key = t.key();
    const big = await t.request('POST', '/api/contacts', {
      key,
      body: JSON.stringify({ phone: '+14155552671', name: 'x'.repeat(1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    const text = await t.request('POST', '/api/contacts', {
      key,
      body: 'phone=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
    const form = await t.request('POST', '/api/contacts', {
      key,
      body: 'phone=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const bad = await t.request('POST', '/api/contacts', { key, body: '{"phone":' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_json');
  });

  it('rate-limits per key with 429, Retry-After and the RateLimit headers', async () => {
    const clock = manualClock();
    t = await makeCore({ clock, rateLimit: { perSecond: 2, burst: 3 } });
    const key = t.key();
    const other = t.key();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.request('GET', '/api/me', { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await t.request('GET', '/api/me', { key });
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // IETF httpapi RateLimit fields: the policy (burst 3 refilled in 2 s) and the state now.
    expect(limited.headers['ratelimit-policy']).toBe('"api-key";q=3;w=2');
    expect(limited.headers.ratelimit).toBe(`"api-key";r=0;t=${limited.headers['retry-after']}`);
    expect((await t.request('GET', '/api/me', { key: other })).status).toBe(200);
    clock.advance(1000);
    expect((await t.request('GET', '/api/me', { key })).status).toBe(200);
  });

  it('answers unknown API paths with a JSON not_found envelope', async () => {
    t = await makeCore();
    const res = await t.request('GET', '/api/nothing-here', { key: t.key() });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
