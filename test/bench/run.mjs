// `npm run bench`: the core against a floor measured in the same run, on 127.0.0.1 only.
// Each scenario: 1 s warm-up, then BENCH_SECONDS (default 5) at 32 connections.
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { campaignBench, printCampaignRows } from './campaigns.mjs';
import { emailBench, printEmailRows } from './email.mjs';
import { identityBench, printIdentityRows } from './identity.mjs';
import { mediaBench, printMediaRows } from './media.mjs';
import { BIN, contactsStore, loadResult, readEvents, root, SECONDS } from './serve-common.mjs';
import { printStallRows, stallBench } from './stalls.mjs';
import { printTeamRows, teamBench } from './team.mjs';
import { printWorkflowRows, workflowBench } from './workflows.mjs';
import { printWorkflowTriggerRows, workflowTriggerBench } from './workflows-trigger.mjs';

const CONNECTIONS = 32;
const cleanup = [];

/** contactsStore(), removed when the run ends. */
function seed() {
  const store = contactsStore();
  cleanup.push(() => fs.rmSync(store.dir, { recursive: true, force: true }));
  return store;
}

function startServer(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    cleanup.push(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

let phoneCounter = 0;
async function load(url, key, scenario, duration) {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const opts =
    scenario === 'get'
      ? { url: `${url}/api/contacts?limit=50`, headers }
      : {
          url,
          requests: [
            scenario === 'send'
              ? {
                  method: 'POST',
                  path: '/api/send',
                  headers,
                  setupRequest: (req) => ({
                    ...req,
                    body: JSON.stringify({
                      phone: `+4917612${String(phoneCounter++ % 1_000_000).padStart(6, '0')}`,
                      templateName: 'bench_notice',
                      variables: { 1: 'A-1' },
                    }),
                  }),
                }
              : {
                  method: 'POST',
                  path: '/api/contacts',
                  headers,
                  setupRequest: (req) => ({
                    ...req,
                    body: JSON.stringify({
                      phone: `+4917612${String(phoneCounter++ % 1_000_000).padStart(6, '0')}`,
                      name: 'Bench',
                    }),
                  }),
                },
          ],
        };
  const r = await autocannon({ ...opts, connections: CONNECTIONS, duration });
  return loadResult(r);
}

async function measure(label, args, scenario, env) {
  const { dir, key } = seed();
  const server = await startServer([...args, dir].filter(Boolean), env);
  await load(server.url, key, scenario, 1);
  const result = await load(server.url, key, scenario, SECONDS);
  server.stop();
  if (result.non2xx + result.errors > 0 || result.rps === 0) {
    throw new Error(
      `${label} answered ${result.non2xx} non-2xx responses and ${result.errors} errors: the run is invalid`,
    );
  }
  return { label, ...result };
}

const rows = [];
try {
  for (const [scenario, name, target] of [
    ['get', 'GET /api/contacts (50 of 10k)', { ratio: 0.7, p99: 20 }],
    ['post', 'POST /api/contacts (create)', null],
    ['send', 'POST /api/send (test key)', { ratio: 0.5, p99: 25 }],
  ]) {
    const floor = await measure('floor', [path.join(root, 'test/bench/floor.mjs')], scenario);
    const core = await measure('core', [BIN, 'serve', '--port', '0', '--data-dir'], scenario, {
      PARLEY_RATE_LIMIT: '100000000',
    });
    const ratio = core.rps / floor.rps;
    const verdict = target
      ? ratio >= target.ratio && core.p99 < target.p99
        ? 'PASS'
        : 'MISS'
      : '';
    rows.push({
      name,
      server: 'floor (node:http + better-sqlite3)',
      ...floor,
      ratio: '',
      verdict: '',
    });
    rows.push({
      name,
      server: 'core (parley serve)',
      ...core,
      ratio: `${(ratio * 100).toFixed(0)}%`,
      verdict: target ? `${verdict} (≥${target.ratio * 100}%, p99<${target.p99}ms)` : '',
    });
    if (scenario === 'get') {
      // The session check, against the same floor (and sign-in's cost).
      rows.identity = await identityBench({ floor });
      rows.push(...rows.identity.rows);
    }
  }
  rows.sse = await sseLatency();
  rows.inbox = await inbox();
  rows.campaigns = await campaignBench();
  rows.workflows = await workflowBench();
  rows.workflowTriggers = await workflowTriggerBench({ seconds: SECONDS });
  rows.email = await emailBench();
  rows.stalls = await stallBench();
  rows.team = await teamBench();
  rows.media = await mediaBench();
} finally {
  cleanup.reverse().forEach((f) => f());
}

/**
 * The inbox at scale: 100,000 conversations and 1,000,000 messages, seeded by
 * test/bench/seed-inbox.mjs; list pages and message pages at 32 connections, then the inbox's
 * first render in Chromium.
 */
async function inbox() {
  const { seedInbox } = await import('./seed-inbox.mjs');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-inbox-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const seeded = seedInbox(
    dir,
    Number(process.env.BENCH_CONVERSATIONS ?? 100_000),
    Number(process.env.BENCH_MESSAGES ?? 1_000_000),
  );
  const server = await startServer([BIN, 'serve', '--port', '0', '--data-dir', dir], {
    PARLEY_RATE_LIMIT: '100000000',
  });
  const headers = { 'x-api-key': seeded.key };
  const pad = (n) => String(n).padStart(20, '0');
  const pages = [
    ['GET /conversations (first page)', '/conversations'],
    [
      'GET /conversations?status=open&assignee=…',
      '/conversations?status=open&assignee=agt_bench_ann',
    ],
    ['GET /conversations?status=pending&label=vip', '/conversations?status=pending&label=vip'],
    ['GET /conversations/:id/messages (random)', null],
  ];
  const results = [];
  for (const [name, p] of pages) {
    const opts = p
      ? { url: server.url + p, headers }
      : {
          url: server.url,
          requests: [
            {
              method: 'GET',
              headers,
              setupRequest: (req) => ({
                ...req,
                path: `/conversations/conv_0BENCH${pad(Math.floor(Math.random() * seeded.conversations))}/messages`,
              }),
            },
          ],
        };
    await autocannon({ ...opts, connections: CONNECTIONS, duration: 1 });
    const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: SECONDS });
    if (r.non2xx + r.errors > 0)
      throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    results.push({ name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 });
  }
  let render;
  try {
    const { measureInboxRender } = await import('./inbox-render.mjs');
    render = await measureInboxRender(server.url, dir);
  } catch (e) {
    render = { error: e.message.split('\n')[0] };
  }
  server.stop();
  return { seeded, results, render };
}

