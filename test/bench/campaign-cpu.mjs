// What one campaign message costs the core's event loop (issue 21's team bench: a 1,000 msg/s
// campaign shares the one thread with every request). A fresh store (campaigns.mjs), a campaign
// of BENCH_CPU_RECIPIENTS (default 10,000) at BENCH_CPU_MPS (default 1,000); prints the CPU from
// the launch until every read receipt landed, per message. Two modes (BENCH_CPU_MODE):
// - `core` (default): the core in this process (no HTTP), on a clock the bench moves 50 ms at a
//   time, running what is due after each step (the scheduler's `runDue`), with
//   BENCH_CPU_STREAMS (default 50) subscribers on the hub taking campaigns as a summary (as the
//   desk's streams do; their writes are counted, not sent). No timers, no sockets, no waiting:
//   this process's CPU is the core's work, whatever else the machine runs, so runs compare.
//   `node --cpu-prof test/bench/campaign-cpu.mjs` profiles it.
// - `serve`: the core of the team bench (test/bench/team-serve.mjs, no agents) in its own
//   process, in real time, with BENCH_CPU_STREAMS (default 10) API-key streams reading
//   `GET /events?campaigns=summary`; the server's CPU (from /proc) and its event loop's delay.
//   BENCH_CPU_PROFILE=DIR writes the server's CPU profile there (`--cpu-prof`).
// Run alone: `node test/bench/campaign-cpu.mjs` (it bundles the core first).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { campaignStore, campaignTimes } from './campaigns.mjs';
import {
  ask,
  BENCH_BUILD,
  bundleCore,
  cpuMs,
  end,
  keyClient,
  maxPerSecond,
  root,
  serve,
  sleep,
} from './serve-common.mjs';

const MODE = process.env.BENCH_CPU_MODE ?? 'core';
const RECIPIENTS = Number(process.env.BENCH_CPU_RECIPIENTS ?? 10_000);
const MPS = Number(process.env.BENCH_CPU_MPS ?? 1_000);
const STREAMS = Number(process.env.BENCH_CPU_STREAMS ?? (MODE === 'core' ? 50 : 10));
const PROFILE = process.env.BENCH_CPU_PROFILE;
const SERVER = path.join(root, 'test/bench/team-serve.mjs');
const STEP_MS = 50;
const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));

