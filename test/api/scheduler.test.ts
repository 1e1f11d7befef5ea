import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type {
  ChannelMessage,
  DeliveryOutcome,
  RemoteChannel,
} from '../../main/core/channel/types.ts';
import { openStore } from '../../main/core/core.ts';
import { processOwner } from '../../main/core/jobs/owner.ts';
import type { JobKind } from '../../main/core/jobs/payloads.ts';
import { createScheduler, MAX_RECLAIMS, RENEW_EVERY_MS } from '../../main/core/jobs/scheduler.ts';
import { RESEND_AFTER_MS } from '../../main/core/modules/messages/service.ts';
import type { TestCore } from '../helpers.ts';
import { deadPid, makeCore, manualClock, tempDir } from '../helpers.ts';

const cores: TestCore[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const c of cores.splice(0)) await c.close();
});

const fixed = { bytes: (n: number) => Buffer.alloc(n, 7) };

async function approvedTemplate(t: TestCore, key: string) {
  const res = await t.request('POST', '/api/templates', {
    key,
    body: {
      name: 'notice',
      category: 'UTILITY',
      language: 'en',
      components: [{ type: 'BODY', text: 'Notice {{1}}' }],
    },
  });
  t.core.services.templates.decide(
    { workspaceId: t.workspaceId, environment: 'test' },
    res.body.template.id,
    'approve',
  );
}

const sendTo = (t: TestCore, key: string, phone: string) =>
  t.request('POST', '/api/send', {
    key,
    body: { phone, templateName: 'notice', variables: { '1': 'x' } },
  });

