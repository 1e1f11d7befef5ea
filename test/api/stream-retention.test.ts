import http from 'node:http';
import type { Message } from '../../shared/schemas/messages.ts';
import { afterEach, expect, it } from 'vitest';
import {
  DEFAULT_RETENTION,
  PRUNE_BATCH,
  retentionFromEnv,
} from '../../main/core/jobs/retention.ts';
import { MAX_STREAMS_PER_CREDENTIAL } from '../../main/core/modules/events/routes.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';
import { readEvents } from '../sse.ts';

let t: TestCore;
afterEach(async () => {
  await t?.close();
});

const DAY = 24 * 3600_000;

/** Reads `count` SSE frames (event name + id), then closes the stream. */
const frames = async (
  url: string,
  headers: Record<string, string>,
  count: number,
  onOpen?: () => Promise<unknown>,
  deadlineMs?: number,
) =>
  (
    await readEvents(
      url,
      headers,
      count,
      onOpen &&
        (async () => {
          await onOpen();
        }),
      deadlineMs,
    )
  ).events;

const inbound = (key: string, phone: string, message: string) =>
  t.request('POST', '/api/simulator/inbound', { key, body: { phone, message } });

it('prunes old events, finished deliveries, dead jobs and spent idempotency keys in small batches', async () => {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const { db, retention } = t.core.services;
  await inbound(key, '+14155552671', 'old');
  const oldSeq = db.prepare('SELECT max(seq) FROM events').pluck().get() as number;
  // A finished and a pending delivery of old events; a dead job; an idempotency key.
  db.prepare(
    `INSERT INTO webhooks (id, workspace_id, environment, url, secret, created_at) VALUES ('wh_1', ?, 'test', 'https://example.com', 's', ?)`,
  ).run(t.workspaceId, clock.now());
  db.prepare(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_seq, status, created_at) VALUES ('whd_1', 'wh_1', ?, 'succeeded', ?), ('whd_2', 'wh_1', 1, 'pending', ?)`,
  ).run(oldSeq, clock.now(), clock.now());
  // The pending one's job, queued for later (a pending delivery without one is failed).
  db.prepare(
    `INSERT INTO jobs (kind, payload, run_at, created_at) VALUES ('webhook.deliver', '{"deliveryId":"whd_2"}', ?, ?)`,
  ).run(clock.now() + 365 * DAY, clock.now());
  db.prepare(
    `INSERT INTO jobs (kind, payload, run_at, status, created_at) VALUES ('x', '{}', ?, 'dead', ?)`,
  ).run(clock.now(), clock.now());
  await t.request('POST', '/api/contacts', {
    key,
    headers: { 'idempotency-key': 'a' },
    body: { phone: '+14155552672' },
  });

  clock.advance(8 * DAY); // dead jobs (7 days) and keys (24 h) go; events (30 days) stay
  retention.pruneOnce();
  expect(db.prepare("SELECT count(*) FROM jobs WHERE status = 'dead'").pluck().get()).toBe(0);
  expect(db.prepare('SELECT count(*) FROM idempotency_keys').pluck().get()).toBe(0);
  expect(db.prepare('SELECT count(*) FROM events WHERE seq <= ?').pluck().get(oldSeq)).toBe(oldSeq);

  clock.advance(23 * DAY);
  await inbound(key, '+14155552671', 'new');
  retention.pruneOnce();
  // Old events went, except the one a pending delivery still needs; new ones stay.
  expect(db.prepare('SELECT seq FROM events WHERE seq <= ?').pluck().all(oldSeq)).toEqual([1]);
  expect(
    db.prepare("SELECT id FROM webhook_deliveries WHERE id IN ('whd_1', 'whd_2')").pluck().all(),
  ).toEqual(['whd_2']);
  expect(db.prepare('SELECT count(*) FROM events WHERE seq > ?').pluck().get(oldSeq)).toBe(
    (db.prepare('SELECT max(seq) FROM events').pluck().get() as number) - oldSeq,
  );
  expect(retention.prunedThrough()).toBe(oldSeq);
});

it('answers a Last-Event-ID older than retention, or ahead of the stream, with stream.reset', async () => {
  const clock = manualClock();
  t = await makeCore({ clock });
  const { url } = await t.core.start({ port: 0 });
  const key = t.key('test');
  await inbound(key, '+14155552671', 'one');
  clock.advance(31 * DAY);
  await inbound(key, '+14155552671', 'two');
  t.core.services.retention.pruneOnce();
  const head = String(t.core.db.prepare('SELECT max(seq) FROM events').pluck().get());

  const expired = await frames(`${url}/events`, { 'x-api-key': key, 'last-event-id': '1' }, 1);
  expect(expired[0]).toMatchObject({
    event: 'stream.reset',
    id: head,
    data: { reason: 'expired', lastEventId: '1', resumeFrom: head },
  });

  const got = await frames(
    `${url}/events`,
    { 'x-api-key': key, 'last-event-id': '999999' },
    2,
    () => inbound(key, '+14155552671', 'three'),
  );
  expect(got[0]).toMatchObject({ event: 'stream.reset', data: { reason: 'ahead' } });
  // Then it follows from the head: the next event is the new one, not a gap or a replay.
  expect(Number(got[1]!.id)).toBe(Number(head) + 1);

  // A resume point that is still kept replays normally.
  const kept = await frames(
    `${url}/events`,
    { 'x-api-key': key, 'last-event-id': String(Number(head) - 1) },
    1,
  );
  expect(kept[0]!.id).toBe(head);
  expect(kept[0]!.event).not.toBe('stream.reset');
});

it('answers HEAD /events, caps streams per key, and cuts off a reader that stops reading', async () => {
  // A reader that takes nothing for two heartbeats is cut: short heartbeats keep the test short.
  t = await makeCore({ heartbeatMs: 200 });
  const { url } = await t.core.start({ port: 0 });
  const key = t.key('test');
  const head = await fetch(`${url}/events`, {
    method: 'HEAD',
    headers: { 'x-api-key': key },
    signal: AbortSignal.timeout(2000),
  });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-type')).toMatch(/text\/event-stream/);

  // A reader that never reads: its socket fills, then the server drops it.
  const port = new URL(url).port;
  const paused = await new Promise<http.IncomingMessage>((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/events', headers: { 'x-api-key': key } }, (res) => {
      res.pause();
      resolve(res);
    });
  });
  // Others keep streaming meanwhile.
  const streams: AbortController[] = [];
  for (let i = 0; i < MAX_STREAMS_PER_CREDENTIAL - 1; i++) {
    const c = new AbortController();
    streams.push(c);
    const res = await fetch(`${url}/events`, { headers: { 'x-api-key': key }, signal: c.signal });
    expect(res.status).toBe(200);
    void res.body!.pipeTo(new WritableStream()).catch(() => {});
  }
  const over = await fetch(`${url}/events`, { headers: { 'x-api-key': key } });
  expect(over.status).toBe(429);
  expect((await over.json()).error.code).toBe('rate_limited');

  const { outbox, db, hub } = t.core.services;
  const big = 'x'.repeat(60_000);
  const scope = { workspaceId: t.workspaceId, environment: 'test' as const };
  // Events keep coming until the stalled reader is cut: once the kernel's buffers are full it
  // takes nothing, and two heartbeats later (400 ms here) the server ends its stream.
  for (let round = 0; round < 400 && hub.readers() === MAX_STREAMS_PER_CREDENTIAL; round++) {
    db.transaction(() => {
      for (let i = 0; i < 20; i++)
        outbox.emit(scope, 'message.note', { message: { text: big } as Message });
    })();
    await new Promise((r) => setTimeout(r, 20));
  }
  // Only the stalled reader was cut; the others, which read, keep their streams.
  expect(hub.readers()).toBe(MAX_STREAMS_PER_CREDENTIAL - 1);
  paused.destroy();
  // Its slot is free again.
  const again = new AbortController();
  const res = await fetch(`${url}/events`, { headers: { 'x-api-key': key }, signal: again.signal });
  expect(res.status).toBe(200);
  again.abort();
  streams.forEach((c) => c.abort());
});

it('replays a long backlog in batches: the core stays responsive, and nothing is lost or doubled', async () => {
  t = await makeCore();
  const { url } = await t.core.start({ port: 0 });
  const key = t.key('test');
  const { outbox, db } = t.core.services;
  const scope = { workspaceId: t.workspaceId, environment: 'test' as const };
  const emit = (n: number) =>
    db.transaction(() => {
      for (let i = 0; i < n; i++)
        outbox.emit(scope, 'message.note', { message: { text: 'x'.repeat(500) } as Message });
    })();
  emit(30_000);
  // Measure the longest stall of the event loop while the backlog is replayed.
  let last = Date.now();
  let worst = 0;
  const ticker = setInterval(() => {
    worst = Math.max(worst, Date.now() - last);
    last = Date.now();
  }, 5);
  const total = 30_000 + 200;
  // New events arrive while it catches up (the server has subscribed once it answers).
  const got = await frames(
    `${url}/events`,
    { 'x-api-key': key, 'last-event-id': '0' },
    total,
    async () => emit(200),
    30_000,
  );
  clearInterval(ticker);
  expect(got).toHaveLength(total);
  expect(got.map((f) => Number(f.id))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  expect(worst).toBeLessThan(250);
});

it('prunes a large backlog a batch at a time, coming back a second later while any is left', async () => {
  const clock = manualClock();
  t = await makeCore({ clock });
  const { db, retention, scheduler } = t.core.services;
  const insert = db.prepare(
    `INSERT INTO events (id, workspace_id, environment, type, data, created_at) VALUES (?, ?, 'test', 'message.note', '{}', ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < PRUNE_BATCH * 2 + 10; i++)
      insert.run(`evt_b${i}`, t.workspaceId, clock.now());
  })();
  clock.advance(31 * DAY);
  retention.ensureScheduled();
  await scheduler.runDue();
  const left = () => db.prepare('SELECT count(*) FROM events').pluck().get() as number;
  expect(left()).toBe(PRUNE_BATCH + 10);
  const next = () =>
    db.prepare("SELECT run_at - ? FROM jobs WHERE kind = 'store.prune'").pluck().get(clock.now());
  expect(next()).toBe(1000);
  clock.advance(1000);
  await scheduler.runDue();
  clock.advance(1000);
  await scheduler.runDue();
  expect(left()).toBe(0);
  expect(next()).toBe(3600_000); // nothing left: an hour
});

