import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { FunnelCounts } from '../../shared/campaign-rules.ts';
import { funnelHolds } from '../../shared/campaign-rules.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import { seedCampaign } from '../helpers.ts';
import type { Server } from './harness.ts';
import { api, BIN, cliHarness, killHard, sleep, stop, withStore } from './harness.ts';

const { dataDir, serve } = cliHarness('parley-cmp-dur-');

const newKey = (dir: string, env: Environment) =>
  withStore(dir, (s) => s.services.keys.create(s.services.workspaces.resolve().id, env, env).key);

type Progress = FunnelCounts & { status: string };

const progressOf = (url: string, key: string, id: string) =>
  api<Progress>(url, key, 'GET', `/campaigns/${id}/progress`);

/** Polls the campaign's progress until `done` holds (at most `ms`). */
async function until(
  url: string,
  key: string,
  id: string,
  done: (p: Progress) => boolean,
  ms = 30_000,
): Promise<Progress> {
  const end = Date.now() + ms;
  for (;;) {
    const p = await progressOf(url, key, id);
    if (done(p)) return p;
    if (Date.now() > end) throw new Error(`gave up waiting; last progress ${JSON.stringify(p)}`);
    await sleep(20);
  }
}

/** A random whole number in [lo, hi]. */
const between = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));

/**
 * When the campaign's next burst of hand-overs should start: a second after the first pass of
 * the last second (the throughput window frees up then); now when that has passed.
 */
function nextBurstAt(dir: string, id: string): number {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    const passes = db
      .prepare(
        'SELECT DISTINCT sent_at FROM messages WHERE campaign_id = ? ORDER BY sent_at DESC LIMIT 50',
      )
      .pluck()
      .all(id) as number[];
    const recent = passes.filter((t) => t > passes[0]! - 1000);
    const at = recent.length > 0 ? Math.min(...recent) + 1000 : Date.now();
    return at > Date.now() ? at : Date.now();
  } finally {
    db.close();
  }
}

/**
 * Kills the server with SIGKILL once the campaign has sent `atSent`, `jitterMs` after its next
 * burst starts (see nextBurstAt), restarts it on the same data dir and returns the new one with
 * the progress it found after the restart.
 */
async function killAndRestart(
  dir: string,
  s: Server,
  key: string,
  id: string,
  atSent: number,
  jitterMs: number,
): Promise<{ server: Server; after: Progress }> {
  await until(s.url, key, id, (p) => p.sent >= atSent || p.status !== 'sending');
  await sleep(Math.max(0, nextBurstAt(dir, id) + jitterMs - Date.now()));
  await killHard(s);
  const server = await serve(dir);
  return { server, after: await progressOf(server.url, key, id) };
}

/** What the database says about a campaign's messages (read after the work is done). */
function audit(dir: string, campaignId: string) {
  return withStore(dir, ({ db }) => {
    const perContact = db
      .prepare(
        'SELECT contact_id AS contactId, count(*) AS n FROM messages WHERE campaign_id = ? GROUP BY contact_id',
      )
      .all(campaignId) as { contactId: string; n: number }[];
    const count = (sql: string) => db.prepare(sql).pluck().get({ id: campaignId }) as number;
    return {
      perContact,
      messages: count('SELECT count(*) FROM messages WHERE campaign_id = @id'),
      handedOver: count(
        `SELECT count(*) FROM campaign_recipients WHERE campaign_id = @id
         AND status IN ('sent', 'delivered', 'read')`,
      ),
      // Each such recipient points at its own message.
      linked: count(
        `SELECT count(*) FROM campaign_recipients r JOIN messages m
           ON m.id = r.message_id AND m.contact_id = r.contact_id AND m.campaign_id = r.campaign_id
         WHERE r.campaign_id = @id`,
      ),
      jobs: count(
        `SELECT count(*) FROM jobs WHERE json_extract(payload, '$.campaignId') = @id
           OR json_extract(payload, '$.messageId') IN (SELECT id FROM messages WHERE campaign_id = @id)`,
      ),
      deadJobs: db
        .prepare("SELECT count(*) FROM jobs WHERE status = 'dead'")
        .pluck()
        .get() as number,
      statuses: (
        db
          .prepare(
            `SELECT data FROM events WHERE type = 'campaign.status_updated'
             AND json_extract(data, '$.campaign.id') = ? ORDER BY seq`,
          )
          .pluck()
          .all(campaignId) as string[]
      ).map((d) => (JSON.parse(d) as { campaign: { status: string } }).campaign.status),
    };
  });
}

