import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { fakeRendererDir, makeCore, manualClock, tempDir } from '../helpers.ts';

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

function rendererDir(): string {
  const dir = fakeRendererDir();
  dirs.push(dir);
  return dir;
}

const secretOf = (t: TestCore) =>
  fs.readFileSync(path.join(t.dataDir, 'session.secret'), 'utf8').trim();

/** Follows the login link as a browser would and returns the cookie it was given. */
async function signIn(t: TestCore): Promise<string> {
  const res = await t.request('GET', `/login?token=${secretOf(t)}`);
  expect(res.status).toBe(303);
  const setCookie = String(res.headers['set-cookie']);
  return setCookie.split(';')[0]!;
}

describe('browser sign-in (parley serve)', () => {
  it('exchanges the login link for an HttpOnly SameSite=Strict cookie and redirects to /', async () => {
    const t = await core();
    const secret = secretOf(t);
    expect(secret).toMatch(/^[A-Za-z0-9]{43}$/);
    if (process.platform !== 'win32') {
      expect(fs.statSync(path.join(t.dataDir, 'session.secret')).mode & 0o777).toBe(0o600);
    }
    expect(t.core.loginUrl('http://127.0.0.1:4780')).toBe(
      `http://127.0.0.1:4780/login?token=${secret}`,
    );

    const res = await t.request('GET', `/login?token=${secret}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^parley_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    // The cookie is derived from the secret, never the secret itself.
    expect(setCookie).not.toContain(secret);

    const cookie = setCookie.split(';')[0]!;
    const me = await t.request('GET', '/api/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.auth).toBe('session');
    expect(me.body.environment).toBe('test');
    const live = await t.request('GET', '/api/me', {
      headers: { cookie, 'x-parley-environment': 'live' },
    });
    expect(live.body.environment).toBe('live');
    // Cookie sessions may do what the desktop session does (dashboard-only routes).
    const key = await t.request('POST', '/api/keys', {
      headers: { cookie },
      body: { name: 'from the browser', environment: 'test' },
    });
    expect(key.status).toBe(201);
  });

  it('answers a wrong or missing token with a 403 page in words, and sets no cookie', async () => {
    const t = await core();
    for (const url of ['/login?token=wrong', '/login', `/login?token=${secretOf(t)}x`]) {
      const res = await t.request('GET', url);
      expect(res.status, url).toBe(403);
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
      expect(res.text).toContain('This sign-in link is not valid.');
      expect(res.text).toContain('Open the link that <code>parley serve</code> printed.');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const forged = await t.request('GET', '/api/me', {
      headers: { cookie: `parley_session=${secretOf(t)}` },
    });
    expect(forged.status).toBe(401);
  });

  it('never puts a credential in the page', async () => {
    const t = await core({ rendererDir: rendererDir() });
    for (const url of ['/', '/inbox', '/index.html']) {
      const res = await t.request('GET', url, { headers: { accept: 'text/html' } });
      expect(res.status, url).toBe(200);
      expect(res.text).toContain('<div id="root">');
      expect(res.text).not.toContain('parley-session');
      expect(res.text).not.toContain(secretOf(t));
      expect(res.text).not.toContain('test-session-token');
    }
  });

  it('keeps an open tab signed in across a restart on the same data dir, and changes the boot id', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await makeCore({ dataDir });
    const cookie = await signIn(first);
    const boot1 = (await first.request('GET', '/health')).body.bootId;
    await first.core.stop();

    const second = await core({ dataDir });
    expect((await second.request('GET', '/api/me', { headers: { cookie } })).status).toBe(200);
    const boot2 = (await second.request('GET', '/health')).body.bootId;
    expect(boot1).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(boot2).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(boot2).not.toBe(boot1);

    // Another data dir has another secret: the cookie means nothing there.
    const other = await core();
    expect((await other.request('GET', '/api/me', { headers: { cookie } })).status).toBe(401);
  });

  it('refuses cookie requests from other sites and other local origins', async () => {
    const t = await core();
    await t.core.start({ port: 0 });
    const port = (t.core.app.server.address() as { port: number }).port;
    const host = `127.0.0.1:${port}`;
    const res = await t.request('GET', `/login?token=${secretOf(t)}`);
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    // Browsers share cookies between ports of one host: the name carries the port.
    expect(cookie).toMatch(new RegExp(`^parley_session_${port}=`));
    expect((await t.request('GET', '/api/me', { headers: { cookie } })).status).toBe(200);
    const attacks: Record<string, string>[] = [
      { origin: 'http://127.0.0.1:9999' },
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of attacks) {
      const r = await t.request('POST', '/api/keys', {
        headers: { cookie, host, ...headers },
        body: { name: 'csrf', environment: 'live' },
      });
      expect(r.status, JSON.stringify(headers)).toBe(403);
    }
    const same = await t.request('POST', '/api/keys', {
      headers: { cookie, host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
      body: { name: 'ok', environment: 'test' },
    });
    expect(same.status).toBe(201);
  });

  it('is off in the desktop core, which keeps its preload token', async () => {
    const t = await core({ browserLogin: false });
    expect(fs.existsSync(path.join(t.dataDir, 'session.secret'))).toBe(false);
    expect((await t.request('GET', '/login?token=x')).status).toBe(404);
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
    // Another client address has its own bucket; valid credentials are not affected.
    const elsewhere = await t.core.app.inject({
      method: 'GET',
      url: '/api/me',
      remoteAddress: '::1',
    });
    expect(elsewhere.statusCode).toBe(401);
    expect((await t.request('GET', '/api/me', { key })).status).toBe(200);
    clock.advance(1000);
    expect((await t.request('GET', '/api/me')).status).toBe(401);
  });

  it('limits the UI session as one bucket, whether by cookie or by the desktop header', async () => {
    const clock = manualClock();
    const t = await core({ clock, sessionRateLimit: { perSecond: 2, burst: 3 } });
    const cookie = await signIn(t);
    expect((await t.request('GET', '/api/me', { headers: { cookie } })).status).toBe(200);
    expect((await t.request('GET', '/api/me', { session: 'test' })).status).toBe(200);
    expect((await t.request('GET', '/api/me', { headers: { cookie } })).status).toBe(200);
    const over = await t.request('GET', '/api/me', { session: 'test' });
    limited(over);
    expect(over.headers['ratelimit-policy']).toBe('"session";q=3;w=2');
    expect((await t.request('GET', '/api/me', { key: t.key() })).status).toBe(200);
    clock.advance(500);
    expect((await t.request('GET', '/api/me', { headers: { cookie } })).status).toBe(200);
  });
});
