import Database from 'better-sqlite3';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { processOwner } from '../../main/core/jobs/owner.ts';
import { createScheduler, MAX_RECLAIMS, RENEW_EVERY_MS } from '../../main/core/jobs/scheduler.ts';
import { sign } from '../../main/core/modules/webhooks/service.ts';
import type { Resolver } from '../../main/core/net/outbound.ts';
import type { TestCore } from '../helpers.ts';
import { deadPid, makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await t?.close();
});

/** What a receiver answers: a status, or a status and a body. */
type Answer = number | { status: number; body: string | Buffer };

/** A real HTTP receiver on 127.0.0.1 answering `answers` in turn (then 200), closed after the test. */
async function receiver(answers: Answer[]) {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      const answer = answers.shift() ?? 200;
      if (typeof answer === 'number') res.writeHead(answer).end();
      else res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}/hook`, got };
}

/** A resolver the test answers for, as an attacker's DNS server would (rebinding between calls). */
function playDns(answers: Record<string, string>): Resolver {
  return async (hostname) => {
    const address = answers[hostname];
    if (!address)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
}

const allowPrivate = (allowed: boolean) =>
  t.request('PATCH', '/api/workspace/settings', {
    session: 'test',
    body: { allowPrivateWebhooks: allowed },
  });

/**
 * A core on a manual clock, a local receiver answering `answers`, a webhook on it (at `url(rx)`
 * when given), one inbound message. Private targets are allowed while the webhook is saved,
 * then set to `allowAfter`.
 */
async function hooked(
  answers: Answer[],
  events?: string[],
  opts: {
    url?: (rx: { port: number; url: string }) => string;
    resolveHost?: Resolver;
    allowAfter?: boolean;
  } = {},
) {
  const clock = manualClock(Date.now());
  t = await makeCore({ clock, ...(opts.resolveHost ? { resolveHost: opts.resolveHost } : {}) });
  const key = t.key();
  const rx = await receiver(answers);
  await allowPrivate(true);
  const created = await t.request('POST', '/webhooks', {
    key,
    body: { url: opts.url ? opts.url(rx) : rx.url, ...(events ? { events } : {}) },
  });
  expect(created.status).toBe(201);
  const hook = created.body;
  await allowPrivate(opts.allowAfter ?? true);
  await t.request('POST', '/api/simulator/inbound', {
    key,
    body: { phone: '+14155552671', message: 'hi' },
  });
  const deliveries = async () =>
    (await t.request('GET', `/webhooks/${hook.id}/deliveries`, { key })).body.data;
  return { clock, key, rx, hook, jobs: t.core.services.scheduler, deliveries };
}

describe('webhooks', () => {
  it('refuses loopback in every IPv6 spelling and other non-public ranges', async () => {
    t = await makeCore();
    const key = t.key();
    for (const url of [
      'http://[::ffff:127.0.0.1]:4780/x',
      'http://[::127.0.0.1]:4780/x',
      'http://[64:ff9b::7f00:1]:4780/x',
      'http://[2002:7f00:1::]:4780/x',
      'http://[::ffff:10.0.0.1]/x',
      'http://[fe80::1]/x',
      'http://[fd00::1]/x',
      'http://224.0.0.251/x',
      'http://[ff02::1]/x',
      'http://255.255.255.255/x',
      'http://198.18.0.1/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/x',
      'http://0.0.0.0/x',
      'http://2130706433/x',
    ]) {
      const res = await t.request('POST', '/webhooks', { key, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatchObject({ code: 'validation_error', param: 'url' });
    }
    const mapped = await t.request('POST', '/webhooks', {
      key,
      body: { url: 'http://[::ffff:127.0.0.1]:4780/x' },
    });
    expect(mapped.body.error.message).toBe(
      'the URL points to ::ffff:7f00:1 (IPv4-mapped 127.0.0.1), a loopback address, which this workspace does not allow; an admin can allow private addresses under Settings → Workspace → Webhooks',
    );
    for (const url of ['https://8.8.8.8/x', 'https://[2606:4700::1]/x']) {
      expect((await t.request('POST', '/webhooks', { key, body: { url } })).status, url).toBe(201);
    }
    expect((await t.request('GET', '/webhooks', { key })).body.data).toHaveLength(2);
  });

  it('refuses a name that resolves into a private network when the webhook is saved', async () => {
    t = await makeCore({
      resolveHost: playDns({ 'intranet.example.com': '10.0.0.7', 'hooks.example.com': '8.8.4.4' }),
    });
    const key = t.key();
    const res = await t.request('POST', '/webhooks', {
      key,
      body: { url: 'https://intranet.example.com/x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('url');
    expect(res.body.error.message).toMatch(/^the URL resolves to 10\.0\.0\.7, a private address/);
    expect(
      (await t.request('POST', '/webhooks', { key, body: { url: 'https://hooks.example.com/x' } }))
        .status,
    ).toBe(201);
  });

  it('makes no delivery to a loopback receiver once the workspace disallows private targets, and delivers when allowed', async () => {
    // Saved while allowed, as [::ffff:127.0.0.1]: a real receiver on 127.0.0.1 behind it.
    const { clock, rx, jobs, deliveries } = await hooked([], ['message.received'], {
      url: (r) => `http://[::ffff:127.0.0.1]:${r.port}/hook`,
      allowAfter: false,
    });
    await jobs.runDue();
    let log = await deliveries();
    expect(rx.got).toEqual([]);
    expect(log[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect(log[0].lastError).toBe(
      'the URL points to ::ffff:7f00:1 (IPv4-mapped 127.0.0.1), a loopback address, which this workspace does not allow',
    );

    await allowPrivate(true);
    clock.set(Date.parse(log[0].nextAttemptAt));
    await jobs.runDue();
    log = await deliveries();
    expect(log[0]).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 200 });
    expect(rx.got).toHaveLength(1);
    expect(JSON.parse(rx.got[0]!.body)).toMatchObject({ type: 'message.received' });
  });

  it('checks the address it connects to at delivery, so DNS rebinding cannot reach loopback', async () => {
    const dns: Record<string, string> = { 'hooks.example.com': '93.184.216.34' };
    const clock = manualClock(Date.now());
    t = await makeCore({ clock, resolveHost: playDns(dns) });
    const key = t.key();
    const rx = await receiver([]);
    // Saved while private targets are disallowed: the name resolves to a public address now.
    const created = await t.request('POST', '/webhooks', {
      key,
      body: { url: `http://hooks.example.com:${rx.port}/hook`, events: ['message.received'] },
    });
    expect(created.status).toBe(201);

    dns['hooks.example.com'] = '127.0.0.1'; // the attacker's DNS answers differently later
    await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+14155552671', message: 'hi' },
    });
    await t.core.services.scheduler.runDue();
    const log = (await t.request('GET', `/webhooks/${created.body.id}/deliveries`, { key })).body
      .data;
    expect(log[0]).toMatchObject({ status: 'pending', attempts: 1 });
    expect(log[0].lastError).toBe(
      'the URL resolves to 127.0.0.1, a loopback address, which this workspace does not allow',
    );
    expect(rx.got).toEqual([]);

    // Allowed, the same delivery goes where the resolver points: the refusal was the guard's.
    await allowPrivate(true);
    clock.set(Date.parse(log[0].nextAttemptAt));
    await t.core.services.scheduler.runDue();
    expect(rx.got).toHaveLength(1);
    expect(rx.got[0]!.headers.host).toBe(`hooks.example.com:${rx.port}`);
  });

  it('sends Standard Webhooks headers that the standardwebhooks library verifies', async () => {
    const { clock, rx, hook, jobs } = await hooked([500, 200], ['message.received']);
    await jobs.runDue();
    clock.advance(10_000);
    await jobs.runDue();
    expect(rx.got).toHaveLength(2);

    const standard = (h: http.IncomingHttpHeaders) => ({
      'webhook-id': String(h['webhook-id']),
      'webhook-timestamp': String(h['webhook-timestamp']),
      'webhook-signature': String(h['webhook-signature']),
    });
    const receiverSide = new Webhook(hook.secret);
    for (const { headers, body } of rx.got) {
      const event = receiverSide.verify(body, standard(headers)) as { id: string; type: string };
      expect(event.type).toBe('message.received');
      expect(headers['webhook-id']).toBe(event.id);
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    const [first, retry] = rx.got as [(typeof rx.got)[0], (typeof rx.got)[0]];
    // The id is the event's, so a receiver dedupes the retry; the timestamp is the attempt's.
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(Number(retry.headers['webhook-timestamp'])).toBe(
      Number(first.headers['webhook-timestamp']) + 10,
    );
    // The existing X-Parley-Signature is still sent, over the same timestamp.
    expect(sign(hook.secret, Number(first.headers['webhook-timestamp']), first.body)).toBe(
      first.headers['x-parley-signature'],
    );

    const tampered = first.body.replace('"message.received"', '"message.read"');
    expect(tampered).not.toBe(first.body);
    expect(() => receiverSide.verify(tampered, standard(first.headers))).toThrow(
      /No matching signature/,
    );
    const otherSecret = `whsec_${'A'.repeat(40)}`;
    expect(() => new Webhook(otherSecret).verify(first.body, standard(first.headers))).toThrow();
  });

  it('refuses private-network targets unless the workspace allows them, and shows the secret once', async () => {
    t = await makeCore();
    const key = t.key();
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://192.168.1.1/x',
      'http://[::1]/x',
    ]) {
      const res = await t.request('POST', '/webhooks', { key, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.param).toBe('url');
    }
    expect(
      (await t.request('POST', '/webhooks', { key, body: { url: 'ftp://example.com' } })).status,
    ).toBe(400);
    await t.request('PATCH', '/api/workspace/settings', {
      session: 'test',
      body: { allowPrivateWebhooks: true },
    });
    const ok = await t.request('POST', '/webhooks', {
      key,
      body: { url: 'http://127.0.0.1:9/x', events: ['message.received'] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    const list = await t.request('GET', '/webhooks', { key });
    expect(list.body.data[0]).not.toHaveProperty('secret');
    expect(list.body.data[0].events).toEqual(['message.received']);
    expect((await t.request('DELETE', `/webhooks/${ok.body.id}`, { key })).body.success).toBe(true);
    expect((await t.request('GET', '/webhooks', { key })).body.data).toEqual([]);
  });

  it('signs deliveries so a real receiver can verify them, and retries with backoff until 2xx', async () => {
    const { clock, rx, hook, jobs, deliveries } = await hooked(
      [500, 503, 200],
      ['message.received'],
    );
    await jobs.runDue();
    let log = await deliveries();
    expect(log[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
      eventType: 'message.received',
    });
    const firstRetry = Date.parse(log[0].nextAttemptAt) - clock.now();
    expect(firstRetry).toBeGreaterThanOrEqual(5_000);
    expect(firstRetry).toBeLessThanOrEqual(10_000);
    clock.advance(firstRetry);
    await jobs.runDue();
    log = await deliveries();
    expect(log[0]).toMatchObject({ attempts: 2, lastStatusCode: 503 });
    const secondRetry = Date.parse(log[0].nextAttemptAt) - clock.now();
    expect(secondRetry).toBeGreaterThan(firstRetry); // exponential
    clock.advance(secondRetry);
    await jobs.runDue();
    log = await deliveries();
    expect(log[0]).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });

    expect(rx.got).toHaveLength(3);
    const { headers, body } = rx.got[2]!;
    const sig = String(headers['x-parley-signature']);
    const ts = Number(/t=(\d+)/.exec(sig)![1]);
    expect(sign(hook.secret, ts, body)).toBe(sig);
    expect(sign('whsec_wrong', ts, body)).not.toBe(sig);
    const event = JSON.parse(body);
    expect(event).toMatchObject({
      type: 'message.received',
      workspaceId: t.workspaceId,
      environment: 'test',
    });
    expect(headers['x-parley-event-id']).toBe(event.id);
    expect(new Set(rx.got.map((g) => JSON.parse(g.body).id)).size).toBe(1); // same event id on every retry
  });

  it('gives up after 3 days', async () => {
    const { clock, rx, jobs, deliveries } = await hooked(Array(100).fill(500));
    let log;
    for (let i = 0; i < 40; i++) {
      await jobs.runDue();
      log = await deliveries();
      if (log.every((d: { status: string }) => d.status !== 'pending')) break;
      clock.advance(6 * 3600_000);
    }
    expect(
      log.every(
        (d: { status: string; lastError: string }) =>
          d.status === 'failed' && /gave up after 3 days/.test(d.lastError),
      ),
    ).toBe(true);
    expect(rx.got.length).toBeGreaterThan(10);
  });

  it('keeps a pending retry across a restart', async () => {
    const { clock, rx, jobs, deliveries } = await hooked([500, 200], ['message.received']);
    await jobs.runDue();
    const dataDir = t.dataDir;
    await t.core.stop();
    t = await makeCore({ clock, dataDir });
    clock.advance(3600_000);
    await t.core.services.scheduler.runDue();
    const log = await deliveries();
    expect(log[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(rx.got).toHaveLength(2);
  });
});

it('each event goes to the subscriptions of its moment: made or deleted here, or by another process on the data dir', async () => {
  t = await makeCore();
  const key = t.key('test');
  await allowPrivate(true);
  const { db } = t.core.services;
  const inbound = (message: string) =>
    t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+14155552671', message },
    });
  const deliveriesOf = (webhookId: string) =>
    db
      .prepare(
        `SELECT e.type FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
         WHERE d.webhook_id = ? ORDER BY e.seq`,
      )
      .pluck()
      .all(webhookId);
  await inbound('before any webhook'); // the subscriptions (none) are read and kept
  const made = await t.request('POST', '/webhooks', {
    key,
    body: { url: 'http://127.0.0.1:9/a', events: ['message.received'] },
  });
  expect(made.status).toBe(201);
  await inbound('one');
  expect(deliveriesOf(made.body.id)).toEqual(['message.received']);

  // Another process (the CLI) adds one: its commit is seen at the next event.
  const other = new Database(path.join(t.dataDir, 'parley.db'));
  other.pragma('busy_timeout = 5000');
  other
    .prepare(
      `INSERT INTO webhooks (id, workspace_id, environment, url, secret, events, created_at)
       VALUES ('wh_other', ?, 'test', 'http://127.0.0.1:9/b', 'whsec_x', '["message.received"]', ?)`,
    )
    .run(t.workspaceId, Date.now());
  other.close();
  await inbound('two');
  expect(deliveriesOf('wh_other')).toEqual(['message.received']);

  expect((await t.request('DELETE', `/webhooks/${made.body.id}`, { key })).status).toBe(200);
  await inbound('three');
  expect(deliveriesOf(made.body.id)).toHaveLength(2);
  expect(deliveriesOf('wh_other')).toHaveLength(2);
});

