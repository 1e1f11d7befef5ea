import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../main/core/modules/webhooks/service.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await t?.close();
});

interface SseEvent {
  id: string;
  event: string;
  data: { id: string; type: string; environment: string; data: Record<string, unknown> };
}

/** Reads an SSE stream with fetch until `count` events (or `until` is true), then aborts. */
async function readEvents(
  url: string,
  headers: Record<string, string>,
  count: number,
  onOpen?: () => Promise<void> | void,
): Promise<{ events: SseEvent[]; comments: string[] }> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  const opened = onOpen?.();
  const deadline = Date.now() + 10_000;
  while (events.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let i;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        const m = /^(\w+): ?(.*)$/.exec(line);
        if (m) fields[m[1]!] = m[2]!;
      }
      if (fields.event)
        events.push({ id: fields.id!, event: fields.event, data: JSON.parse(fields.data!) });
    }
  }
  await opened;
  controller.abort();
  return { events, comments };
}

async function listening(opts: Parameters<typeof makeCore>[0] = {}) {
  t = await makeCore(opts);
  const { url } = await t.core.start({ port: 0 });
  return url;
}

describe('GET /events (SSE)', () => {
  it('streams events of its scope only, filtered by ?types=', async () => {
    const url = await listening();
    const key = t.key('test');
    const live = t.key('live');
    const { events } = await readEvents(
      `${url}/events?types=message.received`,
      { 'x-api-key': key },
      2,
      async () => {
        await t.request('POST', '/api/simulator/inbound', {
          key,
          body: { phone: '+14155552671', message: 'one' },
        });
        await t.request('POST', '/api/templates', {
          key,
          body: {
            name: 'x',
            category: 'UTILITY',
            language: 'en',
            components: [{ type: 'BODY', text: 'b' }],
          },
        });
        await t.request('POST', '/api/templates', {
          key: live,
          body: {
            name: 'y',
            category: 'UTILITY',
            language: 'en',
            components: [{ type: 'BODY', text: 'b' }],
          },
        });
        await t.request('POST', '/api/simulator/inbound', {
          key,
          body: { phone: '+14155552672', message: 'two' },
        });
      },
    );
    expect(events.map((e) => e.event)).toEqual(['message.received', 'message.received']);
    expect(events.map((e) => (e.data.data.message as { text: string }).text)).toEqual([
      'one',
      'two',
    ]);
    expect(events[0]!.data).toMatchObject({
      type: 'message.received',
      environment: 'test',
      workspaceId: t.workspaceId,
    });
    expect(events[0]!.data.id).toMatch(/^evt_/);
    expect(Number(events[1]!.id)).toBeGreaterThan(Number(events[0]!.id));
  });

  it('resumes after Last-Event-ID without gaps or duplicates', async () => {
    const url = await listening();
    const key = t.key();
    for (let i = 0; i < 5; i++) {
      await t.request('POST', '/api/simulator/inbound', {
        key,
        body: { phone: '+14155552671', message: `m${i}` },
      });
    }
    const all = await readEvents(
      `${url}/events?types=message.received`,
      { 'x-api-key': key, 'last-event-id': '0' },
      5,
    );
    expect(all.events.map((e) => (e.data.data.message as { text: string }).text)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
    ]);
    const resumed = await readEvents(
      `${url}/events?types=message.received`,
      { 'x-api-key': key, 'last-event-id': all.events[2]!.id },
      3,
      () =>
        t
          .request('POST', '/api/simulator/inbound', {
            key,
            body: { phone: '+14155552671', message: 'm5' },
          })
          .then(() => {}),
    );
    expect(resumed.events.map((e) => (e.data.data.message as { text: string }).text)).toEqual([
      'm3',
      'm4',
      'm5',
    ]);
  });

  it('sends heartbeats, refuses bad filters and needs a key', async () => {
    const url = await listening({ heartbeatMs: 30 });
    const key = t.key();
    const controller = new AbortController();
    const res = await fetch(`${url}/events`, {
      headers: { 'x-api-key': key },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': ping')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(
      (await fetch(`${url}/events?types=nope`, { headers: { 'x-api-key': key } })).status,
    ).toBe(400);
    expect((await fetch(`${url}/events`)).status).toBe(401);
  });
});

describe('webhooks', () => {
  async function receiver(answers: number[]) {
    const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(answers.shift() ?? 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
  }

  /** A core on a manual clock, a local receiver answering `answers`, a webhook on it, one inbound message. */
  async function hooked(answers: number[], events?: string[]) {
    const clock = manualClock(Date.now());
    t = await makeCore({ clock });
    const key = t.key();
    const rx = await receiver(answers);
    await t.request('PATCH', '/api/workspace/settings', {
      session: 'test',
      body: { allowPrivateWebhooks: true },
    });
    const hook = (
      await t.request('POST', '/webhooks', {
        key,
        body: { url: rx.url, ...(events ? { events } : {}) },
      })
    ).body;
    await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+14155552671', message: 'hi' },
    });
    const deliveries = async () =>
      (await t.request('GET', `/webhooks/${hook.id}/deliveries`, { key })).body.data;
    return { clock, key, rx, hook, jobs: t.core.services.scheduler, deliveries };
  }

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
