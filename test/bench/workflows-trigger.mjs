// Listening workflows bench (issue 23): 1,000 inbound customer messages a second for 30 s against
// 20 active `message_received` workflows with keyword conditions, and the same load against no
// workflow at all: what trigger evaluation (and the runs it starts) adds to the inbound path, and
// that runs start exactly once per matching message.
//
// Each load goes to its own `parley serve` on a fresh data dir (test/bench/workflows-trigger-
// serve.mjs: the core as the CLI starts it, timing each `messages.receive` — the inbound
// transaction — from the inside). The messages are POST /api/simulator/inbound, sent open-loop
// at RATE a second (not waiting for answers), each from a new phone (so no contact is in a run
// already and every match starts one), their texts a fixed mix in which about a third carry a
// keyword. Measured: the inbound path's p50/p99 inside the server (the criterion: ≤ 1 ms added
// p99), the HTTP answer's p50/p99 at the client, the server's event-loop delay; then, from the
// store, every run against what the bench expects of each message (the shared matcher,
// shared/workflow-triggers.ts, bundled here): none missing, none twice.
//
// Run alone with `node test/bench/workflows-trigger.mjs` (30 s a load; BENCH_TRIGGER_SECONDS
// sets it) after `npm run build`, or as part of `npm run bench` (BENCH_SECONDS a load there).
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BENCH_BUILD, benchStore, bundleCore, end, root, sleep } from './serve-common.mjs';

const RATE = Number(process.env.BENCH_TRIGGER_RATE ?? 1000);
/** Keep-alive connections the load uses at most (autocannon's 32, as the other HTTP benches). */
const CONNECTIONS = 32;
const WORKFLOWS = 20;
/** What trigger evaluation may add to the inbound path's p99 (issue 23). */
const ADDED_P99_MS = 1;
const SERVER = path.join(root, 'test/bench/workflows-trigger-serve.mjs');
const WARMUP_MS = 2000;

/**
 * Twenty workflows' keyword conditions: every match mode, accents and case in the keywords,
 * firstMessageOnly on some (each message here is its sender's first, so it always holds).
 */
const CONDITIONS = Array.from({ length: WORKFLOWS }, (_, i) => {
  const topics = [
    ['order', 'pedido', 'Bestellung'],
    ['refund', 'money back', 'reembolso'],
    ['stop', 'unsubscribe', 'opt out'],
    ['café', 'coffee', 'espresso'],
    ['track my parcel', 'tracking', 'where is'],
    ['invoice', 'receipt', 'factura'],
    ['price', 'cost', 'how much'],
    ['hours', 'open today', 'closing time'],
    ['human', 'agent', 'person'],
    ['cancel', 'annuler', 'stornieren'],
  ][i % 10];
  return {
    keywords: topics.map((k) => (i >= 10 ? `${k}!` : k)),
    match: ['any', 'whole_word', 'exact'][i % 3],
    ...(i % 4 === 0 ? { firstMessageOnly: true } : {}),
  };
});

/** The i-th message's text: a fixed mix, about a third of them with a keyword. */
function textOf(i) {
  const chatter = [
    'hello there, how are you today?',
    'Thanks a lot for your help yesterday',
    'Is this the right number for the shop?',
    'good morning 🙂',
    'I will come by later this week',
  ];
  const asks = [
    'Where is my ORDER #%?',
    'I want a refund please',
    'STOP',
    'Un CAFÉ por favor',
    'can you track my parcel %',
    'Please send the invoice for %',
    'How much does it cost?',
    'are you open today?',
    'I need a human',
    'Cancel!',
    'order',
    'tracking',
  ];
  const n = i % 3 === 0 ? asks[(i / 3) % asks.length] : chatter[i % chatter.length];
  return n.replace('%', String(i));
}

const phoneOf = (i) => `+4915790${String(i).padStart(6, '0')}`;
const idOf = (i) => `ct_0TRIG${String(i).padStart(21, '0')}`;

