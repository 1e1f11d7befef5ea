import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SMTPServerOptions } from 'smtp-server';
import type { TestCore } from '../helpers.ts';
import { emailCampaign, smtpSettingsForPeer } from '../email-fixture.ts';
import { makeCore, manualClock } from '../helpers.ts';
import type { SmtpPeer } from '../smtp-peer.ts';
import { smtpPeer } from '../smtp-peer.ts';
import { maxPerSecond } from '../email-fixture.ts';

/**
 * SMTP exchanges as the server sees them (issue 18 items 4 and 11): settings only from the app's
 * session, a classified connection check, an exchange marked started only when a pooled
 * connection has it, no stale error on a delivered email, and no second with more exchanges
 * than the rate, however late the jobs run.
 */
let t: TestCore;
let peer: SmtpPeer | null = null;
afterEach(async () => {
  await t?.close();
  await peer?.close();
  peer = null;
});

/** A live key, a loopback SMTP peer the workspace may reach, and a campaign to `n` contacts. */
async function setup(n: number, ratePerSecond: number, server: SMTPServerOptions = {}) {
  peer = await smtpPeer(server);
  const clock = manualClock();
  t = await makeCore({ clock, smtpOptions: { timeoutMs: 2000 } });
  const key = t.key('live');
  await smtpSettingsForPeer(t, peer.port, { ratePerSecond });
  const { id, launch, get } = await emailCampaign(
    t,
    key,
    Array.from({ length: n }, (_, i) => `p${i}@example.com`),
  );
  return { clock, key, id, launch, get, jobs: t.core.services.scheduler };
}

const rows = () =>
  t.core.db
    .prepare(
      'SELECT to_address, status, sent_at, exchange_started_at, error_code FROM email_messages',
    )
    .all() as {
    to_address: string;
    status: string;
    sent_at: number | null;
    exchange_started_at: number | null;
    error_code: string | null;
  }[];

describe('SMTP settings are the app session’s (item 4)', () => {
  it('refuses API keys, test and live, with 403 forbidden', async () => {
    const { key } = await setup(0, 5);
    const body = { smtp: { host: '127.0.0.1', port: 22, secure: false, user: null } };
    for (const k of [key, t.key('test')]) {
      const put = await t.request('PUT', '/v1/email/settings', { key: k, body });
      expect(put.status).toBe(403);
      expect(put.body.error.code).toBe('forbidden');
      const check = await t.request('POST', '/v1/email/settings/check', { key: k, body: {} });
      expect(check.status).toBe(403);
      expect(check.body.error.code).toBe('forbidden');
    }
    // Reading them stays open to keys.
    const read = await t.request('GET', '/v1/email/settings', { key });
    expect(read.status).toBe(200);
    expect(read.body.smtp).toMatchObject({ host: '127.0.0.1' });
  });

  it('checks a server through the outbound policy and classifies it, never echoing a banner', async () => {
    await setup(0, 5);
    const sockets = new Set<Socket>();
    const ssh = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
      s.write('SSH-2.0-OpenSSH_9.6\r\n');
    });
    await new Promise<void>((resolve) => ssh.listen(0, '127.0.0.1', resolve));
    const port = (ssh.address() as AddressInfo).port;
    try {
      const session = { session: 'live' } as const;
      const put = await t.request('PUT', '/v1/email/settings', {
        ...session,
        body: { smtp: { host: '127.0.0.1', port, secure: false, user: null } },
      });
      expect(put.status).toBe(200);
      const check = await t.request('POST', '/v1/email/settings/check', { ...session, body: {} });
      expect(check.status).toBe(200);
      expect(check.body).toMatchObject({ ok: false, outcome: 'not_smtp' });
      expect(check.text).not.toContain('OpenSSH');

      // Private targets off: the check does not even connect.
      await t.request('PATCH', '/api/workspace/settings', {
        ...session,
        body: { allowPrivateWebhooks: false },
      });
      const before = sockets.size;
      const refused = await t.request('POST', '/v1/email/settings/check', {
        ...session,
        body: {},
      });
      expect(refused.body).toMatchObject({
        ok: false,
        outcome: 'unreachable',
        code: 'refused_target',
      });
      expect(sockets.size).toBe(before);

      // A real SMTP server on loopback, allowed: connected.
      await t.request('PATCH', '/api/workspace/settings', {
        ...session,
        body: { allowPrivateWebhooks: true },
      });
      await t.request('PUT', '/v1/email/settings', {
        ...session,
        body: { smtp: { host: '127.0.0.1', port: peer!.port, secure: false, user: null } },
      });
      const ok = await t.request('POST', '/v1/email/settings/check', { ...session, body: {} });
      expect(ok.body).toMatchObject({ ok: true, outcome: 'connected', code: null });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => ssh.close(() => resolve()));
    }
  });
});