describe('a delivery whose job died', () => {
  /** A process on the data dir, posing as another (a pid that has exited), whose call hangs. */
  const otherProcess = (n: number) => {
    const { db, clock } = t.core.services;
    const random = { bytes: (k: number) => Buffer.alloc(k, n) };
    const s = createScheduler(db, clock, random, processOwner(random, deadPid()), () => {});
    s.register('webhook.deliver', () => new Promise<void>(() => {}), { sync: false });
    return s;
  };

  it('a slow receiver’s delivery survives more deaths than the limit when each run lived; one that never did ends failed with the reason and is redelivered', async () => {
    const { clock, rx, hook, key, jobs, deliveries } = await hooked([], ['message.received']);
    // Seven processes in a row took the delivery, waited on the slow receiver long enough to
    // renew their lease, and were killed.
    for (let i = 1; i <= MAX_RECLAIMS + 2; i++) {
      const other = otherProcess(i);
      void other.runDue();
      clock.advance(RENEW_EVERY_MS);
      expect(other.renewLeases()).toBe(1);
      expect(jobs.reclaim()).toBe(1);
    }
    expect((await deliveries())[0]).toMatchObject({ status: 'pending' });
    await jobs.runDue();
    let log = await deliveries();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 200 });
    expect(rx.got).toHaveLength(1);

    // Another event; every process that takes its delivery dies before any sign of life.
    await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+14155552671', message: 'again' },
    });
    for (let i = 10; i < 10 + MAX_RECLAIMS; i++) {
      void otherProcess(i).runDue();
      expect(jobs.reclaim()).toBe(1);
    }
    log = await deliveries();
    expect(log[0]).toMatchObject({
      status: 'failed',
      lastError: `the process running it died ${MAX_RECLAIMS} times`,
      nextAttemptAt: null,
    });
    const dead = log[0];
    expect(
      t.core.db.prepare("SELECT count(*) FROM jobs WHERE status = 'queued'").pluck().get(),
    ).toBe(0);

    // Another scope cannot see it; an unknown delivery is not found.
    const url = `/webhooks/${hook.id}/deliveries/${dead.id}/redeliver`;
    expect((await t.request('POST', url, { key: t.key('live') })).status).toBe(404);
    const unknown = await t.request('POST', `/webhooks/${hook.id}/deliveries/whd_nope/redeliver`, {
      key,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', param: 'deliveryId' });

    // Redelivered: a new delivery of the same event, sent at once.
    const again = await t.request('POST', url, { key });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({
      eventId: dead.eventId,
      eventType: 'message.received',
      status: 'pending',
      attempts: 0,
    });
    expect(again.body.id).not.toBe(dead.id);
    // While it is pending, pressing again sends that one now: no second delivery of the event.
    const pending = await t.request(
      'POST',
      `/webhooks/${hook.id}/deliveries/${again.body.id}/redeliver`,
      { key },
    );
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ id: again.body.id, status: 'pending' });
    await jobs.runDue();
    log = await deliveries();
    expect(log.map((d: { id: string; status: string }) => [d.id, d.status]).slice(0, 2)).toEqual([
      [again.body.id, 'succeeded'],
      [dead.id, 'failed'],
    ]);
    expect(rx.got).toHaveLength(2);
    expect(JSON.parse(rx.got[1]!.body).id).toBe(dead.eventId);
    expect(rx.got[1]!.headers['webhook-id']).toBe(dead.eventId);
  });

  it('Redeliver sends a delivery waiting for its next try now, and refuses one whose attempt is under way', async () => {
    const { clock, rx, hook, key, jobs, deliveries } = await hooked([500], ['message.received']);
    await jobs.runDue();
    const [waiting] = await deliveries();
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500 });
    expect(Date.parse(waiting.nextAttemptAt)).toBeGreaterThan(clock.now());

    const url = (id: string) => `/webhooks/${hook.id}/deliveries/${id}/redeliver`;
    const now = await t.request('POST', url(waiting.id), { key });
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({
      id: waiting.id,
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(clock.now()).toISOString(),
    });
    await jobs.runDue(); // the clock has not moved: it went because it was asked to
    expect((await deliveries())[0]).toMatchObject({
      id: waiting.id,
      status: 'succeeded',
      attempts: 2,
    });
    expect(rx.got).toHaveLength(2);

    // Another event, whose delivery another process is sending now (the receiver is slow).
    await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+14155552671', message: 'again' },
    });
    void otherProcess(1).runDue();
    const [sending] = await deliveries();
    const busy = await t.request('POST', url(sending.id), { key });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({
      code: 'invalid_state',
      message: `delivery ${sending.id} of this event is being sent right now: its answer is on its way`,
      details: { status: 'pending', pendingDeliveryId: sending.id },
    });
    expect(await deliveries()).toHaveLength(2);
  });

  it('retention fails a pending delivery whose job is gone, so nothing stays pending forever', async () => {
    const { clock, deliveries } = await hooked([], ['message.received']);
    // What an earlier version left: the job buried without a dead handler.
    t.core.db.prepare("DELETE FROM jobs WHERE kind = 'webhook.deliver'").run();
    t.core.services.retention.pruneOnce();
    expect((await deliveries())[0]).toMatchObject({ status: 'pending' }); // young: left alone
    clock.advance(2 * 3600_000);
    t.core.services.retention.pruneOnce();
    expect((await deliveries())[0]).toMatchObject({
      status: 'failed',
      lastError: expect.stringContaining('its delivery job was lost'),
    });
  });
});

