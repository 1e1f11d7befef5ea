import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Right, Role } from '../../shared/permissions.ts';
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
beforeAll(async () => {
  t = await makeCore();
  // The routes' rights are checked (and listed) once the app is ready.
  await t.core.app.ready();
});
afterAll(async () => {
  await t.close();
});

interface Caller {
  name: string;
  role: Role;
  environment: 'test' | 'live';
  auth: { key?: string; session?: 'test' | 'live' };
}

const callers = (): Caller[] => [
  { name: 'test key', role: 'api_key', environment: 'test', auth: { key: t.key('test') } },
  { name: 'live key', role: 'api_key', environment: 'live', auth: { key: t.key('live') } },
  { name: 'session (test)', role: 'owner', environment: 'test', auth: { session: 'test' } },
  { name: 'session (live)', role: 'owner', environment: 'live', auth: { session: 'live' } },
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
          url.startsWith('/assets/') ||
          url.startsWith('/e/') ||
          url === '/channel/webhook',
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
      (r) => r.right !== PUBLIC && r.right !== 'events' && r.method !== 'HEAD',
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
        const denied = refusal(caller.role, right, caller.environment) !== null;
        const forbidden = res.status === 403 && res.body?.error?.details?.requires === right;
        if (denied !== forbidden) {
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

  it('resolves the acting agent on the server, once: an unknown one is refused where it matters', async () => {
    const agent = await t.request('POST', '/agents', {
      session: 'test',
      body: { name: 'Ana', email: 'ana@example.com' },
    });
    expect(agent.status).toBe(201);
    const mine = await t.request('GET', '/conversations?assignee=me', {
      session: 'test',
      headers: { 'x-parley-agent': agent.body.id },
    });
    expect(mine.status).toBe(200);
    const unknown = await t.request('GET', '/conversations?assignee=me', {
      session: 'test',
      headers: { 'x-parley-agent': 'agt_nobody' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('X-Parley-Agent');
    // Where the agent does not matter, a stale header breaks nothing.
    const list = await t.request('GET', '/conversations', {
      session: 'test',
      headers: { 'x-parley-agent': 'agt_nobody' },
    });
    expect(list.status).toBe(200);
  });
});
