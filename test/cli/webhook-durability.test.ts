/**
 * Network jobs across SIGKILLs of the real `parley serve` (issue 18, item 12): a receiver that
 * answers slowly and a process killed again and again while the calls are out. A death counts
 * against a job only while its run has shown no sign of life (a lease renewal, an outcome): such
 * deliveries and workflow webhook steps complete however often the process dies; one whose every
 * run dies at once ends `failed` with the reason and is redelivered.
 */
import Database from 'better-sqlite3';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MAX_RECLAIMS } from '../../main/core/jobs/scheduler.ts';
import { api, cliHarness, killHard, sleep, stop, withStore } from './harness.ts';

const { dataDir, serve } = cliHarness('parley-wh-dur-');

const receivers: http.Server[] = [];
afterEach(async () => {
  for (const s of receivers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A receiver that holds every request (a slow peer) until `release()`, then answers at once. */
async function slowReceiver() {
  let answering = false;
  const held: http.ServerResponse[] = [];
  const got: { path: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers });
      if (answering) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else held.push(res);
    });
  });
  receivers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    got,
    hold() {
      answering = false;
    },
    release() {
      answering = true;
      for (const res of held.splice(0)) {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
    },
  };
}

function peek<T>(dir: string, f: (db: Database.Database) => T): T {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    return f(db);
  } finally {
    db.close();
  }
}

/** The network jobs: their state, holder and death count. */
const networkJobs = (dir: string) =>
  peek(
    dir,
    (db) =>
      db
        .prepare(
          `SELECT id, status, reclaims, lease_owner AS owner FROM jobs
           WHERE kind IN ('webhook.deliver', 'workflow.webhook')`,
        )
        .all() as { id: number; status: string; reclaims: number; owner: string | null }[],
  );

