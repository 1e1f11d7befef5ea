import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { fakeRendererDir, makeCore } from '../helpers.ts';

let t: TestCore | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await t?.close();
  t = null;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function rendererDir(): string {
  const dir = fakeRendererDir();
  dirs.push(dir);
  return dir;
}

const directives = (csp: unknown): Map<string, string> =>
  new Map(
    String(csp)
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...rest] = d.split(/\s+/);
        return [name!, rest.join(' ')];
      }),
  );

function expectCommon(headers: Record<string, unknown>) {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(directives(headers['content-security-policy']).get('frame-ancestors')).toBe("'none'");
}

describe('security headers', () => {
  it('gives the UI page a strict Content-Security-Policy, and API answers a deny-all one', async () => {
    t = await makeCore({ rendererDir: rendererDir() });
    const page = await t.request('GET', '/', { headers: { accept: 'text/html' } });
    expectCommon(page.headers);
    const csp = directives(page.headers['content-security-policy']);
    expect(csp.get('default-src')).toBe("'self'");
    expect(csp.get('script-src')).toBe("'self'");
    expect(csp.get('style-src')).toBe("'self'");
    expect(csp.get('connect-src')).toBe("'self'");
    expect(csp.get('object-src')).toBe("'none'");
    expect(csp.get('base-uri')).toBe("'none'");
    expect(csp.get('img-src')).toBe("'self' data:");

    const key = t.key();
    for (const res of [
      await t.request('GET', '/api/me', { key }),
      await t.request('GET', '/api/me'),
      await t.request('GET', '/api/nothing', { key }),
      await t.request('GET', '/health'),
      await t.request('GET', '/assets/index-AbC123.js'),
      await t.request('GET', '/api/me', { key, headers: { host: 'evil.example' } }),
    ]) {
      expectCommon(res.headers);
      expect(directives(res.headers['content-security-policy']).get('default-src')).toBe("'none'");
    }
  });

  it('lets /docs keep its own stylesheet by hash, and nothing inline besides', async () => {
    t = await makeCore();
    const docs = await t.request('GET', '/docs');
    expect(docs.status).toBe(200);
    expectCommon(docs.headers);
    const style = /<style>([\s\S]*?)<\/style>/.exec(docs.text)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    const csp = directives(docs.headers['content-security-policy']);
    expect(csp.get('style-src')).toBe(`'self' 'sha256-${hash}'`);
    expect(csp.get('script-src')).toBe("'self'");
    expect(docs.text).not.toMatch(/<script|\son[a-z]+=|style="/i);
  });

  it('sends them on the event stream too', async () => {
    t = await makeCore();
    const { url } = await t.core.start({ port: 0 });
    const abort = new AbortController();
    const res = await fetch(`${url}/events`, {
      headers: { 'x-api-key': t.key() },
      signal: abort.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
    abort.abort();
    await res.body?.cancel().catch(() => undefined);
  });
});

describe('caching of the UI', () => {
  it('serves content-hashed assets immutable for a year and never caches index.html', async () => {
    t = await makeCore({ rendererDir: rendererDir() });
    for (const asset of ['/assets/index-AbC123.js', '/assets/index-XyZ789.css']) {
      const res = await t.request('GET', asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers['cache-control'], asset).toBe('public, max-age=31536000, immutable');
    }
    for (const url of ['/', '/inbox', '/settings/keys', '/index.html']) {
      const res = await t.request('GET', url, { headers: { accept: 'text/html' } });
      expect(res.status, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    const missing = await t.request('GET', '/assets/index-gone.js');
    expect(missing.status).toBe(404);
    expect(String(missing.headers['cache-control'] ?? '')).not.toMatch(/immutable/);
  });
});