/** The core in this process on a clock moved by hand (see the file's comment). */
async function inProcess(dir, key) {
  const { createCore } = await import(pathToFileURL(path.join(BENCH_BUILD, 'core.mjs')).href);
  let now = Date.now();
  const core = await createCore({ dataDir: dir, clock: { now: () => now } });
  const { scheduler, hub } = core.services;
  const api = async (method, url, body) => {
    const res = await core.app.inject({
      method,
      url,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const workspaceId = core.services.workspaces.resolve().id;
  let bytes = 0;
  let writes = 0;
  const unsubscribe = Array.from({ length: STREAMS }, () =>
    hub.subscribe(
      {
        workspaceId,
        environment: 'test',
        types: null,
        campaigns: 'summary',
        agentId: null,
        sessionId: null,
        write: (chunk) => {
          bytes += chunk.length;
          writes++;
          return true;
        },
        drained: () => Promise.resolve(),
        end: () => {},
      },
      null,
    ),
  );
  try {
    const draft = await api('POST', '/campaigns', {
      name: 'CPU bench',
      templateName: 'bench_offer',
      variables: { 1: '{{contact.name}}' },
      target: { groupId: 'grp_bench' },
    });
    await scheduler.runDue();
    const before = process.cpuUsage();
    const started = performance.now();
    await api('POST', '/campaigns/launch', { id: draft.id });
    let p;
    let steps = 0;
    for (;;) {
      await scheduler.runDue();
      // The hub writes after the commit (setImmediate): let it.
      await new Promise((r) => setImmediate(r));
      if (++steps % 20 === 0) {
        p = await api('GET', `/campaigns/${draft.id}/progress`);
        if (p.status === 'completed' && p.read === p.sent) break;
      }
      now += STEP_MS;
    }
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000;
    return {
      mode: MODE,
      recipients: RECIPIENTS,
      mps: MPS,
      streams: STREAMS,
      sent: p.sent,
      cpuS: Number((cpuMs / 1000).toFixed(2)),
      wallS: Number(((performance.now() - started) / 1000).toFixed(2)),
      cpuPerMessageMs: Number((cpuMs / p.sent).toFixed(3)),
      hubWrites: writes,
      hubBytes: bytes,
      load: load(),
    };
  } finally {
    for (const u of unsubscribe) u();
    await core.stop();
  }
}

await bundleCore({ core: 'main/core/core.ts', pin: 'main/core/net/pin.ts' });
const { dir, key } = campaignStore(RECIPIENTS, MPS);
if (MODE === 'core') {
  try {
    console.log(JSON.stringify(await inProcess(dir, key)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
const { child, url } = await serve(dir, {
  argv: [
    ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : []),
    SERVER,
    dir,
    '0',
    'unused password',
  ],
  ipc: true,
});
const api = keyClient(url, key);
const streams = [];
let bytes = 0;
try {
  for (let i = 0; i < STREAMS; i++) {
    const req = http.get(`${url}/events?campaigns=summary`, {
      headers: { 'x-api-key': key },
      agent: false,
    });
    const [res] = await once(req, 'response');
    res.on('data', (d) => (bytes += d.length));
    streams.push(req);
  }
  const draft = await api('POST', '/campaigns', {
    name: 'CPU bench',
    templateName: 'bench_offer',
    variables: { 1: '{{contact.name}}' },
    target: { groupId: 'grp_bench' },
  });
  await sleep(500);
  const idleFrom = cpuMs(child.pid);
  await sleep(1000);
  const idlePerS = cpuMs(child.pid) - idleFrom;
  await ask(child, 'start');
  const cpuBefore = cpuMs(child.pid);
  const launchedAt = Date.now();
  await api('POST', '/campaigns/launch', { id: draft.id });
  let p;
  for (;;) {
    p = await api('GET', `/campaigns/${draft.id}/progress`);
    if (p.status === 'completed' && p.read === p.sent) break;
    if (Date.now() - launchedAt > (RECIPIENTS / MPS) * 4000 + 30_000) {
      throw new Error(`campaign stuck: ${JSON.stringify(p)}`);
    }
    await sleep(100);
  }
  const cpu = cpuMs(child.pid) - cpuBefore;
  const elapsedS = (Date.now() - launchedAt) / 1000;
  const lag = await ask(child, 'read');
  const { times, lastRead, launched } = campaignTimes(dir, draft.id);
  const result = {
    mode: MODE,
    recipients: RECIPIENTS,
    mps: MPS,
    streams: STREAMS,
    sent: p.sent,
    allSentS: Number(((times.at(-1) - launched) / 1000).toFixed(2)),
    lastReadS: Number(((lastRead - launched) / 1000).toFixed(2)),
    mostInAnySecond: maxPerSecond(times),
    serverCpuS: Number((cpu / 1000).toFixed(2)),
    idleCpuS: Number(((idlePerS * elapsedS) / 1000).toFixed(2)),
    cpuPerMessageMs: Number(((cpu - idlePerS * elapsedS) / p.sent).toFixed(3)),
    loopDelay: {
      p50: Number(lag.p50Ms.toFixed(1)),
      p99: Number(lag.p99Ms.toFixed(1)),
      max: Number(lag.maxMs.toFixed(1)),
    },
    streamBytes: bytes,
    load: load(),
  };
  console.log(JSON.stringify(result));
} finally {
  for (const s of streams) s.destroy();
  await end(child);
  fs.rmSync(dir, { recursive: true, force: true });
}