/** Waits until no job of the campaign (runner, progress, its messages' receipts) is left. */
async function drained(dir: string, campaignId: string, ms = 15_000) {
  const end = Date.now() + ms;
  for (;;) {
    const a = audit(dir, campaignId);
    if (a.jobs === 0 || Date.now() > end) return a;
    await sleep(100);
  }
}

it('a campaign SIGKILLed at random moments resumes after each restart and sends each recipient exactly one message', async () => {
  const dir = dataDir();
  const N = 1500;
  const { campaignId: id, contactIds } = seedCampaign(dir, {
    contacts: N,
    // 200 a second: about 7.5 s of sending, and no more than two seconds' worth between kills.
    simulator: { throughputMps: 200, deliveryLatencyMs: 150, readLatencyMs: 150 },
  });
  const key = newKey(dir, 'test');
  let server = await serve(dir);
  const started = Date.now();
  expect((await api(server.url, key, 'POST', '/campaigns/launch', { id })).status).toBe('sending');

  // Three kills at random moments after the run has made progress since the last restart. The
  // runner hands over in bursts when the throughput window frees up (a second after the last
  // one): each kill aims a random 0–60 ms past the next burst's start, inside its passes'
  // transactions or just after them, where a runner that was not atomic would lose or repeat.
  const kills: { atSent: number; jitterMs: number; after?: number }[] = [];
  let sent = 0;
  for (let k = 0; k < 3; k++) {
    const kill: (typeof kills)[number] = { atSent: sent + 1, jitterMs: between(0, 60) };
    kills.push(kill);
    const r = await killAndRestart(dir, server, key, id, kill.atSent, kill.jitterMs);
    server = r.server;
    sent = kill.after = r.after.sent;
    // Still mid-campaign when it died; what was sent stays sent.
    expect(r.after.status, JSON.stringify(kills)).toBe('sending');
    expect(r.after.sent, JSON.stringify(kills)).toBeGreaterThanOrEqual(kill.atSent);
    expect(r.after.sent, JSON.stringify(kills)).toBeLessThan(N);
    expect(funnelHolds(r.after)).toBe(true);
  }

  const end = await until(server.url, key, id, (p) => p.status !== 'sending');
  const took = Date.now() - started;
  expect(end).toMatchObject({ status: 'completed', total: N, sent: N, failed: 0, skipped: 0 });
  expect(funnelHolds(end)).toBe(true);

  // Receipts arrive after the end (their jobs survived the kills too); the funnel still holds.
  const read = await until(server.url, key, id, (p) => p.read === N, 15_000);
  expect(funnelHolds(read)).toBe(true);
  const a = await drained(dir, id);
  expect(a.perContact.map((m) => m.contactId).sort()).toEqual([...contactIds].sort());
  expect(a.perContact.filter((m) => m.n !== 1)).toEqual([]);
  expect(a.messages).toBe(N);
  expect(a.handedOver).toBe(a.messages);
  expect(a.linked).toBe(N);
  expect(a.jobs).toBe(0);
  expect(a.deadJobs).toBe(0);
  // One launch, one end: no transition was repeated by a restarted runner.
  expect(a.statuses).toEqual(['sending', 'completed']);
  await stop(server);
  // Bounded: the kills and restarts cost seconds, not the run.
  expect(took).toBeLessThan(40_000);
}, 60_000);

