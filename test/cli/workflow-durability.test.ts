import Database from 'better-sqlite3';
import path from 'node:path';
import { expect, it } from 'vitest';
import { api, cliHarness, killHard, sleep, stop, withStore } from './harness.ts';

const { dataDir, serve } = cliHarness('parley-wf-dur-');

const N = 1000;
/** The account's rate: 1,000 sends take about five seconds, long enough to kill in the middle. */
const MPS = 200;
const EVENT = 'bench.wait';
const phoneOf = (i: number) => `+49152${String(i).padStart(8, '0')}`;

/** A read of the live database from outside the server (WAL: it does not get in its way). */
function peek<T>(dir: string, f: (db: Database.Database) => T): T {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    return f(db);
  } finally {
    db.close();
  }
}

/**
 * A test key, an approved test template `notice` ("Hi {{1}}, …", usable at once), N contacts,
 * the account at MPS with no tier limit and quick simulated receipts.
 */
function seed(dir: string) {
  return withStore(dir, ({ services, db }) => {
    const workspaceId = services.workspaces.resolve().id;
    const scope = { workspaceId, environment: 'test' } as const;
    services.simulator.update(workspaceId, {
      approvalWaitMs: 0,
      throughputMps: MPS,
      messagingTier: null,
      deliveryLatencyMs: 100,
      readLatencyMs: 100,
    });
    const tpl = services.templates.create(scope, {
      name: 'notice',
      category: 'UTILITY',
      language: 'en',
      components: [{ type: 'BODY', text: 'Hi {{1}}, your order has shipped.' }],
    });
    services.templates.decide(scope, tpl.id, 'approve');
    const contactIds = db.transaction(() =>
      Array.from(
        { length: N },
        (_, i) => services.contacts.write(scope, phoneOf(i), { name: `Person ${i}` }).row.id,
      ),
    )();
    const key = services.keys.create(workspaceId, 'test', 'durability').key;
    return { key, contactIds };
  });
}

/** Makes the workflow timers due now (the time the test sets); how many there were. */
function dueNow(dir: string): number {
  const db = new Database(path.join(dir, 'parley.db'));
  try {
    return db
      .prepare(
        "UPDATE jobs SET run_at = ? WHERE kind = 'workflow.step' AND status = 'queued' AND run_at > ?",
      )
      .run(Date.now(), Date.now()).changes;
  } finally {
    db.close();
  }
}

/** How far the workflow's runs are, read from the store. */
function state(dir: string, workflowId: string) {
  return peek(dir, (db) => {
    const byStatus = Object.fromEntries(
      (
        db
          .prepare(
            'SELECT status, count(*) AS n FROM workflow_runs WHERE workflow_id = ? GROUP BY status',
          )
          .all(workflowId) as { status: string; n: number }[]
      ).map((r) => [r.status, r.n]),
    ) as Record<string, number>;
    const sent = db
      .prepare(
        `SELECT count(*) FROM messages WHERE campaign_id IS NULL AND sent_by = 'bot' AND direction = 'outbound'`,
      )
      .pluck()
      .get() as number;
    const timers = db
      .prepare(
        `SELECT count(*) FROM workflow_runs WHERE workflow_id = ? AND status = 'waiting' AND waiting_for = 'timer'`,
      )
      .pluck()
      .get(workflowId) as number;
    return { byStatus, sent, timers };
  });
}