const header = ['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs floor', 'target'];
const body = rows.map((r) => [
  r.name,
  r.server,
  r.rps.toFixed(0),
  String(r.p50),
  String(r.p99),
  String(r.non2xx + r.errors),
  r.ratio,
  r.verdict,
]);
const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
console.log(
  `\n${CONNECTIONS} connections, ${SECONDS} s per run, Node ${process.version}, ${os.cpus().length} cores\n`,
);
console.log(line(header));
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
body.forEach((b) => console.log(line(b)));
const sse = rows.sse;
console.log(
  `\nSSE delivery, commit → subscriber: ${sse.subscribers} subscribers × ${sse.events} events, ${sse.received}/${sse.expected} received, ` +
    `p50 ${sse.p50} ms, p99 ${sse.p99} ms, max ${sse.max} ms — ${sse.received === sse.expected && sse.p99 < 50 ? 'PASS' : 'MISS'} (p99 < 50 ms)`,
);
const ib = rows.inbox;
console.log(
  `\nInbox: ${ib.seeded.conversations.toLocaleString('en')} conversations, ${ib.seeded.messages.toLocaleString('en')} messages, seeded in ${(ib.seeded.ms / 1000).toFixed(1)} s (target < 60 s)\n`,
);
const ibRows = ib.results.map((r) => [
  r.name,
  r.rps.toFixed(0),
  String(r.p50),
  String(r.p99),
  r.p99 < 20 ? 'PASS (p99<20ms)' : 'MISS (p99<20ms)',
]);
const ibHeader = ['inbox page', 'req/s', 'p50 ms', 'p99 ms', 'target'];
const ibW = ibHeader.map((h, i) => Math.max(h.length, ...ibRows.map((b) => b[i].length)));
const ibLine = (cells) => '| ' + cells.map((c, i) => c.padEnd(ibW[i])).join(' | ') + ' |';
console.log(ibLine(ibHeader));
console.log('|' + ibW.map((w) => '-'.repeat(w + 2)).join('|') + '|');
ibRows.forEach((b) => console.log(ibLine(b)));
const r = ib.render;
console.log(
  r.error
    ? `\nInbox first render in Chromium: not measured (${r.error})`
    : `\nInbox first render in Chromium: first row painted ${Math.round(r.firstRowMs)} ms after navigation — ${r.firstRowMs < 1500 ? 'PASS' : 'MISS'} (< 1500 ms); ` +
        `DOM rows ${r.domRows} at rest, at most ${r.maxDomRows} while scrolling — ${r.maxDomRows < 100 ? 'PASS' : 'MISS'} (< 100); long tasks while scrolling: ${r.longTasks}`,
);