/** POSTs JSON over `agent`; resolves to the status (a network error rejects). */
function post(agent, url, key, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;

/** The bench's server child with an IPC channel; `ask(m)` sends a message and awaits the answer. */
function startServer(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER, dir], {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        const ask = (msg) =>
          new Promise((r) => {
            child.once('message', r);
            child.send(msg);
          });
        resolve({ url: m[1], child, ask });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/**
 * Sends messages `from`…`from + count - 1` open-loop at RATE a second (each at its slot, not
 * waiting for earlier answers; at most CONNECTIONS in flight, the rest queue at the client and
 * their latency counts from their slot); answers the latencies (ms) and the rate achieved.
 */
async function load(url, key, from, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies = [];
  const pending = [];
  let failures = 0;
  const reasons = new Map();
  const fail = (why) => {
    failures++;
    reasons.set(why, (reasons.get(why) ?? 0) + 1);
  };
  const started = performance.now();
  let next = 0;
  while (next < count) {
    const due = Math.min(count, Math.floor(((performance.now() - started) * RATE) / 1000) + 1);
    for (; next < due; next++) {
      const i = from + next;
      const t0 = performance.now();
      pending.push(
        post(agent, `${url}/api/simulator/inbound`, key, {
          phone: phoneOf(i),
          message: textOf(i),
        }).then(
          (status) => {
            if (status !== 200) fail(`HTTP ${status}`);
            latencies.push(performance.now() - t0);
          },
          (e) => fail(String(e.code ?? e.message)),
        ),
      );
    }
    await sleep(1);
  }
  const sentMs = performance.now() - started;
  await Promise.all(pending);
  agent.destroy();
  if (reasons.size)
    console.error(`inbound failures: ${JSON.stringify(Object.fromEntries(reasons))}`);
  return { latencies, failures, ratePerSecond: count / (sentMs / 1000) };
}

/** The runs the messages started, against what the shared matcher expects of each text. */
function checkRuns(dir, matcher, workflows) {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    const messages = db.prepare(`SELECT id, text FROM messages WHERE direction = 'inbound'`).all();
    const runs = db
      .prepare(
        `SELECT workflow_id, trigger_message_id, count(*) AS n FROM workflow_runs
         GROUP BY workflow_id, trigger_message_id`,
      )
      .all();
    const got = new Map(runs.map((r) => [`${r.workflow_id} ${r.trigger_message_id}`, r.n]));
    let expected = 0;
    let missing = 0;
    let twice = runs.filter((r) => r.n > 1).length;
    let unexpected = 0;
    for (const m of messages) {
      for (const w of workflows) {
        const should = matcher(m.text, w.keywords, w.match);
        const n = got.get(`${w.id} ${m.id}`) ?? 0;
        got.delete(`${w.id} ${m.id}`);
        if (should) {
          expected++;
          if (n === 0) missing++;
        } else if (n > 0) unexpected++;
      }
    }
    unexpected += got.size;
    const started = runs.reduce((a, r) => a + r.n, 0);
    return { messages: messages.length, expected, started, missing, twice, unexpected };
  } finally {
    db.close();
  }
}

/** One load: a fresh store (with the workflows or none), its server, warm-up, the load. */
async function run(withWorkflows, seconds, matcher) {
  // Every sender is a contact already (a new one each message: no contact is in a run yet).
  const senders = Math.round((WARMUP_MS * RATE) / 1000) + seconds * RATE;
  const { dir, key } = benchStore('parley-trigger-bench-', 1000, (db, ws, now) => {
    const contact = db.prepare(
      `INSERT INTO contacts (id, workspace_id, environment, phone, name, created_at, updated_at)
       VALUES (?, ?, 'test', ?, ?, ?, ?)`,
    );
    for (let i = 0; i < senders; i++) contact.run(idOf(i), ws, phoneOf(i), `Person ${i}`, now, now);
  });
  const server = await startServer(dir);
  try {
    const api = async (method, p, body) => {
      const res = await fetch(server.url + p, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const workflows = [];
    if (withWorkflows) {
      for (const [i, c] of CONDITIONS.entries()) {
        const wf = await api('POST', '/workflows', {
          name: `Listens ${i}`,
          trigger: { type: 'message_received', ...c },
          // A run parks on its first step: what it costs to start is in, its later work is not.
          steps: [{ id: 'later', type: 'wait', duration: 'P1D' }],
        });
        workflows.push({ id: wf.id, ...c });
      }
    }
    const warm = Math.round((WARMUP_MS * RATE) / 1000);
    await load(server.url, key, 0, warm);
    await server.ask('reset');
    await server.ask('start');
    const count = seconds * RATE;
    const client = await load(server.url, key, warm, count);
    const lag = await server.ask('read');
    const inbound = await server.ask('inbound');
    // The runs' first steps (a job each) settle before the store is read.
    await sleep(2000);
    const runs = withWorkflows ? checkRuns(dir, matcher, workflows) : null;
    const sorted = client.latencies.sort((a, b) => a - b);
    return {
      workflows: workflows.length,
      sent: count,
      failures: client.failures,
      ratePerSecond: client.ratePerSecond,
      http: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) },
      inbound,
      lag,
      runs,
    };
  } finally {
    await end(server.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Trigger evaluation alone, in this process: the core's listening module (bundled) over the same
 * 20 workflows, its store an in-memory database and its run starts counted instead of made — what
 * each message costs to match, free of the HTTP, the inbound transaction and the machine's noise
 * around them (a call lasts microseconds, so a preemption seldom lands in one).
 */
async function evaluationOnly(listeningTriggers, count) {
  const db = new Database(':memory:');
  const scope = { workspaceId: 'ws_bench', environment: 'test' };
  const rows = CONDITIONS.map((c, i) => ({
    id: `wf_${i}`,
    workspace_id: scope.workspaceId,
    environment: 'test',
    version: 1,
    definition: JSON.stringify({
      name: `Listens ${i}`,
      trigger: { type: 'message_received', ...c },
      steps: [{ id: 'later', type: 'wait', duration: 'P1D' }],
    }),
  }));
  let started = 0;
  const listening = listeningTriggers({
    db,
    clock: { now: () => Date.now() },
    repo: {
      listening: () => rows,
      humanAt: () => undefined,
      contactActiveWorkflows: () => [],
    },
    engine: { startRun: () => ({ id: `run_${started++}` }) },
    contacts: { find: (_s, id) => ({ id }) },
    businessHours: { isOpen: () => true },
    conversationContact: () => 'ct_bench',
  });
  const pass = (from, n) => {
    const times = [];
    for (let i = from; i < from + n; i++) {
      const reply = { text: textOf(i) };
      const facts = { messageId: `msg_${i}`, at: Date.now(), firstInbound: true };
      const t0 = performance.now();
      listening.onMessage(scope, `ct_${i}`, reply, `conv_${i}`, facts);
      times.push(performance.now() - t0);
    }
    return times;
  };
  pass(0, 2000); // warm-up (the JIT)
  started = 0;
  const times = pass(2000, count);
  db.close();
  times.sort((a, b) => a - b);
  return { n: count, runs: started, p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

export async function workflowTriggerBench({
  seconds = Number(process.env.BENCH_TRIGGER_SECONDS ?? 30),
} = {}) {
  await bundleCore({
    core: 'main/core/core.ts',
    'workflow-triggers': 'shared/workflow-triggers.ts',
    'workflow-listening': 'main/core/modules/workflows/listening.ts',
  });
  const { matchesKeywords } = await import(
    pathToFileURL(path.join(BENCH_BUILD, 'workflow-triggers.mjs')).href
  );
  const { listeningTriggers } = await import(
    pathToFileURL(path.join(BENCH_BUILD, 'workflow-listening.mjs')).href
  );
  const evaluation = await evaluationOnly(listeningTriggers, seconds * RATE);
  const bare = await run(false, seconds, matchesKeywords);
  const listening = await run(true, seconds, matchesKeywords);
  return { seconds, bare, listening, evaluation };
}

export function printWorkflowTriggerRows({ seconds, bare, listening, evaluation }) {
  const f = (x) => x.toFixed(2);
  const header = [
    'load',
    'sent',
    'per s',
    'failed',
    'inbound path p50 ms',
    'inbound path p99 ms',
    'HTTP p50 ms',
    'HTTP p99 ms',
    'loop delay p99 ms',
    'runs expected',
    'runs started',
    'missing',
    'twice',
    'unexpected',
  ];
  const row = (name, r) => [
    name,
    String(r.sent),
    r.ratePerSecond.toFixed(0),
    String(r.failures),
    f(r.inbound.p50),
    f(r.inbound.p99),
    f(r.http.p50),
    f(r.http.p99),
    f(r.lag.p99Ms),
    r.runs ? String(r.runs.expected) : '',
    r.runs ? String(r.runs.started) : '',
    r.runs ? String(r.runs.missing) : '',
    r.runs ? String(r.runs.twice) : '',
    r.runs ? String(r.runs.unexpected) : '',
  ];
  const body = [
    row('no workflows', bare),
    row(`${listening.workflows} message_received workflows`, listening),
  ];
  const w = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(w[i])).join(' | ') + ' |';
  console.log(
    `\nListening workflows: ${RATE} inbound messages/s for ${seconds} s, open-loop over ${CONNECTIONS} keep-alive connections, each from another contact; inbound path = the server's own time in messages.receive (the inbound transaction)\n`,
  );
  console.log(line(header));
  console.log('|' + w.map((x) => '-'.repeat(x + 2)).join('|') + '|');
  body.forEach((b) => console.log(line(b)));
  const added = listening.inbound.p99 - bare.inbound.p99;
  const addedHttp = listening.http.p99 - bare.http.p99;
  const r = listening.runs;
  const once = r.missing === 0 && r.twice === 0 && r.unexpected === 0;
  console.log(
    `\nTrigger evaluation adds ${f(added)} ms to the inbound path's p99 (${f(addedHttp)} ms at HTTP) — ` +
      `${added <= ADDED_P99_MS ? 'PASS' : 'MISS'} (≤ ${ADDED_P99_MS} ms); runs once per matching message: ` +
      `${r.started} of ${r.expected} expected over ${r.messages} messages, ${r.missing} missing, ${r.twice} twice, ` +
      `${r.unexpected} unexpected — ${once ? 'PASS' : 'MISS'}`,
  );
  const us = (ms) => `${(ms * 1000).toFixed(1)} µs`;
  console.log(
    `Trigger evaluation alone (the listening module in the bench process, ${evaluation.n} messages, ` +
      `${evaluation.runs} matches): p50 ${us(evaluation.p50)}, p99 ${us(evaluation.p99)} a message`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printWorkflowTriggerRows(await workflowTriggerBench());
}
