import { afterEach, describe, expect, it } from 'vitest';
import type { SMTPServerOptions } from 'smtp-server';
import type { TestCore } from '../helpers.ts';
import { emailCampaign, smtpSettingsForPeer } from '../email-fixture.ts';
import { makeCore, manualClock } from '../helpers.ts';
import type { SmtpPeer } from '../smtp-peer.ts';
import { smtpPeer } from '../smtp-peer.ts';

let t: TestCore;
let peer: SmtpPeer | null = null;
afterEach(async () => {
  await t?.close();
  await peer?.close();
  peer = null;
});

const smtpError = (message: string, responseCode: number) =>
  Object.assign(new Error(message), { responseCode });

/** SMTP settings are the app session's (an API key gets 403). */
const settings = (body: unknown) =>
  t.request('PUT', '/v1/email/settings', { session: 'live', body });

/**
 * A core on a manual clock with a live key whose email goes to a real local SMTP server, and
 * `n` contacts (p0@example.com …) in a group.
 */
async function setup(n: number, server: SMTPServerOptions = {}, settings = {}) {
  peer = await smtpPeer(server);
  const clock = manualClock();
  t = await makeCore({ clock, smtpOptions: { timeoutMs: 2000 } });
  const key = t.key('live');
  // The peer listens on loopback: a target the workspace must allow (README "Email").
  await smtpSettingsForPeer(t, peer.port, settings);
  const { id } = await emailCampaign(
    t,
    key,
    Array.from({ length: n }, (_, i) => `p${i}@example.com`),
    {
      name: 'Live news',
      fromName: 'Acme',
      html: '<p>Hi {{contact.name}} &amp; friends, see <a href="https://acme.example/sale">the sale</a>.</p>',
    },
  );
  const jobs = t.core.services.scheduler;
  const get = async () => (await t.request('GET', `/v1/email/campaigns/${id}`, { key })).body;
  const launch = () => t.request('POST', `/v1/email/campaigns/${id}/launch`, { key, body: {} });
  return { clock, key, id, jobs, get, launch };
}

