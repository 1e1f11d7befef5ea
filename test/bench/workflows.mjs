// Workflow timers bench (issue 10): 10,000 runs of a test-key workflow parked on `wait` timers in
// `parley serve` on 127.0.0.1, measured from the outside (HTTP) and from the store (run and step
// times, hand-overs). Run alone with `node test/bench/workflows.mjs` after `npm run build`, or as
// part of `npm run bench`.
//
// The runs are made the real way — one POST /api/events each, which starts the run, whose first
// step parks it on a `wait PT1H` timer (a `workflow.step` job naming the run and its seq). Only
// the timers' due time is then moved, by one UPDATE of those jobs' run_at, so that all 10,000 come
// due at one instant (the API cannot start 10,000 runs within one millisecond).
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchStore,
  cpuMs,
  end,
  keyClient,
  maxPerSecond,
  rssMiB,
  serve,
  sleep,
} from './serve-common.mjs';
const EVENT = 'bench.timer';
/** Events in flight at once while the runs are made. */
const CONCURRENCY = 64;
/** The timers come due this long after they are moved (the scheduler looks at least every second). */
const LEAD_MS = 3000;
const phoneOf = (i) => `+4915713${String(i).padStart(6, '0')}`;

/** A data dir with a test key, an approved template and `n` contacts; the account at `mps`, no tier. */
function seed(n, mps) {
  return benchStore('parley-workflow-bench-', mps, (db, ws, now) => {
    const contact = db.prepare(
      `INSERT INTO contacts (id, workspace_id, environment, phone, name, created_at, updated_at)
       VALUES (?, ?, 'test', ?, ?, ?, ?)`,
    );
    for (let i = 0; i < n; i++) {
      contact.run(
        `ct_0WFLOW${String(i).padStart(20, '0')}`,
        ws,
        phoneOf(i),
        `Person ${i}`,
        now,
        now,
      );
    }
  });
}

/** `parley serve` on the dir; `listenedAt` is when its "listening on" line arrived. */
const client = keyClient;

/** Reads the store from outside the server (WAL: readers do not get in its way). */
function peek(dir, f) {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    return f(db);
  } finally {
    db.close();
  }
}

function counts(dir, workflowId) {
  return peek(dir, (db) =>
    Object.fromEntries(
      db
        .prepare(
          'SELECT status, count(*) AS n FROM workflow_runs WHERE workflow_id = ? GROUP BY status',
        )
        .raw()
        .all(workflowId),
    ),
  );
}

/**
 * Polls the store until `done(counts)` holds; throws past `deadline`. One read-only connection
 * for the whole wait, every 100 ms: the times measured come from the store, not from the poll, so
 * the poller only has to stay out of the way of the core it measures (2 cores here).
 */
async function until(dir, workflowId, done, deadline, ms = 100) {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  const byStatus = db.prepare(
    'SELECT status, count(*) AS n FROM workflow_runs WHERE workflow_id = ? GROUP BY status',
  );
  try {
    for (;;) {
      const c = Object.fromEntries(byStatus.raw().all(workflowId));
      if (done(c)) return c;
      if (Date.now() > deadline) throw new Error(`workflow runs stuck: ${JSON.stringify(c)}`);
      await sleep(ms);
    }
  } finally {
    db.close();
  }
}

/** The workflow (wait PT1H, then `then`) and `n` runs parked on its timer, made over HTTP. */
async function parkRuns(api, dir, n, then) {
  const wf = await api('POST', '/workflows', {
    name: `Bench ${then.type}`,
    trigger: { type: 'event', event: EVENT },
    steps: [
      { id: 'pause', type: 'wait', duration: 'PT1H' },
      { id: 'then', ...then },
    ],
  });
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const r = await api('POST', '/api/events', { event: EVENT, phone: phoneOf(i) });
        if (r.runs.length !== 1) throw new Error(`event ${i} started ${r.runs.length} runs`);
      }
    }),
  );
  const accepted = Date.now();
  // Each run's first step (the wait) runs in a job right after its event.
  await until(dir, wf.id, (c) => c.waiting === n, accepted + 60_000, 100);
  return { workflowId: wf.id, eventsPerSecond: n / ((accepted - started) / 1000) };
}