it('sweeps every table that grows, each by its setting: business events after the dedupe day, ended runs, transactional email bodies', async () => {
  const clock = manualClock();
  t = await makeCore({
    clock,
    retention: { ...DEFAULT_RETENTION, workflowRunsDays: 10, emailBodiesDays: 5 },
  });
  const key = t.key('test');
  const { db, retention } = t.core.services;
  const count = (sql: string) => db.prepare(sql).pluck().get() as number;
  // A business event with a dedupeKey (and its payload), and a workflow run that ends at once.
  const wf = await t.request('POST', '/workflows', {
    key,
    body: {
      name: 'Ends',
      trigger: { type: 'event', event: 'order.paid' },
      steps: [{ id: 'stop', type: 'end' }],
    },
  });
  expect(wf.status).toBe(201);
  const post = () =>
    t.request('POST', '/api/events', {
      key,
      body: { event: 'order.paid', phone: '+14155552671', payload: { big: 'x' }, dedupeKey: 'k1' },
    });
  const first = (await post()).body;
  expect(first.runs).toHaveLength(1);
  await t.core.services.scheduler.runDue();
  expect(count("SELECT count(*) FROM workflow_runs WHERE status = 'completed'")).toBe(1);
  // A transactional email that has left, with its body.
  const sent = await t.request('POST', '/v1/email/send', {
    key,
    body: { to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>', fromEmail: 'a@b.example' },
  });
  expect(sent.status).toBeLessThan(300);
  db.prepare("UPDATE email_messages SET status = 'delivered'").run();

  // Within the dedupe day: the business event stays (a repeat is still recognised).
  clock.advance(23 * 3600_000);
  retention.pruneOnce();
  expect(count('SELECT count(*) FROM business_events')).toBe(1);
  expect((await post()).body).toEqual({ ...first, duplicate: true });
  clock.advance(2 * 3600_000);
  retention.pruneOnce();
  expect(count('SELECT count(*) FROM business_events')).toBe(0);
  expect(count('SELECT count(*) FROM email_messages WHERE html IS NOT NULL')).toBe(1);

  clock.advance(5 * DAY);
  retention.pruneOnce();
  // The body went; the record (status, tracking) stays.
  expect(db.prepare('SELECT status, html, text FROM email_messages').all()).toEqual([
    { status: 'delivered', html: null, text: null },
  ]);
  expect(count('SELECT count(*) FROM workflow_runs')).toBe(1);

  clock.advance(5 * DAY);
  retention.pruneOnce();
  expect(count('SELECT count(*) FROM workflow_runs')).toBe(0);
  expect(count('SELECT count(*) FROM workflow_run_steps')).toBe(0);
  expect(retentionFromEnv({ PARLEY_RETENTION_WORKFLOW_RUNS_DAYS: '3' }).workflowRunsDays).toBe(3);
  expect(() => retentionFromEnv({ PARLEY_RETENTION_BUSINESS_EVENTS_DAYS: '0.5' })).toThrow(
    /at least 1 day/,
  );
});

it('catches a reader up after a burst from the latest events in memory: each once, in order', async () => {
  t = await makeCore();
  const { url } = await t.core.start({ port: 0 });
  const key = t.key('test');
  const { outbox, db } = t.core.services;
  const scope = { workspaceId: t.workspaceId, environment: 'test' as const };
  // A reader that stops reading while a burst goes by: more than the kernel's buffers and the
  // stream's own hold, so the hub stops writing it live and catches it up as it drains.
  const paused = await new Promise<http.IncomingMessage>((resolve) => {
    const port = new URL(url).port;
    http.get({ host: '127.0.0.1', port, path: '/events', headers: { 'x-api-key': key } }, (res) => {
      res.pause();
      resolve(res);
    });
  });
  const total = 4_000;
  const text = 'x'.repeat(5_000);
  for (let round = 0; round < total / 200; round++) {
    db.transaction(() => {
      for (let i = 0; i < 200; i++)
        outbox.emit(scope, 'message.note', { message: { text } as Message });
    })();
    await new Promise((r) => setTimeout(r, 5));
  }
  // The hub has read them all (its writes follow commits at most every 20 ms); then the store
  // no longer has them (as if pruned): what the reader is sent now comes from memory.
  t.core.services.hub.flush();
  const first = db.prepare('SELECT min(seq) FROM events').pluck().get() as number;
  db.prepare('DELETE FROM events').run();
  const ids: number[] = [];
  await new Promise<void>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${ids.length} of ${total} events`)), 20_000);
    paused.setEncoding('utf8');
    paused.on('data', (chunk: string) => {
      buffered += chunk;
      const frames = buffered.split('\n\n');
      buffered = frames.pop()!;
      for (const f of frames) {
        const id = /^id: (\d+)$/m.exec(f)?.[1];
        if (id) ids.push(Number(id));
      }
      if (ids.length >= total) {
        clearTimeout(timer);
        resolve();
      }
    });
    paused.resume();
  });
  paused.destroy();
  expect(ids).toEqual(Array.from({ length: total }, (_, i) => first + i));
}, 30_000);