describe('email campaigns over SMTP (live keys)', () => {
  it('sends each recipient one rendered email at the SMTP rate, with the deliverability headers', async () => {
    const { clock, jobs, get, launch } = await setup(12);
    expect((await launch()).body.status).toBe('sending');
    await jobs.runDue();
    // ratePerSecond 5: one exchange starts every 200 ms.
    expect(peer!.received).toHaveLength(1);
    for (let i = 0; i < 15; i++) {
      clock.advance(200);
      await jobs.runDue();
    }
    const done = await get();
    expect(done.status).toBe('completed');
    expect(done.counts).toMatchObject({ total: 12, sent: 12, delivered: 12, pending: 0 });
    const starts = (
      t.core.db
        .prepare('SELECT sent_at FROM email_messages ORDER BY sent_at')
        .pluck()
        .all() as number[]
    ).map((at, i, all) => (i === 0 ? 200 : at - all[i - 1]!));
    expect(Math.min(...starts)).toBeGreaterThanOrEqual(200);
    const to = peer!.received.map((r) => r.to[0]).sort();
    expect(new Set(to).size).toBe(12);

    const mail = await peer!.parsed(0);
    const n = /p(\d+)@/.exec(mail.to && !Array.isArray(mail.to) ? mail.to.text : '')![1];
    expect(mail.subject).toBe(`Hello Person ${n}`);
    expect(mail.messageId).toMatch(/^<em_[^@]+@acme\.example>$/);
    expect(mail.html).toContain(`Hi Person ${n} &amp; friends`);
    expect(mail.html).toContain('https://mail.acme.example/e/c/');
    expect(mail.html).toContain('https://mail.acme.example/e/o/');
    expect(mail.text).toContain('Unsubscribe');
    expect(mail.headerLines.map((h) => h.line)).toContain(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );
    const list = mail.headers.get('list') as { unsubscribe: { url: string; mail?: string }[] };
    expect(JSON.stringify(list)).toContain('https://mail.acme.example/e/u/');
    expect(JSON.stringify(list)).toContain('news@acme.example');
    const recipients = await t.request('GET', `/v1/email/campaigns/${done.id}/recipients?limit=1`, {
      key: t.key('live'),
    });
    expect(recipients.body.data[0].smtpResponse).toContain('250');
  });

  it('lists and exports each recipient’s subject as it went out, placeholders filled', async () => {
    const { clock, key, id, jobs, get, launch } = await setup(2);
    expect((await launch()).body.status).toBe('sending');
    const listed = await t.request('GET', `/v1/email/campaigns/${id}/recipients`, { key });
    const p1 = (listed.body.data as { to: string; contactId: string; subject: string }[]).find(
      (r) => r.to === 'p1@example.com',
    )!;
    // Fixed at launch, filled for its contact before anything went out.
    expect(p1.subject).toBe('Hello Person 1');
    // Renamed before its exchange: the email goes out with the new name, and the export says so.
    const renamed = await t.request('PATCH', `/api/contacts/${p1.contactId}`, {
      key,
      body: { name: 'Ana' },
    });
    expect(renamed.status).toBe(200);
    await jobs.runDue();
    for (let i = 0; i < 5; i++) {
      clock.advance(200);
      await jobs.runDue();
    }
    expect((await get()).status).toBe('completed');
    const subjects = await Promise.all(peer!.received.map((_, i) => peer!.parsed(i)));
    const sent = Object.fromEntries(
      subjects.map((m) => [m.to && !Array.isArray(m.to) ? m.to.text : '', m.subject]),
    );
    expect(sent).toEqual({ 'p0@example.com': 'Hello Person 0', 'p1@example.com': 'Hello Ana' });
    const csv = await t.request('GET', `/v1/email/campaigns/${id}/recipients/export`, { key });
    expect(csv.status).toBe(200);
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    const header = lines[0]!.split(',');
    const col = (line: string, name: string) => line.split(',')[header.indexOf(name)];
    const exported = Object.fromEntries(
      lines.slice(1).map((l) => [col(l, 'email'), col(l, 'subject')]),
    );
    expect(exported).toEqual(sent);
    expect(csv.text).not.toContain('{{contact.name}}');
  });

  it('retries a 4xx, counts a 5xx as a bounce, and keeps the funnel exact', async () => {
    let refusals = 0;
    const { clock, jobs, get, launch } = await setup(4, {
      onRcptTo(address, _session, callback) {
        if (address.address === 'p1@example.com' && refusals++ < 2) {
          return callback(smtpError('4.2.1 Mailbox busy, try later', 451));
        }
        if (address.address === 'p2@example.com') {
          return callback(smtpError('5.1.1 No such user', 550));
        }
        callback();
      },
    });
    await launch();
    for (let i = 0; i < 12; i++) {
      await jobs.runDue();
      clock.advance(1000);
    }
    const done = await get();
    expect(done.counts).toMatchObject({
      total: 4,
      sent: 4,
      delivered: 3,
      bounced: 1,
      failed: 0,
      pending: 0,
    });
    expect(done.status).toBe('completed');
    expect(refusals).toBe(3); // two 451s, then accepted
    const to = peer!.received.map((r) => r.to[0]).sort();
    expect(to).toEqual(['p0@example.com', 'p1@example.com', 'p3@example.com']);
    const bounced = await t.request(
      'GET',
      `/v1/email/campaigns/${done.id}/recipients?status=bounced`,
      {
        key: t.key('live'),
      },
    );
    expect(bounced.body.data[0]).toMatchObject({
      to: 'p2@example.com',
      error: { code: 'smtp_550' },
    });
    expect(bounced.body.data[0].error.message).toContain('No such user');
  });

  it('pauses on an authentication failure with the server’s words, and resumes once fixed', async () => {
    const { clock, jobs, get, launch } = await setup(
      3,
      {
        authOptional: false,
        allowInsecureAuth: true,
        onAuth(auth, _session, callback) {
          if (auth.username === 'news' && auth.password === 'right') {
            return callback(null, { user: 'news' });
          }
          callback(smtpError('5.7.8 Authentication credentials invalid', 535));
        },
      },
      {},
    );
    await settings({
      smtp: { host: '127.0.0.1', port: peer!.port, secure: false, user: 'news', password: 'wrong' },
    });
    const check = await t.request('POST', '/v1/email/settings/check', {
      session: 'live',
      body: {},
    });
    expect(check.body).toMatchObject({ ok: false, outcome: 'auth_failed', code: 'EAUTH' });
    // An SMTP server's reply to the login is quoted.
    expect(check.body.response).toContain('Authentication credentials invalid');

    await launch();
    await jobs.runDue();
    const paused = await get();
    expect(paused).toMatchObject({ status: 'paused', pauseReason: 'smtp_settings' });
    expect(paused.pauseMessage).toContain('EAUTH');
    expect(paused.counts).toMatchObject({ sent: 0, pending: 3, failed: 0 });

    await settings({
      smtp: { host: '127.0.0.1', port: peer!.port, secure: false, user: 'news', password: 'right' },
    });
    expect((await launch()).body.status).toBe('sending');
    for (let i = 0; i < 3; i++) {
      await jobs.runDue();
      clock.advance(1000);
    }
    expect((await get()).counts).toMatchObject({ sent: 3, delivered: 3, pending: 0 });
    expect(peer!.received).toHaveLength(3);
  });

  it('sends a transactional email and a campaign test email through SMTP', async () => {
    const { key, jobs, id, clock } = await setup(1);
    const sent = await t.request('POST', '/v1/email/send', {
      key,
      body: {
        to: 'ann@example.com',
        subject: 'Your receipt',
        html: '<p>Thanks!</p>',
        fromEmail: 'orders@acme.example',
        fromName: 'Acme Orders',
      },
    });
    expect(sent.body.status).toBe('sending');
    const test = await t.request('POST', `/v1/email/campaigns/${id}/test`, {
      key,
      body: { to: 'me@acme.example' },
    });
    expect(test.status).toBe(202);
    await jobs.runDue();
    clock.advance(200);
    await jobs.runDue();
    const got = await t.request('GET', `/v1/email/messages/${sent.body.id}`, { key });
    expect(got.body).toMatchObject({ status: 'delivered', to: 'ann@example.com' });
    expect(peer!.received.map((r) => r.to[0]).sort()).toEqual([
      'ann@example.com',
      'me@acme.example',
    ]);
    const receipt = await peer!.parsed(
      peer!.received.findIndex((r) => r.to[0] === 'ann@example.com'),
    );
    expect(receipt.text?.trim()).toBe('Thanks!');
    expect(receipt.headers.has('list-unsubscribe')).toBe(false);
  });
});