/** Moves the runs' timers (their `workflow.step` jobs) to `at`; how many moved. */
function dueAt(dir, workflowId, at) {
  const db = new Database(path.join(dir, 'parley.db'));
  db.pragma('busy_timeout = 5000');
  try {
    return db
      .prepare(
        `UPDATE jobs SET run_at = ? WHERE kind = 'workflow.step' AND status = 'queued'
           AND json_extract(payload, '$.runId') IN (SELECT id FROM workflow_runs WHERE workflow_id = ?)`,
      )
      .run(at, workflowId).changes;
  } finally {
    db.close();
  }
}

/** When the timers fired (the wait steps' ends) and the runs ended, from the store. */
function timings(dir, workflowId) {
  return peek(dir, (db) => ({
    ...db
      .prepare(
        `SELECT min(s.ended_at) AS firstFired, max(s.ended_at) AS lastFired FROM workflow_run_steps s
         JOIN workflow_runs r ON r.id = s.run_id WHERE r.workflow_id = ? AND s.step_id = 'pause'`,
      )
      .get(workflowId),
    ...db
      .prepare(
        `SELECT min(ended_at) AS firstDone, max(ended_at) AS lastDone, count(*) AS completed
         FROM workflow_runs WHERE workflow_id = ? AND status = 'completed'`,
      )
      .get(workflowId),
  }));
}

const wholeSecondAfter = (ms) => Math.ceil((Date.now() + ms) / 1000) * 1000;

/**
 * (a) and (b): `n` timers due at one instant, then `then`; how late the last fires and its run
 * ends, and for a send its hand-overs.
 */
