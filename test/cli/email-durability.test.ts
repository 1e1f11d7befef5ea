import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Environment } from '../../shared/schemas/common.ts';
import type { EmailCampaign } from '../../shared/schemas/email.ts';
import type { SmtpPeer } from '../smtp-peer.ts';
import { smtpPeer } from '../smtp-peer.ts';
import type { Server } from './harness.ts';
import { api, cliHarness, killHard, sleep, stop, withStore } from './harness.ts';

const { dataDir, serve } = cliHarness('parley-email-dur-');
let peer: SmtpPeer | null = null;
afterEach(async () => {
  await peer?.close();
  peer = null;
});

/** A key in `env`, `n` contacts with an email in one group, and a draft campaign to it. */
function seed(dir: string, env: Environment, n: number, emailRatePerSecond = 300) {
  return withStore(dir, (s) => {
    const ws = s.services.workspaces.resolve().id;
    const scope = { workspaceId: ws, environment: env } as const;
    s.services.simulator.update(ws, {
      emailRatePerSecond,
      deliveryLatencyMs: 200,
      readLatencyMs: 300,
    });
    const ids = s.db.transaction(() =>
      Array.from(
        { length: n },
        (_, i) =>
          s.services.contacts.write(scope, `+49152${String(i).padStart(8, '0')}`, {
            name: `Person ${i}`,
            email: `p${i}@example.com`,
          }).row.id,
      ),
    )();
    const group = s.services.contacts.createGroup(scope, 'Everyone', ids);
    const campaign = s.services.email.create(scope, {
      name: 'Durable news',
      subject: 'Hello {{contact.name}}',
      fromEmail: 'news@acme.example',
      html: '<p>Hi {{contact.name}}</p>',
      audience: { groupId: group.id },
    });
    return { key: s.services.keys.create(ws, env, env).key, id: campaign.id };
  });
}

const campaignOf = (url: string, key: string, id: string) =>
  api<EmailCampaign>(url, key, 'GET', `/v1/email/campaigns/${id}`);

async function until(
  url: string,
  key: string,
  id: string,
  done: (c: EmailCampaign) => boolean,
  ms = 60_000,
): Promise<EmailCampaign> {
  const end = Date.now() + ms;
  for (;;) {
    const c = await campaignOf(url, key, id);
    if (done(c)) return c;
    if (Date.now() > end) throw new Error(`gave up waiting; last ${JSON.stringify(c.counts)}`);
    await sleep(15);
  }
}

/** The recipients' rows, counted from the store itself (not from the campaign's counters). */
function rows(dir: string, id: string) {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    return {
      rows: db
        .prepare(
          'SELECT to_address, status, attempts, error_code FROM email_messages WHERE campaign_id = ?',
        )
        .all(id) as {
        to_address: string;
        status: string;
        attempts: number;
        error_code: string | null;
      }[],
      jobs: db
        // A trailing progress event may still wait for its second; sending work must not.
        .prepare(
          `SELECT count(*) FROM jobs WHERE kind IN ('email.campaign', 'email.smtp', 'email.sim')`,
        )
        .pluck()
        .get() as number,
    };
  } finally {
    db.close();
  }
}

it('SIGKILLed three times mid-campaign (test key), every recipient gets exactly one email and the counts are exact', async () => {
  const dir = dataDir();
  const n = 1500;
  const { key, id } = seed(dir, 'test', n);
  let s: Server = await serve(dir);
  await api(s.url, key, 'POST', `/v1/email/campaigns/${id}/launch`, {});
  for (const atSent of [300, 700, 1100]) {
    await until(s.url, key, id, (c) => c.counts.sent >= atSent);
    await sleep(Math.floor(Math.random() * 400));
    await killHard(s);
    s = await serve(dir);
  }
  const done = await until(
    s.url,
    key,
    id,
    (c) => c.status === 'completed' && c.counts.opened === n,
  );
  // A pass queued before the receipts completed the campaign finds nothing more and ends.
  await sleep(1500);
  await stop(s);
  const { rows: all, jobs } = rows(dir, id);
  expect(all).toHaveLength(n);
  // One hand-over each: the simulated transport's hand-over commits with the recipient's move.
  expect(all.every((r) => r.attempts === 1 && r.status === 'delivered')).toBe(true);
  expect(new Set(all.map((r) => r.to_address)).size).toBe(n);
  expect(done.counts).toEqual({
    total: n,
    pending: 0,
    sent: n,
    delivered: n,
    opened: n,
    clicked: 0,
    bounced: 0,
    failed: 0,
    unsubscribed: 0,
    cancelled: 0,
  });
  expect(jobs).toBe(0);
}, 120_000);

it('SIGKILLed twice mid-campaign over SMTP (live key), nobody is emailed twice and the counts match the rows', async () => {
  // Each exchange takes a while, so kills land with exchanges in flight.
  peer = await smtpPeer({
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        setTimeout(() => {
          peer!.received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
            at: Date.now(),
          });
          callback(null, 'Queued');
        }, 30);
      });
    },
  });
  const dir = dataDir();
  const n = 400;
  const { key, id } = seed(dir, 'live', n);
  // SMTP settings are the app's, not an API key's; the peer is on loopback, a private target.
  withStore(dir, (st) => {
    const ws = st.services.workspaces.resolve().id;
    st.services.workspaces.updateSettings(ws, { allowPrivateWebhooks: true });
    st.services.email.saveSettings(
      { workspaceId: ws, environment: 'live' },
      {
        smtp: { host: '127.0.0.1', port: peer!.port, secure: false, user: null },
        ratePerSecond: 100,
        publicUrl: 'https://mail.acme.example',
      },
    );
  });
  let s: Server = await serve(dir);
  await api(s.url, key, 'POST', `/v1/email/campaigns/${id}/launch`, {});
  for (const atSent of [100, 250]) {
    await until(s.url, key, id, (c) => c.counts.sent >= atSent);
    await sleep(Math.floor(Math.random() * 100));
    await killHard(s);
    s = await serve(dir);
  }
  const done = await until(s.url, key, id, (c) => c.status === 'completed');
  await sleep(1500);
  await stop(s);
  // Exchanges the kills cut may still finish on the peer's side: let them land.
  await sleep(300);
  const { rows: all, jobs } = rows(dir, id);
  const received = new Map<string, number>();
  for (const r of peer.received) received.set(r.to[0]!, (received.get(r.to[0]!) ?? 0) + 1);
  expect([...received.values()].every((k) => k === 1)).toBe(true);
  const delivered = all.filter((r) => r.status === 'delivered');
  const interrupted = all.filter((r) => r.status === 'failed');
  expect(delivered.length + interrupted.length).toBe(n);
  expect(interrupted.every((r) => r.error_code === 'interrupted')).toBe(true);
  // What a kill can cost is bounded by the exchanges a connection had (5 connections) per kill.
  expect(interrupted.length).toBeLessThanOrEqual(2 * 5);
  // Every delivered one reached the server, once.
  expect(delivered.every((r) => received.get(r.to_address) === 1)).toBe(true);
  expect(done.counts).toMatchObject({
    total: n,
    pending: 0,
    sent: delivered.length,
    delivered: delivered.length,
    failed: interrupted.length,
  });
  expect(jobs).toBe(0);
}, 120_000);