/** Runs `f` over `items`, `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}

it('1,000 runs waiting on timers survive SIGKILLs before and while the timers fire: each completes once and sends once', async () => {
  const dir = dataDir();
  const { key, contactIds } = seed(dir);
  let server = await serve(dir);

  const wf = await api<{ id: string }>(server.url, key, 'POST', '/workflows', {
    name: 'Durable wait',
    trigger: { type: 'event', event: EVENT },
    steps: [
      // A day: no timer fires on its own during the test, however slowly the events go in. The
      // test makes them due itself once every run is parked (below).
      { id: 'pause', type: 'wait', duration: 'P1D' },
      {
        id: 'greet',
        type: 'send_template',
        templateName: 'notice',
        variables: { '1': '{{contact.name}}' },
      },
    ],
  });

  // 1,000 events, 20 at a time: each starts one run, which parks on its timer.
  const firstEventAt = Date.now();
  const answers = await pool(
    Array.from({ length: N }, (_, i) => i),
    20,
    (i) =>
      api<{ runs: string[]; skipped: unknown[] }>(server.url, key, 'POST', '/api/events', {
        event: EVENT,
        phone: phoneOf(i),
        payload: { i },
      }),
  );
  expect(answers.every((a) => a.runs.length === 1 && a.skipped.length === 0)).toBe(true);
  const runIds = answers.map((a) => a.runs[0]!);
  expect(new Set(runIds).size).toBe(N);
  // Every run has reached its wait (the first step runs in a job right after the event).
  for (;;) {
    const s = state(dir, wf.id);
    if (s.timers === N) break;
    expect(Date.now() - firstEventAt, JSON.stringify(s)).toBeLessThan(30_000);
    await sleep(20);
  }

  // Kill 1: every run is parked on its timer, none has fired yet.
  await killHard(server);
  const afterKill1 = state(dir, wf.id);
  expect(afterKill1).toEqual({ byStatus: { waiting: N }, sent: 0, timers: N });

  // The timers' time comes: the test sets it, on the store's own jobs, while no process runs.
  const due = dueNow(dir);
  expect(due).toBe(N);

  // Restart: the timers are due and fire from the store's jobs.
  const restartedAt = Date.now();
  server = await serve(dir);
  // Kill 2 while the timers fire and the sends go out (200 a second: about 5 s of them).
  for (;;) {
    const s = state(dir, wf.id);
    if (s.sent >= 250) break;
    expect(Date.now() - restartedAt, JSON.stringify(s)).toBeLessThan(20_000);
    await sleep(10);
  }
  await sleep(Math.floor(Math.random() * 60));
  await killHard(server);
  const afterKill2 = state(dir, wf.id);
  expect(afterKill2.sent, JSON.stringify(afterKill2)).toBeGreaterThanOrEqual(250);
  expect(afterKill2.sent, JSON.stringify(afterKill2)).toBeLessThan(N);
  // What was sent is recorded with its run's move past the step: sent = completed.
  expect(afterKill2.byStatus.completed ?? 0).toBe(afterKill2.sent);

  // Restart once more and let it finish.
  server = await serve(dir);
  for (;;) {
    const s = state(dir, wf.id);
    if (s.byStatus.completed === N) break;
    expect(Date.now() - restartedAt, JSON.stringify(s) + server.log()).toBeLessThan(40_000);
    await sleep(50);
  }

  // The API agrees: 1,000 completed runs, none running or waiting.
  const workflow = await api<{ runs: { running: number; waiting: number } }>(
    server.url,
    key,
    'GET',
    `/workflows/${wf.id}`,
  );
  expect(workflow.runs).toEqual({ running: 0, waiting: 0 });
  const listed: { id: string; status: string; endedAt: string | null }[] = [];
  for (let cursor: string | null = null; ;) {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = await api<{
      data: { id: string; status: string; endedAt: string | null }[];
      nextCursor: string | null;
    }>(server.url, key, 'GET', `/workflows/${wf.id}/runs?status=completed&limit=200${q}`);
    listed.push(...page.data);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  expect(listed.map((r) => r.id).sort()).toEqual([...runIds].sort());
  expect(listed.every((r) => r.endedAt !== null)).toBe(true);

  // Receipts (their jobs survived too) settle; then nothing is left queued for the runs.
  let audit!: ReturnType<typeof auditOf>;
  for (const end = Date.now() + 15_000; ;) {
    audit = auditOf(dir, wf.id);
    if ((audit.runJobs === 0 && audit.messageJobs === 0) || Date.now() > end) break;
    await sleep(100);
  }
  await stop(server);

  expect(audit.runJobs).toBe(0);
  expect(audit.messageJobs).toBe(0);
  expect(audit.deadJobs).toBe(0);
  // Every run completed, once, on its own contact.
  expect(audit.runs).toHaveLength(N);
  expect(audit.runs.filter((r) => r.status !== 'completed' || r.error !== null)).toEqual([]);
  expect(audit.runs.map((r) => r.contactId).sort()).toEqual([...contactIds].sort());
  // Each run took exactly its two steps, each completed once: the wait, then the send.
  expect(
    audit.steps.filter((s) => s.n !== 2 || s.steps !== 'pause:completed,greet:completed'),
  ).toEqual([]);
  expect(audit.steps).toHaveLength(N);
  // Exactly one template message per contact, sent by the bot outside any campaign, and it is
  // the one its run's send step recorded.
  expect(audit.messages).toHaveLength(N);
  expect(audit.messages.filter((m) => m.n !== 1)).toEqual([]);
  expect(audit.messages.map((m) => m.contactId).sort()).toEqual([...contactIds].sort());
  expect(audit.templated).toBe(N);
  expect(audit.linked).toBe(N);
  // One started and one completed event per run; no failure; one step event per step.
  expect(audit.events.started.filter((e) => e.n !== 1)).toEqual([]);
  expect(audit.events.started).toHaveLength(N);
  expect(audit.events.completed.filter((e) => e.n !== 1)).toEqual([]);
  expect(audit.events.completed.map((e) => e.runId).sort()).toEqual([...runIds].sort());
  expect(audit.events.failed).toBe(0);
  expect(audit.events.steps).toBe(2 * N);

  // Bounded: two kills and restarts cost seconds, not the run.
  expect(Date.now() - restartedAt).toBeLessThan(45_000);
}, 120_000);

/** What the store says about the workflow's runs once the work is done. */
function auditOf(dir: string, workflowId: string) {
  return peek(dir, (db) => {
    const all = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[];
    const one = (sql: string, ...args: unknown[]) =>
      db
        .prepare(sql)
        .pluck()
        .get(...args) as number;
    const runs = `SELECT id FROM workflow_runs WHERE workflow_id = '${workflowId}'`;
    const bot = `SELECT id FROM messages WHERE campaign_id IS NULL AND sent_by = 'bot'`;
    const perRun = (type: string) =>
      all<{ runId: string; n: number }>(
        `SELECT json_extract(data, '$.run.id') AS runId, count(*) AS n FROM events
         WHERE type = ? AND json_extract(data, '$.run.workflowId') = ? GROUP BY runId`,
        type,
        workflowId,
      );
    return {
      runs: all<{ id: string; status: string; contactId: string; error: string | null }>(
        `SELECT id, status, contact_id AS contactId, error FROM workflow_runs WHERE workflow_id = ?`,
        workflowId,
      ),
      steps: all<{ runId: string; n: number; steps: string }>(
        `SELECT run_id AS runId, count(*) AS n,
           group_concat(step_id || ':' || status, ',' ORDER BY seq) AS steps
         FROM workflow_run_steps WHERE run_id IN (${runs}) GROUP BY run_id`,
      ),
      messages: all<{ contactId: string; n: number }>(
        `SELECT contact_id AS contactId, count(*) AS n FROM messages
         WHERE campaign_id IS NULL AND sent_by = 'bot' AND direction = 'outbound'
         GROUP BY contact_id`,
      ),
      templated: one(
        `SELECT count(*) FROM messages WHERE campaign_id IS NULL AND sent_by = 'bot'
           AND type = 'template' AND template_name = 'notice'`,
      ),
      // Each send step's output names a message of its run's contact.
      linked: one(
        `SELECT count(*) FROM workflow_run_steps s
           JOIN workflow_runs r ON r.id = s.run_id
           JOIN messages m ON m.id = json_extract(s.output, '$.messageId') AND m.contact_id = r.contact_id
         WHERE r.workflow_id = ? AND s.step_id = 'greet'`,
        workflowId,
      ),
      runJobs: one(
        `SELECT count(*) FROM jobs WHERE kind LIKE 'workflow.%'
           AND json_extract(payload, '$.runId') IN (${runs})`,
      ),
      messageJobs: one(
        `SELECT count(*) FROM jobs WHERE json_extract(payload, '$.messageId') IN (${bot})`,
      ),
      deadJobs: one("SELECT count(*) FROM jobs WHERE status = 'dead'"),
      events: {
        started: perRun('workflow.run.started'),
        completed: perRun('workflow.run.completed'),
        failed: one(
          `SELECT count(*) FROM events WHERE type = 'workflow.run.failed'
             AND json_extract(data, '$.run.workflowId') = ?`,
          workflowId,
        ),
        steps: one(
          `SELECT count(*) FROM events WHERE type = 'workflow.run.step'
             AND json_extract(data, '$.workflowId') = ?`,
          workflowId,
        ),
      },
    };
  });
}