it('a webhook receiver that never answers does not hold up dispatch: sent lands within 200 ms', async () => {
  // A receiver that accepts connections and never answers them.
  const hang = http.createServer(() => {});
  servers.push(hang);
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  const port = (hang.address() as AddressInfo).port;

  const t = await makeCore();
  cores.push(t);
  await t.core.start({ port: 0 });
  const key = t.key('test');
  await t.request('PATCH', '/api/workspace/settings', {
    session: 'test',
    body: { allowPrivateWebhooks: true },
  });
  expect(
    (await t.request('POST', '/webhooks', { key, body: { url: `http://127.0.0.1:${port}/x` } }))
      .status,
  ).toBe(201);
  await approvedTemplate(t, key);

  const lags: number[] = [];
  for (let i = 0; i < 12; i++) {
    const started = Date.now();
    const res = await sendTo(t, key, `+1415555${String(2600 + i)}`);
    expect(res.status).toBe(200);
    const phone = res.body.data.phone as string;
    for (let k = 0; k < 200; k++) {
      const m = await t.request('GET', `/messages?phone=${encodeURIComponent(phone)}`, { key });
      // The send is there from the start: only its leaving `accepted` ends the wait.
      expect(m.body.data[0]).toBeDefined();
      if (m.body.data[0].status !== 'accepted') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    lags.push(Date.now() - started);
  }
  // Meanwhile the webhook lane is busy with deliveries that hang.
  const hanging = t.core.db
    .prepare("SELECT count(*) FROM jobs WHERE kind = 'webhook.deliver' AND lease_owner IS NOT NULL")
    .pluck()
    .get() as number;
  expect(hanging).toBeGreaterThan(0);
  expect(Math.max(...lags)).toBeLessThan(200);

  // Shutting down does not wait out the hanging calls, and a cut call is not an attempt.
  const stopping = Date.now();
  await t.core.stop();
  expect(Date.now() - stopping).toBeLessThan(2000);
  const store = openStore({ dataDir: t.dataDir });
  const jobs = store.db
    .prepare("SELECT attempts, lease_owner FROM jobs WHERE kind = 'webhook.deliver'")
    .all() as { attempts: number; lease_owner: string | null }[];
  store.close();
  expect(jobs.length).toBeGreaterThan(0);
  expect(jobs.every((j) => j.attempts === 0 && j.lease_owner === null)).toBe(true);
});

it('a restarted core takes back a dead process’s leases at once, and the cut run does not count', async () => {
  const t = await makeCore();
  cores.push(t);
  const { scheduler, db } = t.core.services;
  const seen: number[] = [];
  scheduler.register(
    'test.net',
    async (_p, ctx) => {
      seen.push(ctx.attempt);
    },
    { sync: false, maxAttempts: 1 },
  );
  scheduler.enqueue('test.net', {});
  // A process that claimed the job and was killed before the answer.
  const dead = processOwner(fixed, deadPid());
  db.prepare('UPDATE jobs SET lease_until = ?, lease_owner = ?').run(Date.now() + 60_000, dead.id);
  expect(await scheduler.runDue()).toBe(0); // leased: not due
  expect(scheduler.reclaim()).toBe(1);
  expect(await scheduler.runDue()).toBe(1);
  // It ran as a first attempt: maxAttempts 1 and it still ran, because the cut run never counted.
  expect(seen).toEqual([1]);
  // A live holder's lease is left alone.
  scheduler.enqueue('test.net', {});
  db.prepare('UPDATE jobs SET lease_until = ?, lease_owner = ?').run(
    Date.now() + 60_000,
    processOwner(fixed, process.ppid).id,
  );
  expect(scheduler.reclaim()).toBe(0);
});

/** A provider across a network, as the core sees one: it answers later, or never. */
function remoteChannel() {
  const calls: { id: string; attempt: number }[] = [];
  let answer: (m: ChannelMessage) => Promise<DeliveryOutcome> = () => new Promise(() => {});
  const channel: RemoteChannel = {
    kind: 'remote',
    newMessageId: () => `wamid.${calls.length}.${Math.random()}`,
    deliver(m, attempt) {
      calls.push({ id: m.id, attempt });
      return answer(m);
    },
  };
  return {
    channel,
    calls,
    answerWith(f: typeof answer) {
      answer = f;
    },
  };
}

it('records a remote hand-over as dispatching and re-sends one a crash cut short only when no status came', async () => {
  const dataDir = tempDir();
  const clock = manualClock();
  // The first process hands two messages over and dies before the provider answers.
  const first = remoteChannel();
  const a = await makeCore({ dataDir, clock, channel: first.channel });
  const key = a.key('test');
  await approvedTemplate(a, key);
  const one = (await sendTo(a, key, '+14155552671')).body.data.channelMessageId as string;
  const two = (await sendTo(a, key, '+14155552672')).body.data.channelMessageId as string;
  void a.core.services.scheduler.runDue();
  for (let k = 0; k < 100 && first.calls.length < 2; k++)
    await new Promise((r) => setTimeout(r, 5));
  expect(first.calls).toHaveLength(2);
  const idOf = (cmid: string) =>
    a.core.db
      .prepare('SELECT id FROM messages WHERE channel_message_id = ?')
      .pluck()
      .get(cmid) as string;
  const [m1, m2] = [idOf(one), idOf(two)];
  expect(
    a.core.db
      .prepare('SELECT count(*) FROM messages WHERE dispatching_at IS NOT NULL')
      .pluck()
      .get(),
  ).toBe(2);
  a.core.db.close(); // killed: nothing more of it reaches the store

  // The next process (same pid, another token: the predecessor is dead to it).
  const second = remoteChannel();
  second.answerWith(async () => ({ ok: true, followUps: [] }));
  const b = await makeCore({ dataDir, clock, channel: second.channel });
  cores.push(b);
  const { scheduler, messages } = b.core.services;
  expect(scheduler.reclaim()).toBeGreaterThan(0);
  await scheduler.runDue();
  expect(second.calls).toEqual([]); // inside the window: wait for a status instead
  // The provider's status for the first one arrives (it had the message after all).
  messages.applyStatus(messages.repo.byId(m1)!, 'delivered');
  clock.advance(RESEND_AFTER_MS - 1000);
  await scheduler.runDue();
  expect(second.calls).toEqual([]);
  clock.advance(1000);
  await scheduler.runDue();
  // Only the unanswered one is sent again, once, as its first counted attempt.
  expect(second.calls).toEqual([{ id: m2, attempt: 1 }]);
  expect(messages.repo.byId(m2)!.status).toBe('sent');
  expect(messages.repo.byId(m2)!.dispatching_at).toBeNull();
  expect(b.core.db.prepare('SELECT count(*) FROM jobs').pluck().get()).toBe(0);
});

it('buries a job whose process keeps dying under it, instead of running it forever', async () => {
  const t = await makeCore();
  cores.push(t);
  const { scheduler, db } = t.core.services;
  const buried: string[] = [];
  scheduler.register('test.crashy', async () => {}, {
    sync: false,
    onDead: (_p, error) => buried.push(error),
  });
  scheduler.enqueue('test.crashy', {});
  const dead = processOwner(fixed, deadPid());
  for (let i = 0; i < MAX_RECLAIMS; i++) {
    db.prepare('UPDATE jobs SET lease_until = ?, lease_owner = ?').run(
      Date.now() + 60_000,
      dead.id,
    );
    expect(scheduler.reclaim()).toBe(1);
  }
  expect(db.prepare('SELECT status, last_error FROM jobs').get()).toEqual({
    status: 'dead',
    last_error: `the process running it died ${MAX_RECLAIMS} times`,
  });
  expect(buried).toHaveLength(1);
});

it('fails a remote message whose provider never answers, once its attempts are spent', async () => {
  const clock = manualClock();
  const remote = remoteChannel();
  remote.answerWith(() => Promise.reject(new Error('connection reset')));
  const t = await makeCore({ clock, channel: remote.channel });
  cores.push(t);
  const key = t.key('test');
  await approvedTemplate(t, key);
  const sent = await sendTo(t, key, '+14155552671');
  const { scheduler, messages } = t.core.services;
  for (let i = 0; i < 10; i++) {
    await scheduler.runDue();
    clock.advance(RESEND_AFTER_MS);
  }
  const row = messages.repo.byId(
    t.core.db
      .prepare('SELECT id FROM messages WHERE channel_message_id = ?')
      .pluck()
      .get(sent.body.data.channelMessageId) as string,
  )!;
  expect(row.status).toBe('failed');
  expect(row.error_code).toBe('dispatch_failed');
  expect(row.dispatching_at).toBeNull();
  // Each unanswered call waited out the re-send window: 6 calls in all, never two at once.
  expect(remote.calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
});

it('a chunked kind runs a claim in one savepoint: a job that throws is rolled back alone, the rest commit once', async () => {
  const t = await makeCore();
  cores.push(t);
  const { scheduler, db } = t.core.services;
  db.exec('CREATE TABLE chunk_effects (n INTEGER NOT NULL)');
  const record = db.prepare('INSERT INTO chunk_effects (n) VALUES (?)');
  const runs = new Map<number, number>();
  scheduler.register(
    'test.chunked',
    (payload) => {
      const { n } = payload as { n: number };
      runs.set(n, (runs.get(n) ?? 0) + 1);
      record.run(n); // an effect before the failure: it must not survive it
      if (n === 7) throw new Error('seven fails');
    },
    { chunked: true, maxAttempts: 3, baseDelayMs: 60_000 },
  );
  db.transaction(() => {
    for (let n = 0; n < 20; n++) scheduler.enqueue('test.chunked', { n });
  })();
  expect(await scheduler.runDue()).toBe(20);
  // Every other job's effect is stored once; the failing one's not at all.
  const effects = db.prepare('SELECT n FROM chunk_effects ORDER BY n').pluck().all();
  expect(effects).toEqual([...Array(20).keys()].filter((n) => n !== 7));
  // The chunk was rolled back and run again job by job (the documented replay).
  expect(runs.get(7)).toBe(2);
  expect(runs.get(0)).toBe(2);
  // The failing job alone is kept for its retry, with its error.
  expect(db.prepare('SELECT payload, attempts, last_error FROM jobs').all()).toEqual([
    { payload: '{"n":7}', attempts: 1, last_error: 'seven fails' },
  ]);

  // Without a failure, a chunk runs each job once.
  runs.clear();
  db.transaction(() => {
    for (let n = 100; n < 110; n++) scheduler.enqueue('test.chunked', { n });
  })();
  await scheduler.runDue();
  expect([...runs.values()].every((c) => c === 1)).toBe(true);
  expect(runs.size).toBe(10);
});

/** A core on a manual clock, closed after the test, and its scheduler (not started). */
async function clockedCore() {
  const clock = manualClock();
  const t = await makeCore({ clock });
  cores.push(t);
  return { clock, t, scheduler: t.core.services.scheduler };
}

it('tells a run when its job was due: the enqueued time, the time `again` set, a retry’s', async () => {
  const { clock, t, scheduler } = await clockedCore();
  const seen: { attempt: number; runAt: number; now: number }[] = [];
  const start = clock.now();
  scheduler.register(
    'test.due',
    (_payload, job) => {
      seen.push({ attempt: job.attempt, runAt: job.runAt, now: clock.now() });
      if (seen.length === 1) job.again(start + 500);
      else if (seen.length === 2) throw new Error('once');
    },
    { baseDelayMs: 1000 },
  );
  scheduler.enqueue('test.due', {}, { runAt: start + 100 });
  clock.set(start + 200);
  await scheduler.runDue();
  clock.set(start + 600);
  await scheduler.runDue();
  // The failed run's retry: due after the backoff (1 s ± 20 % from the failure at 600).
  const retryAt = t.core.db
    .prepare("SELECT run_at FROM jobs WHERE kind = 'test.due'")
    .pluck()
    .get() as number;
  expect(retryAt - start).toBeGreaterThanOrEqual(600 + 800);
  expect(retryAt - start).toBeLessThanOrEqual(600 + 1200);
  clock.set(retryAt - 1);
  await scheduler.runDue();
  expect(seen).toHaveLength(2);
  // Run later than it was due: told the retry's time, not the time it ran.
  clock.set(retryAt + 5000);
  await scheduler.runDue();
  expect(
    seen.map(({ attempt, runAt, now }) => ({ attempt, runAt: runAt - start, now: now - start })),
  ).toEqual([
    { attempt: 1, runAt: 100, now: 200 },
    { attempt: 1, runAt: 500, now: 600 },
    { attempt: 2, runAt: retryAt - start, now: retryAt - start + 5000 },
  ]);
});

it('claims nothing once stopped: runDue after stop() runs no job and leaves it due', async () => {
  const { clock, t, scheduler } = await clockedCore();
  const ran: number[] = [];
  scheduler.register('test.due', () => void ran.push(clock.now()));
  scheduler.register('test.async', async () => void ran.push(clock.now()), { sync: false });
  scheduler.enqueue('test.due', {});
  scheduler.enqueue('test.async', {});
  scheduler.start();
  await scheduler.stop();
  const jobs = () =>
    t.core.db
      .prepare(
        "SELECT kind, attempts, lease_owner FROM jobs WHERE kind LIKE 'test.%' ORDER BY kind",
      )
      .all();
  const before = jobs();
  expect(await scheduler.runDue()).toBe(0);
  expect(ran).toEqual([]);
  expect(jobs()).toEqual(before);
  expect(before).toEqual([
    { kind: 'test.async', attempts: 0, lease_owner: null },
    { kind: 'test.due', attempts: 0, lease_owner: null },
  ]);
});

/**
 * A process on the same store, posing as another one: its own scheduler and owner (named by a
 * pid that has exited, so the core's reclaim sees it dead), whose runs never answer.
 */
function otherProcess(t: TestCore, kind: JobKind, random: { bytes: (n: number) => Buffer }) {
  const { db, clock } = t.core.services;
  const owner = processOwner(random, deadPid());
  const scheduler = createScheduler(db, clock, random, owner, () => {});
  scheduler.register(kind, () => new Promise<void>(() => {}), { sync: false });
  return scheduler;
}

it('counts deaths of one attempt: a run that lived to renew its lease, or any outcome, starts the count again', async () => {
  const clock = manualClock();
  const t = await makeCore({ clock });
  cores.push(t);
  const { scheduler } = t.core.services;
  const buried: string[] = [];
  const ran: number[] = [];
  scheduler.register(
    'test.slow',
    async (_p, ctx) => {
      ran.push(ctx.attempt);
    },
    { sync: false, maxAttempts: 3, onDead: (_p, error) => buried.push(error) },
  );
  scheduler.enqueue('test.slow', {});
  const status = () =>
    t.core.db.prepare("SELECT status, reclaims FROM jobs WHERE kind = 'test.slow'").get() as {
      status: string;
      reclaims: number;
    };
  // Twice as many deaths as the limit, each of a process that had the call in flight long enough
  // to renew its lease (a receiver answering in 6 s): the job is not written off.
  let n = 0;
  for (let i = 0; i < 2 * MAX_RECLAIMS; i++) {
    const other = otherProcess(t, 'test.slow', { bytes: (k) => Buffer.alloc(k, ++n) });
    void other.runDue(); // claims it; the call hangs
    expect(status().reclaims).toBe(i === 0 ? 0 : 1);
    clock.advance(RENEW_EVERY_MS);
    expect(other.renewLeases()).toBe(1);
    expect(status().reclaims).toBe(0);
    // It is killed: the core takes the lease back.
    expect(scheduler.reclaim()).toBe(1);
    expect(status()).toEqual({ status: 'queued', reclaims: 1 });
  }
  // One more death without a sign of life adds to the count; then it runs to its end.
  const other = otherProcess(t, 'test.slow', { bytes: (k) => Buffer.alloc(k, ++n) });
  void other.runDue();
  expect(scheduler.reclaim()).toBe(1);
  expect(status().reclaims).toBe(2);
  await scheduler.runDue();
  expect(ran).toEqual([1]);
  expect(buried).toEqual([]);
  expect(
    t.core.db.prepare("SELECT count(*) FROM jobs WHERE kind = 'test.slow'").pluck().get(),
  ).toBe(0);

  // A job whose process dies under it each time before any sign of life is buried, with why.
  scheduler.enqueue('test.slow', {});
  for (let i = 0; i < MAX_RECLAIMS; i++) {
    const killer = otherProcess(t, 'test.slow', { bytes: (k) => Buffer.alloc(k, ++n) });
    void killer.runDue();
    clock.advance(RENEW_EVERY_MS - 1);
    expect(killer.renewLeases()).toBe(0); // too young to count as alive
    expect(scheduler.reclaim()).toBe(1);
  }
  expect(status()).toEqual({ status: 'dead', reclaims: MAX_RECLAIMS });
  expect(buried).toEqual([`the process running it died ${MAX_RECLAIMS} times`]);
});

it('backs off while the disk is full instead of retrying every millisecond, says so once, and recovers', async () => {
  const logs: string[] = [];
  const t = await makeCore({ log: (m) => logs.push(m) });
  cores.push(t);
  const { scheduler, db } = t.core.services;
  db.exec('CREATE TABLE big_rows (b BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO big_rows (b) VALUES (?)');
  let tries = 0;
  scheduler.register('test.grow', () => {
    tries++;
    insert.run(Buffer.alloc(256 * 1024));
  });
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  // The disk is full: the database may not grow by a page.
  const pages = db.pragma('page_count', { simple: true }) as number;
  db.pragma(`max_page_count = ${pages}`);
  scheduler.enqueue('test.grow', {});
  scheduler.start();
  const started = Date.now();
  for (let i = 0; i < 200 && (!scheduler.storeFailing || tries < 3); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(scheduler.storeFailing).toBe(true);
  await new Promise((r) => setTimeout(r, 400));
  const elapsed = Date.now() - started;
  // Backoff from 100 ms doubling: a handful of tries in this time, not one a millisecond.
  expect(tries).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(elapsed / 100 + 1)));
  const failing = logs.filter((m) => m.includes('the store refuses writes (SQLITE_FULL)'));
  expect(failing).toHaveLength(1);
  expect(logs.filter((m) => m.includes('failed'))).toEqual([]);
  // The write never counted as an attempt.
  expect(db.prepare("SELECT attempts FROM jobs WHERE kind = 'test.grow'").pluck().get()).toBe(0);

  // Space again: the job goes through, and that is said once.
  db.pragma('max_page_count = 1073741823');
  for (let i = 0; i < 300 && scheduler.storeFailing; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(scheduler.storeFailing).toBe(false);
  expect(db.prepare('SELECT count(*) FROM big_rows').pluck().get()).toBe(1);
  expect(logs.filter((m) => m.includes('accepts writes again'))).toHaveLength(1);
  expect(logs.filter((m) => m.includes('refuses writes'))).toHaveLength(1);
});