export async function timersRun(n, then, mps = 1000) {
  const { dir, key } = seed(n, mps);
  const { url, child } = await serve(dir);
  try {
    const api = client(url, key);
    await sleep(300);
    const idleRssMiB = rssMiB(child.pid);
    const parked = await parkRuns(api, dir, n, then);
    await sleep(500);
    const waitingRssMiB = rssMiB(child.pid);
    const due = wholeSecondAfter(LEAD_MS);
    const moved = dueAt(dir, parked.workflowId, due);
    if (moved !== n) throw new Error(`moved ${moved} timers of ${n}`);
    await sleep(Math.max(0, due - Date.now() - 200));
    const cpuBefore = cpuMs(child.pid);
    await until(
      dir,
      parked.workflowId,
      (c) => c.completed === n || (c.failed ?? 0) > 0,
      due + 60_000,
    );
    const cpu = cpuMs(child.pid) - cpuBefore;
    const t = timings(dir, parked.workflowId);
    const sent = peek(dir, (db) =>
      db
        .prepare(
          `SELECT sent_at FROM messages WHERE campaign_id IS NULL AND sent_by = 'bot'
           AND direction = 'outbound' ORDER BY sent_at`,
        )
        .pluck()
        .all(),
    );
    return {
      runs: n,
      step: then.type,
      mps,
      completed: t.completed,
      eventsPerSecond: parked.eventsPerSecond,
      firstFiredS: (t.firstFired - due) / 1000,
      lastFiredS: (t.lastFired - due) / 1000,
      lastDoneS: (t.lastDone - due) / 1000,
      sent: sent.length,
      allSentS: sent.length ? (sent[sent.length - 1] - due) / 1000 : null,
      maxPerSecond: maxPerSecond(sent),
      cpuS: cpu / 1000,
      idleRssMiB,
      waitingRssMiB,
    };
  } finally {
    await end(child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * (c) and (d): `n` runs parked; serve SIGKILLed; restarted with the timers not due (its memory
 * with `n` waiting runs); SIGKILLed again, the timers made due while it is down, restarted: how
 * soon after "listening" the first fired run completes, and the last.
 */
export async function restartRun(n) {
  const { dir, key } = seed(n, 1000);
  let server = await serve(dir);
  try {
    const parked = await parkRuns(client(server.url, key), dir, n, {
      type: 'update_conversation',
      addLabels: ['bench'],
    });
    await end(server.child, 'SIGKILL');
    server = await serve(dir);
    await sleep(1000);
    const freshWaitingRssMiB = rssMiB(server.child.pid);
    const stillWaiting = counts(dir, parked.workflowId).waiting;
    await end(server.child, 'SIGKILL');
    const moved = dueAt(dir, parked.workflowId, Date.now());
    if (moved !== n) throw new Error(`moved ${moved} timers of ${n}`);
    await sleep(100);
    server = await serve(dir);
    const { listenedAt } = server;
    await until(dir, parked.workflowId, (c) => c.completed === n, listenedAt + 60_000);
    const t = timings(dir, parked.workflowId);
    return {
      runs: n,
      stillWaiting,
      firstDoneS: (t.firstDone - listenedAt) / 1000,
      lastDoneS: (t.lastDone - listenedAt) / 1000,
      freshWaitingRssMiB,
    };
  } finally {
    await end(server.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The four measurements, as table rows with their verdicts. */
export async function workflowBench(n = 10_000) {
  const update = await timersRun(n, { type: 'update_conversation', addLabels: ['bench'] });
  const send = await timersRun(n, {
    type: 'send_template',
    templateName: 'bench_offer',
    variables: { 1: '{{contact.name}}' },
  });
  const restart = await restartRun(n);
  const k = n.toLocaleString('en');
  const ok = (r) => r.completed === n;
  return [
    {
      scenario: `(a) ${k} timers due at one instant → update_conversation`,
      measured: `last fired +${update.lastFiredS.toFixed(2)} s, last run ended +${update.lastDoneS.toFixed(2)} s`,
      also: `first fired +${update.firstFiredS.toFixed(2)} s; ${update.completed} completed; core CPU ${update.cpuS.toFixed(2)} s`,
      verdict: ok(update) && update.lastDoneS <= 1 ? 'PASS' : 'MISS',
      target: 'last run ended ≤ 1 s after due',
    },
    {
      scenario: `(b) ${k} timers due at one instant → send_template at ${send.mps} mps`,
      measured: `all sent +${send.allSentS?.toFixed(2) ?? '–'} s, max ${send.maxPerSecond} in any 1 s`,
      also: `${send.sent} sent; ideal ${(n / send.mps).toFixed(2)} s; last run ended +${send.lastDoneS.toFixed(2)} s; core CPU ${send.cpuS.toFixed(2)} s`,
      verdict:
        ok(send) && send.sent === n && send.allSentS <= 11 && send.maxPerSecond <= send.mps
          ? 'PASS'
          : 'MISS',
      target: `all sent ≤ 11 s after due, ≤ ${send.mps} in any 1 s`,
    },
    {
      scenario: `(c) SIGKILL with ${k} waiting, restart with the timers due`,
      measured: `first run ended ${restart.firstDoneS.toFixed(2)} s after listening`,
      also: `all ${k} ended ${restart.lastDoneS.toFixed(2)} s after listening`,
      verdict: restart.firstDoneS < 2 ? 'PASS' : 'MISS',
      target: '< 2 s after listening',
    },
    {
      scenario: `(d) serve RSS with ${k} waiting runs`,
      measured: `${restart.freshWaitingRssMiB.toFixed(0)} MiB (restarted serve, ${restart.stillWaiting} waiting)`,
      also: `${update.waitingRssMiB.toFixed(0)} MiB in the serve that took the ${k} events; ${update.idleRssMiB.toFixed(0)} MiB idle before them`,
      verdict: '',
      target: 'reported (no target set)',
    },
  ].map((r) => ({ ...r, eventsPerSecond: Math.min(update.eventsPerSecond, send.eventsPerSecond) }));
}

export function printWorkflowRows(rows) {
  const header = ['workflow timers', 'measured', 'also', 'target'];
  const body = rows.map((r) => [
    r.scenario,
    r.measured,
    r.also,
    r.verdict ? `${r.verdict} (${r.target})` : r.target,
  ]);
  const w = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(w[i])).join(' | ') + ' |';
  console.log(
    `\nWorkflows (test key, simulator's default receipt latencies; runs started by POST /api/events at ${Math.round(rows[0].eventsPerSecond)}/s, each parked on a ` +
      `wait timer; the timers' jobs then moved to one due time; times from the store's step and run ends)\n`,
  );
  console.log(line(header));
  console.log('|' + w.map((x) => '-'.repeat(x + 2)).join('|') + '|');
  body.forEach((b) => console.log(line(b)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printWorkflowRows(await workflowBench(Number(process.argv[2] ?? 10_000)));
}
