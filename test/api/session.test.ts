import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { fakeRendererDir, makeCore, manualClock, sessionTokenOf, tempDir } from '../helpers.ts';

/**
 * The solo desk's one-click sign-in (`GET /login?token=…`): a fresh link each time, single use,
 * 10 minutes, exchanged on the UI's own host name (p<PORT>.localhost) for an ordinary session.
 */
const cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function core(opts: Parameters<typeof makeCore>[0] = {}): Promise<TestCore> {
  const t = await makeCore(opts);
  cores.push(t);
  return t;
}

const TOKEN = /^[A-Za-z0-9]{43}$/;
const MINUTE = 60_000;

/** A fresh link's token, minted as `parley serve` and `parley login-url` do. */
const linkToken = (t: TestCore, base = 'http://127.0.0.1:4780') =>
  new URL(t.core.loginUrl(base)!).searchParams.get('token')!;

/** Follows a fresh link as a browser would: the session token it was given. */
async function signInByLink(t: TestCore): Promise<string> {
  const res = await t.request('GET', `/login?token=${linkToken(t)}`);
  expect(res.status).toBe(303);
  return sessionTokenOf(res)!;
}

const me = (t: TestCore, cookie: string, headers: Record<string, string> = {}) =>
  t.request('GET', '/api/me', { cookie, headers });

/** The answer of a link that signs nobody in: a page in words, no cookie. */
function refusedPage(res: { status: number; headers: Record<string, unknown>; text: string }) {
  expect(res.status).toBe(403);
  expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
  expect(res.text).toContain('This sign-in link is used or expired.');
  expect(res.text).toContain('parley login-url');
  expect(res.headers['set-cookie']).toBeUndefined();
}