printCampaignRows(rows.campaigns);
printWorkflowRows(rows.workflows);
printWorkflowTriggerRows(rows.workflowTriggers);
printEmailRows(rows.email);
printStallRows(rows.stalls);
printIdentityRows(rows.identity);
printTeamRows(rows.team);
printMediaRows(rows.media);

/**
 * SSE delivery latency: 100 subscribers on GET /events (over 4 keys: a key may hold 32
 * streams); 50 inbound messages posted 20 ms apart; latency = arrival at each subscriber −
 * the event's createdAt (set at commit).
 */
async function sseLatency() {
  const SUBSCRIBERS = 100;
  const EVENTS = 50;
  const { dir, key } = seed();
  const keys = [
    key,
    ...Array.from(
      { length: 3 },
      (_, i) =>
        JSON.parse(
          execFileSync(
            process.execPath,
            [
              BIN,
              'keys',
              'create',
              '--env',
              'test',
              '--name',
              `sse-${i}`,
              '--json',
              '--data-dir',
              dir,
            ],
            { encoding: 'utf8' },
          ),
        ).key,
    ),
  ];
  const server = await startServer([BIN, 'serve', '--port', '0', '--data-dir', dir], {
    PARLEY_RATE_LIMIT: '100000000',
  });
  const samples = [];
  const controllers = [];
  let received = 0;
  const streams = Array.from({ length: SUBSCRIBERS }, async (_, n) => {
    const controller = new AbortController();
    controllers.push(controller);
    const res = await fetch(`${server.url}/events?types=message.received`, {
      headers: { 'x-api-key': keys[n % keys.length] },
      signal: controller.signal,
    });
    await readEvents(res, (event, now) => {
      samples.push(now - Date.parse(event.createdAt));
      received++;
    });
  });
  await new Promise((r) => setTimeout(r, 500)); // all connected
  for (let n = 0; n < EVENTS; n++) {
    await fetch(`${server.url}/api/simulator/inbound`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: `+4915112${String(n).padStart(6, '0')}`, message: 'ping' }),
    });
    await new Promise((r) => setTimeout(r, 20));
  }
  const deadline = Date.now() + 5000;
  while (received < SUBSCRIBERS * EVENTS && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  controllers.forEach((c) => c.abort());
  await Promise.allSettled(streams);
  server.stop();
  samples.sort((a, b) => a - b);
  const pct = (p) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
  return {
    subscribers: SUBSCRIBERS,
    events: EVENTS,
    received,
    expected: SUBSCRIBERS * EVENTS,
    p50: pct(50),
    p99: pct(99),
    max: samples.at(-1),
  };
}