async function until(what: string, f: () => boolean, ms: number, state?: () => unknown) {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting until ${what}: ${JSON.stringify(state?.())}`);
    }
    await sleep(25);
  }
}

it('slow calls survive more kills than the limit; a call whose every run dies at once ends failed and is redelivered', async () => {
  const dir = dataDir();
  const rx = await slowReceiver();
  const key = withStore(dir, ({ services }) => {
    const workspaceId = services.workspaces.resolve().id;
    services.workspaces.updateSettings(workspaceId, { allowPrivateWebhooks: true });
    return services.keys.create(workspaceId, 'test', 'durability').key;
  });
  let server = await serve(dir);
  const hook = await api<{ id: string }>(server.url, key, 'POST', '/webhooks', {
    url: `${rx.base}/deliveries`,
    events: ['message.received'],
  });
  const wf = await api<{ id: string }>(server.url, key, 'POST', '/workflows', {
    name: 'Tell the shop',
    trigger: { type: 'manual' },
    steps: [
      { id: 'notify', type: 'webhook', url: `${rx.base}/steps` },
      { id: 'done', type: 'end' },
    ],
  });
  const EVENTS = 6;
  const RUNS = 4;
  for (let i = 0; i < EVENTS; i++) {
    await api(server.url, key, 'POST', '/api/simulator/inbound', {
      phone: `+1415555${String(3100 + i)}`,
      message: `hello ${i}`,
    });
  }
  const runIds: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await api<{ id: string }>(server.url, key, 'POST', '/workflows/trigger', {
      workflowId: wf.id,
      phone: `+1415555${String(3200 + i)}`,
    });
    runIds.push(run.id);
  }
  const calls = EVENTS + RUNS;

  // More kills than the limit, each while every call is out to the slow receiver and its run
  // has lived to renew its lease (the count of deaths went back to 0).
  const killed = new Set<string>();
  for (let kill = 0; kill <= MAX_RECLAIMS; kill++) {
    const seen = rx.got.length;
    const s = server;
    let holder: string | null = null;
    await until(
      `kill ${kill}: every call out from this process, alive`,
      () => {
        const jobs = networkJobs(dir);
        holder = jobs[0]?.owner ?? null;
        return (
          rx.got.length >= seen + calls &&
          jobs.length === calls &&
          holder !== null &&
          !killed.has(holder) &&
          jobs.every((j) => j.owner === holder && j.status === 'queued' && j.reclaims === 0)
        );
      },
      20_000,
      () => ({ got: rx.got.length - seen, jobs: networkJobs(dir), log: s.log() }),
    );
    killed.add(holder!);
    await killHard(server);
    server = await serve(dir);
  }
  // The receiver answers at last: every delivery and every run completes.
  rx.release();
  const deliveries = async () =>
    (
      await api<{ data: { id: string; status: string; lastError: string | null }[] }>(
        server.url,
        key,
        'GET',
        `/webhooks/${hook.id}/deliveries?limit=100`,
      )
    ).data;
  const runs = async () =>
    Promise.all(
      runIds.map(
        async (id) =>
          (await api<{ status: string }>(server.url, key, 'GET', `/workflows/runs/${id}`)).status,
      ),
    );
  for (const end = Date.now() + 20_000; ;) {
    const d = await deliveries();
    const r = await runs();
    if (d.every((x) => x.status === 'succeeded') && r.every((x) => x === 'completed')) break;
    expect(Date.now() < end, JSON.stringify({ d, r }) + server.log()).toBe(true);
    await sleep(50);
  }
  expect(await deliveries()).toHaveLength(EVENTS);
  // The steps' calls carried one webhook-id per run, numbered 1, 2, … by attempt (every kill
  // cut one short; a call held past its 10 s timeout is one more).
  const stepCalls = rx.got.filter((g) => g.path === '/steps');
  const byId = new Map<string, number[]>();
  for (const g of stepCalls) {
    const id = String(g.headers['webhook-id']);
    byId.set(id, [...(byId.get(id) ?? []), Number(g.headers['webhook-attempt'])]);
  }
  expect(byId.size).toBe(RUNS);
  for (const attempts of byId.values()) {
    expect(attempts).toEqual(attempts.map((_, i) => i + 1));
    expect(attempts.length).toBeGreaterThan(MAX_RECLAIMS + 1);
  }

  // A call that dies at once, every time: written off after the limit, failed with the reason.
  rx.hold();
  await api(server.url, key, 'POST', '/api/simulator/inbound', {
    phone: '+14155553999',
    message: 'one more',
  });
  for (let kill = 0; kill < MAX_RECLAIMS; kill++) {
    const seen = rx.got.length;
    await until(`dying call ${kill} out`, () => rx.got.length > seen, 20_000);
    await killHard(server);
    server = await serve(dir);
  }
  let dead!: { id: string; status: string; lastError: string | null };
  for (const end = Date.now() + 10_000; ;) {
    dead = (await deliveries())[0]!;
    if (dead.status !== 'pending') break;
    expect(Date.now() < end).toBe(true);
    await sleep(50);
  }
  expect(dead).toMatchObject({
    status: 'failed',
    lastError: `the process running it died ${MAX_RECLAIMS} times`,
  });

  // Redelivered, to a receiver that answers: a new delivery of the same event succeeds.
  rx.release();
  const again = await api<{ id: string }>(
    server.url,
    key,
    'POST',
    `/webhooks/${hook.id}/deliveries/${dead.id}/redeliver`,
  );
  for (const end = Date.now() + 10_000; ;) {
    const d = await deliveries();
    if (d.find((x) => x.id === again.id)?.status === 'succeeded') break;
    expect(Date.now() < end).toBe(true);
    await sleep(50);
  }
  // Nothing is left pending, and only the written-off job is dead.
  expect((await deliveries()).filter((d) => d.status === 'pending')).toEqual([]);
  await stop(server);
  expect(
    peek(dir, (db) => db.prepare("SELECT count(*) FROM jobs WHERE status = 'dead'").pluck().get()),
  ).toBe(1);
}, 120_000);