describe('the one-click sign-in link', () => {
  it('is minted fresh for the UI host, and exchanged once for an HttpOnly SameSite=Strict cookie', async () => {
    const t = await core();
    const url = t.core.loginUrl('http://127.0.0.1:4780')!;
    expect(url).toMatch(/^http:\/\/p4780\.localhost:4780\/login\?token=[A-Za-z0-9]{43}$/);
    // Every call mints another link.
    expect(t.core.loginUrl('http://127.0.0.1:4780')).not.toBe(url);
    const token = new URL(url).searchParams.get('token')!;

    const res = await t.request('GET', `/login?token=${token}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    expect(res.headers['cache-control']).toBe('no-store');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^parley_session=[A-Za-z0-9]{43}; /);
    expect(setCookie).toContain('; HttpOnly');
    expect(setCookie).toContain('; SameSite=Strict');
    expect(setCookie).toContain('; Path=/');
    // Plain HTTP on loopback: not Secure, not __Host- (those are TLS's).
    expect(setCookie).not.toContain('Secure');
    // An ordinary session: its own id, never the link's token.
    const cookie = sessionTokenOf(res)!;
    expect(cookie).not.toBe(token);

    const who = await me(t, cookie);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ auth: 'session', role: 'owner', environment: 'test' });
    expect(who.body.member).toMatchObject({ role: 'owner' });
    expect(who.body.sessionId).toMatch(/^ses_/);
    const live = await me(t, cookie, { 'x-parley-environment': 'live' });
    expect(live.body.environment).toBe('live');
    // The owner's session may do what the desktop window does (admin-only routes).
    const key = await t.request('POST', '/api/keys', {
      cookie,
      body: { name: 'from the browser', environment: 'test' },
    });
    expect(key.status).toBe(201);

    // Single use: the same link again signs nobody in.
    refusedPage(await t.request('GET', `/login?token=${token}`));
    // And the link's token is no session.
    expect((await me(t, token)).status).toBe(401);
  });

  it('lives 10 minutes on the core’s clock', async () => {
    const clock = manualClock();
    const t = await core({ clock });
    const early = linkToken(t);
    const late = linkToken(t);
    clock.advance(10 * MINUTE - 1);
    expect((await t.request('GET', `/login?token=${early}`)).status).toBe(303);
    clock.advance(1);
    refusedPage(await t.request('GET', `/login?token=${late}`));
  });

  it('answers a wrong or missing token with the same page, and sets no cookie', async () => {
    const t = await core();
    const token = linkToken(t);
    for (const url of [
      '/login?token=wrong',
      '/login',
      `/login?token=${token}x`,
      `/login?token=${token.slice(1)}A`,
    ]) {
      refusedPage(await t.request('GET', url));
    }
    // None of those spent the real link.
    expect((await t.request('GET', `/login?token=${token}`)).status).toBe(303);
  });

  it('opened on 127.0.0.1 once listening, moves to p<PORT>.localhost first without spending the link', async () => {
    const t = await core();
    const { port } = await t.core.start({ port: 0 });
    const url = t.core.loginUrl(`http://127.0.0.1:${port}`)!;
    const own = `p${port}.localhost:${port}`;
    expect(url.startsWith(`http://${own}/login?token=`)).toBe(true);
    const token = new URL(url).searchParams.get('token')!;

    // t.request sends Host 127.0.0.1:<port> once the core listens.
    const moved = await t.request('GET', `/login?token=${token}`);
    expect(moved.status).toBe(303);
    expect(moved.headers.location).toBe(`http://${own}/login?token=${token}`);
    expect(moved.headers['set-cookie']).toBeUndefined();
    const viaLocalhost = await t.request('GET', `/login?token=${token}`, {
      headers: { host: `localhost:${port}` },
    });
    expect(viaLocalhost.headers.location).toBe(`http://${own}/login?token=${token}`);

    // On the UI's host name the (unspent) link signs in.
    const res = await t.request('GET', `/login?token=${token}`, { headers: { host: own } });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    const cookie = sessionTokenOf(res)!;
    expect(cookie).toMatch(TOKEN);
    // The Host guard takes the UI's name with our port, not another port's.
    expect((await me(t, cookie, { host: own })).status).toBe(200);
    for (const host of [`p${port + 1}.localhost:${port}`, `p${port}.localhost:${port + 1}`]) {
      const other = await me(t, cookie, { host });
      expect(other.status, host).toBe(403);
      expect(other.body.error.code).toBe('forbidden');
    }
    refusedPage(await t.request('GET', `/login?token=${token}`, { headers: { host: own } }));
  });

  it('never puts a credential in the page', async () => {
    const dir = fakeRendererDir();
    dirs.push(dir);
    const t = await core({ rendererDir: dir });
    const token = linkToken(t);
    const cookie = await signInByLink(t);
    for (const url of ['/', '/inbox', '/index.html', '/join']) {
      const visits: Record<string, string>[] = [
        { accept: 'text/html' },
        { accept: 'text/html', cookie: `parley_session=${cookie}` },
      ];
      for (const headers of visits) {
        const res = await t.request('GET', url, { headers });
        expect(res.status, url).toBe(200);
        expect(res.text).toContain('<div id="root">');
        for (const secret of ['parley-session', 'test-session-token', token, cookie]) {
          expect(res.text.includes(secret), `${url}: ${secret}`).toBe(false);
        }
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    }
  });

  it('refuses cookie requests from other sites and other local origins', async () => {
    const t = await core();
    const { port } = await t.core.start({ port: 0 });
    const own = `p${port}.localhost:${port}`;
    const res = await t.request('GET', `/login?token=${linkToken(t)}`, { headers: { host: own } });
    const cookie = sessionTokenOf(res)!;
    for (const host of [own, `127.0.0.1:${port}`]) {
      expect((await me(t, cookie, { host })).status).toBe(200);
      const attacks: Record<string, string>[] = [
        { origin: `http://127.0.0.1:${port + 1}` },
        { origin: `http://p${port + 1}.localhost:${port + 1}` },
        { origin: 'http://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of attacks) {
        const r = await t.request('POST', '/api/keys', {
          cookie,
          headers: { host, ...headers },
          body: { name: 'csrf', environment: 'live' },
        });
        expect(r.status, `${host} ${JSON.stringify(headers)}`).toBe(403);
        expect(r.body.error.code).toBe('forbidden');
      }
      const same = await t.request('POST', '/api/keys', {
        cookie,
        headers: { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
        body: { name: 'ok', environment: 'test' },
      });
      expect(same.status).toBe(201);
    }
    const keys = await t.request('GET', '/api/keys', { cookie });
    expect(keys.body.data.map((k: { name: string }) => k.name)).toEqual(['ok', 'ok']);
  });

  it('deletes the permanent session.secret of earlier versions at start; its cookie signs nobody in', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const legacy = path.join(dataDir, 'session.secret');
    const secret = 'L'.repeat(43);
    fs.writeFileSync(legacy, `${secret}\n`, { mode: 0o600 });
    const t = await core({ dataDir });
    expect(fs.existsSync(legacy)).toBe(false);
    expect((await me(t, secret)).status).toBe(401);
    await t.core.stop();
    // Written again by an older version sharing the data dir: gone at the next start too.
    fs.writeFileSync(legacy, `${secret}\n`, { mode: 0o600 });
    const again = await core({ dataDir });
    expect(fs.existsSync(legacy)).toBe(false);
    expect(again.core.loginUrl('http://127.0.0.1:4780')).not.toContain(secret);
  });

  it('keeps a session across a restart on the same data dir, and changes the boot id', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await makeCore({ dataDir });
    const cookie = await signInByLink(first);
    const spare = linkToken(first);
    const boot1 = (await first.request('GET', '/health')).body.bootId;
    await first.core.stop();

    const second = await core({ dataDir });
    expect((await me(second, cookie)).status).toBe(200);
    // A link minted before the restart is still good once (it is in the database).
    expect((await second.request('GET', `/login?token=${spare}`)).status).toBe(303);
    const boot2 = (await second.request('GET', '/health')).body.bootId;
    expect(boot1).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(boot2).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(boot2).not.toBe(boot1);

    // Another data dir knows nothing of it.
    const other = await core();
    expect((await me(other, cookie)).status).toBe(401);
  });

  it('is off in the desktop core, which keeps its preload token', async () => {
    const t = await core({ browserLogin: false });
    expect(t.core.loginUrl('http://127.0.0.1:4780')).toBeNull();
    // `/login` is the members' password sign-in (POST) only.
    const link = await t.request('GET', '/login?token=x');
    expect(link.status).toBe(405);
    expect(link.headers.allow).toBe('POST');
    expect(link.headers['set-cookie']).toBeUndefined();
    expect((await t.request('GET', '/api/me', { session: 'test' })).status).toBe(200);
  });
});

describe('rate limits for sessions and unauthenticated requests', () => {
  const limited = (res: { status: number; headers: Record<string, unknown>; body: unknown }) => {
    expect(res.status).toBe(429);
    expect((res.body as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(String(res.headers['ratelimit-policy'])).toMatch(/^"[a-z-]+";q=\d+;w=\d+$/);
    expect(String(res.headers.ratelimit)).toMatch(/^"[a-z-]+";r=0;t=\d+$/);
  };

  it('limits requests without a valid credential per client, /login attempts included', async () => {
    const clock = manualClock();
    const t = await core({ clock, anonymousRateLimit: { perSecond: 1, burst: 3 } });
    const key = t.key();
    expect((await t.request('GET', '/api/me', { key: 'svc_test_nope' })).status).toBe(401);
    expect((await t.request('GET', '/api/me')).status).toBe(401);
    expect((await t.request('GET', '/login?token=guess')).status).toBe(403);
    const fourth = await t.request('GET', '/api/me', { key: 'svc_test_nope' });
    limited(fourth);
    expect(fourth.headers['ratelimit-policy']).toBe('"client";q=3;w=3');
    limited(await t.request('GET', '/login?token=guess'));
    limited(await t.request('POST', '/login', { body: { email: 'a@example.com', password: 'x' } }));
    // Another client address has its own bucket; valid credentials are not affected.
    expect((await t.request('GET', '/api/me', { remoteAddress: '::1' })).status).toBe(401);
    expect((await t.request('GET', '/api/me', { key })).status).toBe(200);
    clock.advance(1000);
    expect((await t.request('GET', '/api/me')).status).toBe(401);
  });

  it('limits each member as one bucket, whatever session, and the desktop window as one', async () => {
    const clock = manualClock();
    const t = await core({ clock, sessionRateLimit: { perSecond: 2, burst: 3 } });
    const a = await signInByLink(t);
    const b = await signInByLink(t);
    for (let i = 0; i < 3; i++) expect((await me(t, a)).status).toBe(200);
    const over = await me(t, a);
    limited(over);
    expect(over.headers['ratelimit-policy']).toBe('"session";q=3;w=2');
    // The owner's other session is the same member: the same bucket.
    limited(await me(t, b));
    // Another member, the desktop window and API keys have buckets of their own.
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    expect((await me(t, ana.cookie)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await t.request('GET', '/api/me', { session: 'test' })).status).toBe(200);
    }
    limited(await t.request('GET', '/api/me', { session: 'test' }));
    expect((await t.request('GET', '/api/me', { key: t.key() })).status).toBe(200);
    clock.advance(500);
    expect((await me(t, a)).status).toBe(200);
  });
});
