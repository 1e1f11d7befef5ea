import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { emailCampaign } from '../email-fixture.ts';
import { makeCore, manualClock } from '../helpers.ts';

/**
 * What an email's recipients reach without a key (`/e/*`): RFC 8058 one-click unsubscribes in
 * any body (issue 18 item 8), a per-address rate limit (item 7), and a `publicUrl` that must be
 * reachable, judged by the same address classifier as webhooks (item 7).
 */
let t: TestCore;
afterEach(async () => t?.close());

/** A launched test-key campaign to `emails`, its tokens by address. */
async function emailed(emails: string[], env: 'test' | 'live' = 'test') {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key(env);
  const { id, launch } = await emailCampaign(t, key, emails, { subject: 'Hello' });
  if (env === 'live') return { clock, key, id, launch, tokens: new Map<string, string>() };
  expect((await launch()).status).toBe(200);
  await t.core.services.scheduler.runDue();
  const tokens = new Map(
    (
      t.core.db.prepare('SELECT to_address, token FROM email_messages').all() as {
        to_address: string;
        token: string;
      }[]
    ).map((r) => [r.to_address, r.token]),
  );
  return { clock, key, id, launch, tokens };
}

const unsubscribed = (address: string) =>
  (
    t.core.db
      .prepare('SELECT unsubscribed_at FROM email_messages WHERE to_address = ?')
      .get(address) as { unsubscribed_at: number | null }
  ).unsubscribed_at !== null;

describe('RFC 8058 one-click unsubscribe', () => {
  it('accepts multipart/form-data, urlencoded and any other body: the token is the proof', async () => {
    const addresses = ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'];
    const { tokens } = await emailed(addresses);
    const boundary = '----ParleyBoundary7MA4YWxkTrZu0gW';
    const multipart =
      `--${boundary}\r\n` +
      'Content-Disposition: form-data; name="List-Unsubscribe"\r\n\r\n' +
      'One-Click\r\n' +
      `--${boundary}--\r\n`;
    const bodies: { type?: string; payload: string }[] = [
      { type: `multipart/form-data; boundary=${boundary}`, payload: multipart },
      { type: 'application/x-www-form-urlencoded', payload: 'List-Unsubscribe=One-Click' },
      { type: 'application/json', payload: 'List-Unsubscribe=One-Click' },
      { payload: '' },
    ];
    for (const [i, body] of bodies.entries()) {
      const address = addresses[i]!;
      const res = await t.core.app.inject({
        method: 'POST',
        url: `/e/u/${tokens.get(address)}`,
        headers: body.type ? { 'content-type': body.type } : {},
        payload: body.payload,
      });
      expect(res.statusCode, body.type ?? 'no body').toBe(200);
      expect(res.body).toContain('You are unsubscribed');
      expect(unsubscribed(address), address).toBe(true);
    }
    const unknown = await t.core.app.inject({
      method: 'POST',
      url: '/e/u/AAAAAAAAAAAAAAAAAAAAAAAAAAA',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: multipart,
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('the public email routes are rate limited per client address', () => {
  it('answers 429 rate_limited with Retry-After past the budget, and serves again later', async () => {
    const { tokens, clock } = await emailed(['a@example.com']);
    const pixel = `/e/o/${tokens.get('a@example.com')}.gif`;
    const get = (url: string, remoteAddress = '203.0.113.7') =>
      t.core.app.inject({ method: 'GET', url, remoteAddress });
    let first429: Awaited<ReturnType<typeof get>> | null = null;
    let served = 0;
    for (let i = 0; i < 400 && !first429; i++) {
      const res = await get(i % 2 ? pixel : '/e/c/nope?u=https://x.example/&s=bad');
      if (res.statusCode === 429) first429 = res;
      else served++;
    }
    expect(first429).not.toBeNull();
    expect(served).toBe(300);
    expect(first429!.headers['retry-after']).toMatch(/^\d+$/);
    expect(first429!.json().error.code).toBe('rate_limited');
    // Another address has its own budget; the same one is served again once time has passed.
    expect((await get(pixel, '198.51.100.9')).statusCode).toBe(200);
    expect((await get(pixel)).statusCode).toBe(429);
    clock.advance(Number(first429!.headers['retry-after']) * 1000);
    expect((await get(pixel)).statusCode).toBe(200);
  });
});

describe('a live campaign’s publicUrl must be reachable', () => {
  it('refuses every spelling of a loopback or private address, as webhooks’ classifier reads it', async () => {
    const { launch } = await emailed(['a@example.com'], 'live');
    const put = (publicUrl: string) =>
      t.request('PUT', '/v1/email/settings', { session: 'live', body: { publicUrl } });
    for (const url of [
      'http://0x7f000001/',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
      'http://127.1/',
      'http://0177.0.0.1/',
      'http://10.1.2.3/',
      'http://100.64.0.1/',
      'http://[::]/',
      'http://[fd00::1]/',
      'http://printer.local/',
      'https://parley.localhost/',
    ]) {
      expect((await put(url)).status, url).toBe(200);
      const refused = await launch();
      expect(refused.status, url).toBe(400);
      expect(refused.body.error.param).toBe('publicUrl');
    }
    expect((await put('https://mail.acme.example')).status).toBe(200);
    expect((await launch()).status).toBe(200);
  });
});