describe('SMTP exchanges (item 11)', () => {
  it('marks an exchange started only when a pooled connection has it', async () => {
    // The server holds every message's DATA until the test answers it.
    const held: (() => void)[] = [];
    const { clock, launch, jobs, get } = await setup(10, 100, {
      onData(stream, _session, callback) {
        stream.on('data', () => {});
        stream.on('end', () => held.push(() => callback(null, 'Queued')));
      },
    });
    await launch();
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
    };
    // The first pass plans ten exchanges over 100 ms; the first one reaches the server.
    const first = jobs.runDue();
    await until(() => held.length >= 1);
    // The other nine are due at once; the pool has five connections.
    clock.advance(1000);
    const running = jobs.runDue();
    for (let i = 0; i < 400 && held.length < 5; i++) await new Promise((r) => setTimeout(r, 5));
    expect(held.length).toBeGreaterThanOrEqual(5);
    const started = rows().filter((r) => r.exchange_started_at !== null);
    // Only those a connection took count as started: a kill now leaves the others to send.
    expect(started.length).toBe(held.length);
    expect(started.length).toBeLessThanOrEqual(5);
    for (let i = 0; i < 400 && (await get()).counts.delivered < 10; i++) {
      held.splice(0).forEach((answer) => answer());
      await new Promise((r) => setTimeout(r, 5));
    }
    held.splice(0).forEach((answer) => answer());
    await Promise.all([first, running]);
    expect((await get()).counts).toMatchObject({ total: 10, delivered: 10, failed: 0 });
  });

  it('a delivered email keeps no error of an earlier attempt', async () => {
    let refusals = 0;
    const { clock, launch, jobs, get } = await setup(1, 5, {
      onRcptTo(_address, _session, callback) {
        if (refusals++ < 1) {
          return callback(
            Object.assign(new Error('4.2.1 Mailbox busy, try later'), { responseCode: 451 }),
          );
        }
        callback();
      },
    });
    await launch();
    await jobs.runDue();
    expect(rows()[0]).toMatchObject({ status: 'pending', error_code: 'smtp_451' });
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await jobs.runDue();
    }
    expect((await get()).counts).toMatchObject({ delivered: 1 });
    expect(rows()[0]).toMatchObject({ status: 'delivered', error_code: null });
    const recipients = await t.request(
      'GET',
      `/v1/email/campaigns/${(await get()).id}/recipients`,
      { key: t.key('live') },
    );
    expect(recipients.body.data[0]).toMatchObject({ status: 'delivered', error: null });
  });

  it('holds the rate in every sliding second, the first included, when jobs run late', async () => {
    const { clock, launch, jobs, get } = await setup(12, 5);
    await launch();
    // The first pass plans one exchange every 200 ms; the first goes at once.
    await jobs.runDue();
    expect(peer!.received).toHaveLength(1);
    // Nothing else runs for most of a second: four planned exchanges are late, and go together.
    clock.advance(999);
    await jobs.runDue();
    expect(peer!.received).toHaveLength(5);
    clock.advance(1);
    await jobs.runDue();
    expect(peer!.received).toHaveLength(6);
    // The next planned one is due, but the last second of real starts already holds five.
    clock.advance(200);
    await jobs.runDue();
    expect(peer!.received).toHaveLength(6);
    for (let i = 0; i < 60 && (await get()).status !== 'completed'; i++) {
      clock.advance(100);
      await jobs.runDue();
    }
    expect((await get()).counts).toMatchObject({ total: 12, delivered: 12 });
    const sent = rows().map((r) => r.sent_at!);
    expect(maxPerSecond(sent)).toBeLessThanOrEqual(5);
  });
});
