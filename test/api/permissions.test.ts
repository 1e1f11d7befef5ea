import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant, Right, Role } from '../../shared/permissions.ts';
import {
  PERMISSIONS,
  PUBLIC,
  refusal,
  RIGHT_ENVIRONMENT,
  RIGHTS,
  ROLES,
} from '../../shared/permissions.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

/**
 * One permission matrix (shared/permissions.ts): every route declares the right it needs, and the
 * one auth hook answers exactly what the matrix says — for every route, every caller.
 */
let t: TestCore;
let admin: string;
let agent: string;
let builder: string;
beforeAll(async () => {
  // Hundreds of requests per caller: the per-session bucket is not what is tested here.
  t = await makeCore({ sessionRateLimit: { perSecond: 100_000, burst: 100_000 } });
  admin = (await t.member({ name: 'Ada Admin', role: 'admin' })).cookie;
  agent = (await t.member({ name: 'Abe Agent', role: 'agent' })).cookie;
  builder = (
    await t.member({ name: 'Bea Builder', role: 'agent', rights: ['campaigns', 'automation'] })
  ).cookie;
  // The routes' rights are checked (and listed) once the app is ready.
  await t.core.app.ready();
});
afterAll(async () => {
  await t.close();
});

interface Caller {
  name: string;
  role: Role;
  grants?: Grant[];
  environment: 'test' | 'live';
  auth: {
    key?: string;
    session?: 'test' | 'live';
    cookie?: string;
    headers?: Record<string, string>;
  };
}

const live = { 'x-parley-environment': 'live' };
/** Every row of the matrix (each role, an agent with grants), in each environment. */
const callers = (): Caller[] => [
  { name: 'test key', role: 'api_key', environment: 'test', auth: { key: t.key('test') } },
  { name: 'live key', role: 'api_key', environment: 'live', auth: { key: t.key('live') } },
  { name: 'owner (test)', role: 'owner', environment: 'test', auth: { session: 'test' } },
  { name: 'owner (live)', role: 'owner', environment: 'live', auth: { session: 'live' } },
  { name: 'admin (test)', role: 'admin', environment: 'test', auth: { cookie: admin } },
  {
    name: 'admin (live)',
    role: 'admin',
    environment: 'live',
    auth: { cookie: admin, headers: live },
  },
  { name: 'agent (test)', role: 'agent', environment: 'test', auth: { cookie: agent } },
  {
    name: 'agent (live)',
    role: 'agent',
    environment: 'live',
    auth: { cookie: agent, headers: live },
  },
  {
    name: 'agent with grants (test)',
    role: 'agent',
    grants: ['campaigns', 'automation'],
    environment: 'test',
    auth: { cookie: builder },
  },
];

/** A route's path with every parameter filled with an id that names nothing. */
const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, 'nothing_here');

describe('the permission matrix', () => {
  it('names a role for every right and only known rights per environment', () => {
    for (const right of RIGHTS) {
      expect(PERMISSIONS[right].length, right).toBeGreaterThan(0);
      expect(PERMISSIONS[right].every((r) => (ROLES as readonly string[]).includes(r))).toBe(true);
    }
    for (const right of Object.keys(RIGHT_ENVIRONMENT)) {
      expect(RIGHTS as readonly string[]).toContain(right);
    }
  });

  it('every registered route declares a right of the matrix, or says it is public', () => {
    const routes = t.core.app.routeRights;
    // A route without a right of the matrix never gets here: app.ts refuses to start with it
    // (the ready() in beforeAll would throw). What is left to check is what the rights are.
    expect(routes.length).toBeGreaterThan(100);
    // What takes no credential is what must not: health, docs, the UI, tracking links, Meta.
    const open = routes.filter((r) => r.right === PUBLIC).map((r) => r.url);
    for (const url of open) {
      expect(
        url === '/' ||
          url === '/health' ||
          url === '/docs' ||
          url === '/openapi.json' ||
          url === '/login' ||
          url === '/invites/preview' ||
          url === '/invites/accept' ||
          url.startsWith('/assets/') ||
          url.startsWith('/e/') ||
          url === '/channel/webhook' ||
          // A signed media link: its signature is its proof (the desktop window's <img>).
          url === '/media/:id/content',
        url,
      ).toBe(true);
    }
    // Every right is used by some route (a right nobody needs is a typo somewhere).
    const used = new Set(routes.map((r) => r.right));
    for (const right of RIGHTS) expect(used.has(right), right).toBe(true);
  });

  it('the auth hook answers what the matrix says, for every route and every caller', async () => {
    const routes = t.core.app.routeRights.filter(
      // The event stream stays open: its right is checked like any other before it starts,
      // and test/api/events.test.ts covers it; HEAD answers as GET does.
      // Sign-out ends the caller's session: test/api/sessions covers it.
      (r) =>
        r.right !== PUBLIC &&
        r.right !== 'events' &&
        r.method !== 'HEAD' &&
        r.url !== '/logout' &&
        !(r.url === '/api/me/password' && r.method === 'POST'),
    );
    const mismatches: string[] = [];
    for (const caller of callers()) {
      for (const r of routes) {
        const right = r.right as Right;
        const res = await t.request(
          r.method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
          concrete(r.url),
          {
            ...caller.auth,
            ...(r.method === 'GET' || r.method === 'DELETE' ? {} : { body: {} }),
          },
        );
        const denied = refusal(caller.role, right, caller.environment, caller.grants) !== null;
        const forbidden = res.status === 403 && res.body?.error?.details?.requires === right;
        // A caller the core did not recognise would pass every "not 403" row: it must not be.
        if (denied !== forbidden || res.status === 401) {
          mismatches.push(
            `${caller.name} ${r.method} ${r.url} (${right}): expected ${denied ? '403' : 'not 403'}, got ${res.status} ${res.text.slice(0, 120)}`,
          );
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('a refusal names what it requires', async () => {
    const res = await t.request('POST', '/api/keys', {
      key: t.key('test'),
      body: { name: 'x', environment: 'test' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', details: { requires: 'keys' } });
    const sim = await t.request('GET', '/api/simulator/settings', { key: t.key('live') });
    expect(sim.status).toBe(403);
    expect(sim.body.error.details).toEqual({ requires: 'simulator' });
  });

  it('resolves the acting member on the server, once: for an API key only', async () => {
    const ana = t.agent('Ana');
    const key = t.key('test');
    const mine = await t.request('GET', '/conversations?assignee=me', {
      key,
      headers: { 'x-parley-agent': ana.id },
    });
    expect(mine.status).toBe(200);
    const unknown = await t.request('GET', '/conversations?assignee=me', {
      key,
      headers: { 'x-parley-agent': 'agt_nobody' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('X-Parley-Agent');
    // Where the agent does not matter, a stale header breaks nothing.
    const list = await t.request('GET', '/conversations', {
      key,
      headers: { 'x-parley-agent': 'agt_nobody' },
    });
    expect(list.status).toBe(200);
    // A session is its member, whatever the header says: adding a teammate changes nobody.
    const me = await t.request('GET', '/conversations?assignee=me', {
      session: 'test',
      headers: { 'x-parley-agent': ana.id },
    });
    expect(me.status).toBe(200);
    const who = await t.request('GET', '/api/me', {
      session: 'test',
      headers: { 'x-parley-agent': ana.id },
    });
    expect(who.body.member).toMatchObject({ role: 'owner' });
    expect(who.body.member.id).not.toBe(ana.id);
  });
});