describe('the webhooks screen’s API: the log, PATCH, redelivery', () => {
  type Delivery = {
    id: string;
    eventId: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    lastError: string | null;
    lastAttemptAt: string | null;
    responseExcerpt: string | null;
    responseTruncated: boolean;
    nextAttemptAt: string | null;
  };
  const inbound = (key: string, message: string) =>
    t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+14155552671', message },
    });

  it('keeps when each try ran and the first 1 KiB of the answer, filters by status, pages, and shows each webhook’s newest delivery', async () => {
    // 1 + 511 two-byte characters fill 1023 bytes: the 1024th is half of the next one.
    const long = `a${'é'.repeat(600)}`;
    const { clock, key, hook, jobs, deliveries } = await hooked(
      [{ status: 500, body: long }, { status: 200, body: 'ok' }, 503],
      ['message.received'],
    );
    const firstTry = clock.now();
    await jobs.runDue();
    let log: Delivery[] = await deliveries();
    expect(log[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'the receiver answered HTTP 500',
      lastAttemptAt: new Date(firstTry).toISOString(),
      responseExcerpt: `a${'é'.repeat(511)}`,
      responseTruncated: true,
    });
    clock.set(Date.parse(log[0]!.nextAttemptAt!));
    await jobs.runDue();
    log = await deliveries();
    expect(log[0]).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
      lastAttemptAt: new Date(clock.now()).toISOString(),
      responseExcerpt: 'ok',
      responseTruncated: false,
      nextAttemptAt: null,
    });

    // A second event, whose delivery the receiver refuses: one of each status to filter.
    await inbound(key, 'again');
    await jobs.runDue();
    const url = `/webhooks/${hook.id}/deliveries`;
    const only = async (query: string) =>
      ((await t.request('GET', `${url}?${query}`, { key })).body.data as Delivery[]).map((d) => [
        d.status,
        d.lastStatusCode,
      ]);
    expect(await only('status=pending')).toEqual([['pending', 503]]);
    expect(await only('status=succeeded')).toEqual([['succeeded', 200]]);
    expect(await only('status=failed')).toEqual([]);
    const bad = await t.request('GET', `${url}?status=lost`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error' });

    const first = await t.request('GET', `${url}?limit=1`, { key });
    expect(first.body.data.map((d: Delivery) => d.status)).toEqual(['pending']);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await t.request('GET', `${url}?limit=1&cursor=${first.body.nextCursor}`, {
      key,
    });
    expect(second.body.data.map((d: Delivery) => d.status)).toEqual(['succeeded']);
    expect(second.body.nextCursor).toBeNull();

    const newest = {
      id: first.body.data[0].id,
      eventType: 'message.received',
      status: 'pending',
      lastStatusCode: 503,
      lastAttemptAt: expect.any(String),
    };
    const listed = (await t.request('GET', '/webhooks', { key })).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: hook.id, enabled: true })]);
    expect(listed[0].lastDelivery).toMatchObject(newest);
    const one = await t.request('GET', `/webhooks/${hook.id}`, { key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: hook.id, url: hook.url, lastDelivery: newest });
    expect(one.body).not.toHaveProperty('secret');
    expect((await t.request('GET', `/webhooks/${hook.id}`, { key: t.key('live') })).status).toBe(
      404,
    );
  });

  it('disabling ends the pending deliveries and makes no new ones; redelivery waits for it to be enabled, sends a waiting one rather than the event twice, and is audited', async () => {
    const { clock, key, hook, rx, jobs, deliveries } = await hooked([500], ['message.received']);
    await jobs.runDue();
    const [pending] = (await deliveries()) as Delivery[];
    expect(pending).toMatchObject({ status: 'pending', lastStatusCode: 500 });

    const off = await t.request('PATCH', `/webhooks/${hook.id}`, { key, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: hook.id, enabled: false });
    const [ended] = (await deliveries()) as Delivery[];
    expect(ended).toMatchObject({
      id: pending!.id,
      status: 'failed',
      attempts: 1,
      lastStatusCode: 500,
      nextAttemptAt: null,
      lastError:
        'the webhook was disabled before it was delivered; redeliver it once the webhook is enabled',
    });
    // Its job, due by now, finds it ended; a new event makes no delivery.
    clock.set(Date.parse(pending!.nextAttemptAt!));
    await jobs.runDue();
    await inbound(key, 'while off');
    await jobs.runDue();
    expect(rx.got).toHaveLength(1);
    expect(await deliveries()).toHaveLength(1);

    const url = `/webhooks/${hook.id}/deliveries/${ended!.id}/redeliver`;
    const refused = await t.request('POST', url, { key });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_state',
      message: `webhook ${hook.id} is disabled: enable it to redeliver`,
    });

    const on = await t.request('PATCH', `/webhooks/${hook.id}`, { key, body: { enabled: true } });
    expect(on.body.enabled).toBe(true);
    const again = await t.request('POST', url, { key });
    expect(again.status).toBe(201);
    // A second press while the first redelivery waits sends that one: no second delivery.
    const twice = await t.request('POST', url, { key });
    expect(twice.status).toBe(200);
    expect(twice.body).toMatchObject({ id: again.body.id, status: 'pending' });
    await jobs.runDue();
    const log = (await deliveries()) as Delivery[];
    expect(log.map((d) => [d.id, d.status])).toEqual([
      [again.body.id, 'succeeded'],
      [ended!.id, 'failed'],
    ]);
    // The same event, signed the same way.
    expect(rx.got).toHaveLength(2);
    const [first, redelivered] = rx.got as [(typeof rx.got)[0], (typeof rx.got)[0]];
    expect(redelivered.body).toBe(first.body);
    const verified = new Webhook(hook.secret).verify(redelivered.body, {
      'webhook-id': String(redelivered.headers['webhook-id']),
      'webhook-timestamp': String(redelivered.headers['webhook-timestamp']),
      'webhook-signature': String(redelivered.headers['webhook-signature']),
    }) as { id: string };
    expect(verified.id).toBe(ended!.eventId);

    // Enabled again, new events are delivered.
    await inbound(key, 'back on');
    expect(await deliveries()).toHaveLength(3);

    const trail = await t.request('GET', '/audit?action=webhook.', { session: 'test' });
    expect(trail.status).toBe(200);
    expect(
      (trail.body.data as { action: string; target: { id: string } }[]).map((e) => [
        e.action,
        e.target.id,
      ]),
    ).toEqual([
      ['webhook.redelivered', hook.id],
      ['webhook.redelivered', hook.id],
      ['webhook.enabled', hook.id],
      ['webhook.disabled', hook.id],
      ['webhook.created', hook.id],
    ]);
  });

  it('PATCH changes the events and the URL under the rules of create; the next event follows them', async () => {
    const clock = manualClock(Date.now());
    t = await makeCore({ clock });
    const key = t.key();
    const rx = await receiver([]);
    await allowPrivate(true);
    const made = await t.request('POST', '/webhooks', {
      key,
      body: { url: rx.url, events: ['conversation.created'], description: 'CRM' },
    });
    const id = made.body.id as string;
    const patch = (body: unknown, k = key) =>
      t.request('PATCH', `/webhooks/${id}`, { key: k, body });
    const types = async () =>
      (
        (await t.request('GET', `/webhooks/${id}/deliveries`, { key })).body.data as {
          eventType: string;
        }[]
      ).map((d) => d.eventType);

    await inbound(key, 'first');
    expect(await types()).toEqual(['conversation.created']);
    const changed = await patch({ events: ['message.received', 'message.received'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ events: ['message.received'], description: 'CRM' });
    await inbound(key, 'second');
    expect(await types()).toEqual(['message.received', 'conversation.created']);
    expect((await patch({ events: null, description: null })).body).toMatchObject({
      events: null,
      description: null,
    });

    for (const body of [{}, { events: [] }, { events: ['order.paid'] }, { url: 'ftp://x.test' }]) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await patch({ enabled: false }, t.key('live'))).status).toBe(404);
    expect(
      (await t.request('PATCH', '/webhooks/wh_nope', { key, body: { enabled: false } })).status,
    ).toBe(404);

    await allowPrivate(false);
    const refused = await patch({ url: 'http://192.168.1.20/hook' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      param: 'url',
      message:
        'the URL points to 192.168.1.20, a private address, which this workspace does not allow; an admin can allow private addresses under Settings → Workspace → Webhooks',
    });
    const moved = await patch({ url: 'https://8.8.8.8/hooks' });
    expect(moved.body).toMatchObject({ url: 'https://8.8.8.8/hooks', enabled: true });
    expect(moved.body).not.toHaveProperty('secret');
  });
});