it('a live campaign killed mid-run charges each message exactly once, across a pause for funds', async () => {
  const dir = dataDir();
  const N = 300;
  const PRICE = 5_000; // UTILITY
  const { campaignId: id, workspaceId } = seedCampaign(dir, {
    contacts: N,
    env: 'live',
    category: 'UTILITY',
    // 30 a second: 180 take six seconds' windows, the other 120 four.
    simulator: { throughputMps: 30, deliveryLatencyMs: 100, readLatencyMs: 100 },
  });
  const key = newKey(dir, 'live');
  // Money for 180 of the 300.
  withStore(dir, (s) => s.services.wallet.topup(workspaceId, 180 * PRICE));
  let server = await serve(dir);
  await api(server.url, key, 'POST', '/campaigns/launch', { id });

  let r = await killAndRestart(dir, server, key, id, between(1, 59), between(0, 60));
  server = r.server;
  expect(r.after).toMatchObject({ status: 'sending' });
  expect(r.after.sent).toBeLessThan(180);

  // It pauses when the wallet cannot pay for the next one: exactly 180 sent, nothing owed.
  const paused = await until(server.url, key, id, (p) => p.status !== 'sending');
  expect(paused).toMatchObject({ status: 'paused', sent: 180, pending: N - 180 });
  const campaign = await api(server.url, key, 'GET', `/campaigns/${id}`);
  expect(campaign.pauseReason).toBe('insufficient_balance');
  expect((await api(server.url, key, 'GET', '/api/wallet')).balanceMicros).toBe(0);

  // Topped up from the CLI while the server runs, resumed over HTTP, killed again mid-run.
  execFileSync(process.execPath, [BIN, 'wallet', 'topup', '--amount', '1.00', '--data-dir', dir]);
  expect((await api(server.url, key, 'POST', '/campaigns/launch', { id })).status).toBe('sending');
  r = await killAndRestart(dir, server, key, id, between(181, 205), between(0, 60));
  server = r.server;
  expect(r.after).toMatchObject({ status: 'sending' });
  expect(r.after.sent).toBeLessThan(N);

  const end = await until(server.url, key, id, (p) => p.status !== 'sending');
  expect(end).toMatchObject({ status: 'completed', sent: N, failed: 0 });
  expect(funnelHolds(end)).toBe(true);
  await stop(server);

  const a = audit(dir, id);
  expect(a.messages).toBe(N);
  expect(a.perContact.filter((m) => m.n !== 1)).toEqual([]);
  expect(a.handedOver).toBe(N);
  withStore(dir, ({ db, services }) => {
    const wallet = services.wallet.get(workspaceId);
    expect(services.wallet.ledgerSum(workspaceId)).toBe(wallet.balanceMicros);
    expect(wallet.balanceMicros).toBe(180 * PRICE + 1_000_000 - N * PRICE);
    // Every campaign message has exactly one charge, and every charge is a campaign message's.
    const charges = db
      .prepare(
        `SELECT m.id, count(l.seq) AS n, coalesce(sum(l.amount_micros), 0) AS amount FROM messages m
         LEFT JOIN wallet_ledger l ON l.reference = m.id AND l.type = 'charge'
         WHERE m.campaign_id = ? GROUP BY m.id`,
      )
      .all(id) as { id: string; n: number; amount: number }[];
    expect(charges).toHaveLength(N);
    expect(charges.filter((c) => c.n !== 1 || c.amount !== -PRICE)).toEqual([]);
    expect(
      db.prepare("SELECT count(*) FROM wallet_ledger WHERE type = 'charge'").pluck().get(),
    ).toBe(N);
    expect(
      db.prepare("SELECT count(*) FROM wallet_ledger WHERE type = 'refund'").pluck().get(),
    ).toBe(0);
  });
}, 60_000);

it('two serve processes on one data dir share the governor: no second holds more than the account’s rate', async () => {
  const dir = dataDir();
  const MPS = 50;
  const fast = { throughputMps: MPS, deliveryLatencyMs: 50, readLatencyMs: 50 };
  const a = seedCampaign(dir, { contacts: 100, name: 'A', simulator: fast });
  const b = seedCampaign(dir, { contacts: 100, name: 'B', firstPhone: 1000, simulator: fast });
  const key = newKey(dir, 'test');
  const [one, two] = await Promise.all([serve(dir), serve(dir)]);
  // One launched through each process, the second while the first's burst fills the window:
  // the launch wakes its own process's scheduler, whose pass must find the window full.
  await api(one!.url, key, 'POST', '/campaigns/launch', { id: a.campaignId });
  await until(one!.url, key, a.campaignId, (p) => p.sent > 0);
  await sleep(between(100, 500));
  await api(two!.url, key, 'POST', '/campaigns/launch', { id: b.campaignId });
  const [endA, endB] = await Promise.all([
    until(one!.url, key, a.campaignId, (p) => p.status !== 'sending'),
    until(two!.url, key, b.campaignId, (p) => p.status !== 'sending'),
  ]);
  expect(endA).toMatchObject({ status: 'completed', sent: 100 });
  expect(endB).toMatchObject({ status: 'completed', sent: 100 });
  await Promise.all([stop(one!), stop(two!)]);

  const rows = withStore(
    dir,
    ({ db }) =>
      db
        .prepare(
          'SELECT campaign_id AS campaignId, sent_at AS at FROM messages WHERE campaign_id IN (?, ?) ORDER BY sent_at',
        )
        .all(a.campaignId, b.campaignId) as { campaignId: string; at: number }[],
  );
  expect(rows).toHaveLength(200);
  // The busiest window [t, t + 1000) over both campaigns' hand-overs.
  let busiest = 0;
  for (let i = 0, j = 0; i < rows.length; i++) {
    while (j < rows.length && rows[j]!.at < rows[i]!.at + 1000) j++;
    busiest = Math.max(busiest, j - i);
  }
  expect(busiest).toBeLessThanOrEqual(MPS);
  // The limit held for the two together: 200 at 50 a second span at least three seconds
  // (with a budget per process they would take about one).
  expect(rows.at(-1)!.at - rows[0]!.at).toBeGreaterThanOrEqual((200 / MPS - 1) * 1000);
}, 60_000);
