// Team desk bench (issue 21): one desk, 50 signed-in agents each holding an event stream, while
// customers write 200 messages a second, 20 of the agents reply once a second each and a
// 10,000-recipient campaign runs at 1,000 msg/s — over the team desk's TLS listener (each client
// pinned to its self-signed certificate, main/core/net/pin.ts) and, as the control, the same load
// over the loopback listener's plain HTTP. Everything connects to 127.0.0.1 only; nothing is
// announced.
// Measured, in a window of BENCH_TEAM_SECONDS (default 4 × BENCH_SECONDS, at least 20 s; the
// issue's run is 60 s) after a 2 s warm-up, the campaign launched a quarter of the way in:
// - fan-out: for every stored event and every stream, its arrival − its createdAt (set in the
//   transaction that commits it); per event, the last of the 50 streams (target p99 ≤ 100 ms);
//   message.received also from the moment the bench posted it (the time is in its text);
// - POST /conversations/:id/reply (with basedOnMessageId, as the desk sends it): p99 ≤ 50 ms;
// - the campaign's hand-overs (sent_at, from the store): never more than 1,000 in any 1 s window,
//   all 10,000 sent;
// - no stream dropped: none ended before the bench closed it, and every event of the window in
//   the workspace's test environment reached every stream once, in order (a stream that ends is
//   opened again with Last-Event-ID, as the desk does, and counted as dropped).
// The load is open-loop: inbound at fixed instants over 32 keep-alive connections, each replier
// on its own second; a request's time runs from the instant it was due, so waiting for a free
// connection counts. Requests and events are also split at the campaign's launch.
// The server is test/bench/team-serve.mjs (the core bundled here into .build/bench/, as the
// identity bench does); the streams are read in worker threads (test/bench/team-streams.mjs).
// Run alone with `node test/bench/team.mjs` after `npm run build`, or as part of `npm run bench`;
// BENCH_TEAM_TLS=on|off runs one mode only, BENCH_TEAM_DEBUG=1 prints each second's p99s,
// BENCH_TEAM_PROFILE=DIR writes the server's CPU profile there.
import Database from 'better-sqlite3';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { campaignStore, campaignTimes } from './campaigns.mjs';
import {
  ask,
  BENCH_BUILD,
  bundleCore,
  cpuMs,
  end,
  maxPerSecond,
  root,
  SECONDS,
  serve,
  sleep,
} from './serve-common.mjs';

const RUN_SECONDS = Number(process.env.BENCH_TEAM_SECONDS ?? Math.max(20, 4 * SECONDS));
const WARMUP_MS = 2_000;
const AGENTS = 50;
const REPLIERS = 20;
const INBOUND_PER_SECOND = 200;
/** The customers who write in (their conversations), apart from the campaign's recipients. */
const CUSTOMERS = 2_000;
const RECIPIENTS = 10_000;
const MPS = 1_000;
const STREAM_WORKERS = Number(process.env.BENCH_TEAM_WORKERS ?? 2);
const FANOUT_P99_MS = 100;
const REPLY_P99_MS = 50;
const PASSWORD = 'bench correct horse 42';
const SERVER = path.join(root, 'test/bench/team-serve.mjs');
const STREAMS = path.join(root, 'test/bench/team-streams.mjs');
const PIN = path.join(BENCH_BUILD, 'pin.mjs');

/** createCore and the pin module, bundled as the CLI is, the migrations beside. */
const bundle = () => bundleCore({ core: 'main/core/core.ts', pin: 'main/core/net/pin.ts' });

/**
 * Requests to the desk: over TLS through an agent pinned to its fingerprint (a connection to
 * any other certificate fails before a byte is sent), else plain HTTP; keep-alive either way.
 */
function client(base, fingerprint, pin) {
  const tls = base.startsWith('https:');
  const agent = (maxSockets) =>
    tls
      ? pin.pinnedAgent(fingerprint, { keepAlive: true, maxSockets })
      : new http.Agent({ keepAlive: true, maxSockets });
  const request = (agent, method, p, headers, body) =>
    new Promise((resolve, reject) => {
      const t = performance.now();
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = (tls ? https : http).request(`${base}${p}`, {
        method,
        agent,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      });
      req.once('error', reject);
      req.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.once('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            text,
            ms: performance.now() - t,
          }),
        );
      });
      req.end(payload);
    });
  return { agent, request };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** p50, p99 and max of a 1 ms histogram. */
function fromHistogram(h) {
  let n = 0;
  for (const c of h) n += c;
  const at = (q) => {
    const want = Math.floor(q * n);
    let seen = 0;
    for (let i = 0; i < h.length; i++) {
      seen += h[i];
      if (seen > want) return i;
    }
    return h.length - 1;
  };
  let max = 0;
  for (let i = h.length - 1; i >= 0; i--)
    if (h[i]) {
      max = i;
      break;
    }
  return { n, p50: at(0.5), p99: at(0.99), max };
}

const timing = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s.at(-1) };
};

/** One run of the whole load, over TLS or not. */
export async function teamRun({ tls }) {
  const pin = await import(pathToFileURL(PIN).href);
  const { dir, key } = campaignStore(RECIPIENTS, MPS);
  const workers = [];
  let child;
  const db = () => new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    ({ child } = await serve(dir, {
      argv: [
        // A CPU profile of the server, for finding where its time goes.
        ...(process.env.BENCH_TEAM_PROFILE
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_TEAM_PROFILE}`]
          : []),
        SERVER,
        dir,
        String(AGENTS),
        PASSWORD,
      ],
      ipc: true,
    }));
    const desk = await ask(child, 'desk');
    const base = tls ? desk.teamUrl : desk.url;
    if (tls && (await pin.fetchFingerprint(base)) !== desk.fingerprint) {
      throw new Error(`${base} shows another certificate than the desk reported`);
    }
    const { agent, request } = client(base, desk.fingerprint, pin);
    const cookieName = tls ? '__Host-parley_session' : 'parley_session';
    const keyHeaders = { 'x-api-key': key };
    const api = async (a, method, p, body) => {
      const r = await request(a, method, p, keyHeaders, body);
      if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
      return JSON.parse(r.text);
    };

    // Sign-ins, four at a time (scrypt's threads), each agent with a keep-alive agent of its own.
    const agents = Array.from({ length: AGENTS }, (_, i) => ({ index: i + 1, agent: agent(2) }));
    for (let i = 0; i < AGENTS; i += 4) {
      await Promise.all(
        agents.slice(i, i + 4).map(async (a) => {
          const r = await request(
            a.agent,
            'POST',
            '/login',
            {},
            { email: `agent${a.index}@bench.example`, password: PASSWORD },
          );
          const cookie = [r.headers['set-cookie'] ?? []].flat().join(';');
          a.token = new RegExp(`(?:^|[;,]\\s*)${cookieName}=([^;]+)`).exec(cookie)?.[1];
          if (r.status !== 204 || !a.token) {
            throw new Error(`POST /login: ${r.status} ${cookie} ${r.text.slice(0, 200)}`);
          }
        }),
      );
    }

    // The streams, spread over the workers.
    const connected = [];
    for (let w = 0; w < STREAM_WORKERS; w++) {
      const mine = agents.filter((_, i) => i % STREAM_WORKERS === w);
      const worker = new Worker(STREAMS, {
        workerData: {
          base,
          fingerprint: desk.fingerprint,
          cookieName,
          pinModule: pathToFileURL(PIN).href,
          agents: mine.map((a) => ({ index: a.index, token: a.token })),
        },
      });
      workers.push(worker);
      connected.push(
        new Promise((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
      );
    }
    await Promise.all(connected);
    await sleep(500); // presence settles

    const inboundAgent = agent(32);
    const campaign = await api(inboundAgent, 'POST', '/campaigns', {
      name: `Team bench ${tls ? 'TLS' : 'plain'}`,
      templateName: 'bench_offer',
      variables: { 1: '{{contact.name}}' },
      target: { groupId: 'grp_bench' },
    });
    // The poster's 32 keep-alive connections are open before the window, as a webhook
    // sender's pool and the desks' own connections are: the run measures requests, not the
    // handshakes of connections opened under load.
    await Promise.all(
      Array.from({ length: 32 }, () => api(inboundAgent, 'GET', '/campaigns?limit=1')),
    );

    // The load: inbound and replies from now on; measured from `window.start`.
    const window = { start: Infinity, end: Infinity };
    const inbound = { ms: [], errors: 0, sent: 0 };
    const replies = { ms: [], errors: {}, skipped: 0 };
    const inFlight = new Set();
    /** [kind, ms after the window's start, latency]: the phases, and BENCH_TEAM_DEBUG's lines. */
    const timeline = [];
    const track = (p) => {
      inFlight.add(p);
      p.finally(() => inFlight.delete(p));
    };
    /** Per replier: the conversations of its customers with a message, and the newest one's id. */
    const pending = Array.from({ length: REPLIERS }, () => new Map());
    const lag = monitorEventLoopDelay({ resolution: 1 });
    let stopped = false;
    const t0 = Date.now();

    const postInbound = (n) => {
      const customer = n % CUSTOMERS;
      const at = Date.now();
      track(
        request(inboundAgent, 'POST', '/api/simulator/inbound', keyHeaders, {
          phone: `+4916012${String(customer).padStart(6, '0')}`,
          message: `bench@${at}@ from customer ${customer}`,
        }).then(
          (r) => {
            const measured = at >= window.start && at < window.end;
            if (r.status !== 200) {
              if (measured) inbound.errors++;
              return;
            }
            if (measured) {
              inbound.ms.push(r.ms);
              timeline.push(['inbound', at - window.start, r.ms]);
            }
            const m = JSON.parse(r.text);
            pending[customer % REPLIERS].set(m.conversationId, m.id);
          },
          () => inbound.errors++,
        ),
      );
    };
    const inboundLoop = (async () => {
      while (!stopped) {
        const due = Math.floor(((Date.now() - t0) * INBOUND_PER_SECOND) / 1000);
        while (inbound.sent < due) postInbound(inbound.sent++);
        await sleep(5);
      }
    })();
    const reply = async (r) => {
      const a = agents[r];
      const next = pending[r].entries().next();
      if (next.done) {
        replies.skipped++;
        return;
      }
      const [conversationId, messageId] = next.value;
      pending[r].delete(conversationId);
      const at = Date.now();
      const res = await request(
        a.agent,
        'POST',
        `/conversations/${conversationId}/reply`,
        { cookie: `${cookieName}=${a.token}` },
        { text: `Thanks, agent ${a.index} here.`, basedOnMessageId: messageId },
      ).catch((e) => ({ status: e.code ?? 'error', ms: 0 }));
      if (at < window.start || at >= window.end) return;
      if (res.status === 200) {
        replies.ms.push(res.ms);
        timeline.push(['reply', at - window.start, res.ms]);
      } else replies.errors[res.status] = (replies.errors[res.status] ?? 0) + 1;
    };
    const replyLoops = Array.from({ length: REPLIERS }, async (_, r) => {
      // Each replier once a second, the 20 spread over the second.
      for (let k = 0; !stopped; k++) {
        const wait = t0 + (r * 1000) / REPLIERS + k * 1000 - Date.now();
        if (wait > 0) await sleep(wait);
        if (stopped) break;
        track(reply(r));
      }
    });

    await sleep(WARMUP_MS);
    const read = db();
    const maxSeq = read.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck();
    const fromSeq = maxSeq.get();
    workers.forEach((w) => w.postMessage({ measure: true, fromSeq }));
    await ask(child, 'start');
    lag.enable();
    const cpuBefore = cpuMs(child.pid);
    const benchCpuBefore = process.cpuUsage();
    const load1 = os.loadavg()[0];
    window.start = Date.now();
    window.end = window.start + RUN_SECONDS * 1000;
    await sleep((RUN_SECONDS * 1000) / 4);
    const launchedAt = Date.now();
    await api(inboundAgent, 'POST', '/campaigns/launch', { id: campaign.id });
    if (process.env.BENCH_TEAM_DEBUG) {
      console.log(
        `launch answered in ${Date.now() - launchedAt} ms, at ${launchedAt - window.start} ms`,
      );
    }
    await sleep(window.end - Date.now());
    stopped = true;
    await Promise.all([inboundLoop, ...replyLoops]);
    await Promise.all([...inFlight]);
    if (process.env.BENCH_TEAM_TIMELINE) {
      fs.writeFileSync(
        `${process.env.BENCH_TEAM_TIMELINE}-${tls ? 'tls' : 'plain'}.json`,
        JSON.stringify(timeline),
      );
    }
    const serverCpuS = (cpuMs(child.pid) - cpuBefore) / 1000;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const serverLag = await ask(child, 'read');
    lag.disable();
    const load2 = os.loadavg()[0];

    // The campaign's end (and its statuses), then every stream has every event.
    let progress;
    const deadline = Date.now() + 60_000;
    for (;;) {
      progress = await api(inboundAgent, 'GET', `/campaigns/${campaign.id}/progress`);
      if (progress.status === 'completed' && progress.read === progress.sent) break;
      if (Date.now() > deadline) break;
      await sleep(250);
    }
    await sleep(1000);
    // The desk's streams take a campaign as its progress (?campaigns=summary): its
    // per-recipient events are not theirs to get.
    const toSeq = read
      .prepare('SELECT coalesce(max(seq), 0) FROM events WHERE campaign_id IS NULL')
      .pluck()
      .get();
    const expected = read
      .prepare(
        `SELECT seq, workspace_id, environment, created_at FROM events
         WHERE seq > ? AND seq <= ? AND campaign_id IS NULL ORDER BY seq`,
      )
      .all(fromSeq, toSeq);
    const folded = read
      .prepare('SELECT count(*) FROM events WHERE seq > ? AND campaign_id IS NOT NULL')
      .pluck()
      .get(fromSeq);
    const inWindow = read
      .prepare('SELECT count(*) FROM events WHERE seq > ? AND created_at < ?')
      .pluck()
      .get(fromSeq, window.end);
    read.close();
    const { times, launched } = campaignTimes(dir, campaign.id);

    const reports = await Promise.all(
      workers.map((w) => {
        const r = once(w, 'message');
        w.postMessage({ finish: true, toSeq });
        return r.then(([m]) => m);
      }),
    );
    const deliveries = new Uint32Array(reports[0].deliveries.length);
    const inboundE2e = new Uint32Array(reports[0].inbound.length);
    const arrivals = new Map();
    const streams = [];
    for (const r of reports) {
      r.deliveries.forEach((c, i) => (deliveries[i] += c));
      r.inbound.forEach((c, i) => (inboundE2e[i] += c));
      for (const [seq, [ms, n]] of r.arrivals) {
        const a = arrivals.get(seq);
        if (!a) arrivals.set(seq, [ms, n]);
        else arrivals.set(seq, [Math.max(a[0], ms), a[1] + n]);
      }
      streams.push(...r.streams);
    }
    // Every event of the window in the streams' scope, at every stream.
    const ws = expected.find((e) => e.environment === 'test')?.workspace_id;
    let missing = 0;
    let outOfScope = 0;
    // The last of the 50 streams, per event: all of the window, before the campaign's launch,
    // after it.
    const lastStream = new Uint32Array(deliveries.length);
    const beforeLaunch = new Uint32Array(deliveries.length);
    const afterLaunch = new Uint32Array(deliveries.length);
    for (const e of expected) {
      const a = arrivals.get(e.seq);
      if (e.workspace_id !== ws || e.environment !== 'test') {
        outOfScope++;
        continue;
      }
      missing += AGENTS - (a?.[1] ?? 0);
      // An event some stream never got counts as the latest there is.
      const ms = a?.[1] === AGENTS ? a[0] : lastStream.length - 1;
      lastStream[ms]++;
      (e.created_at < launchedAt ? beforeLaunch : afterLaunch)[ms]++;
    }
    const drops = streams.flatMap((s) => s.drops.map((d) => ({ member: s.member, ...d })));
    const unordered = streams.filter((s) => !s.ordered).length;
    const workerLag = reports.map((r) => r.lag);
    const lastSent = times.at(-1);
    /** p99 of the requests sent before the campaign's launch, and of those sent after it. */
    const phases = (kind) => {
      const of = (before) =>
        timing(
          timeline
            .filter((t) => t[0] === kind && t[1] < launchedAt - window.start === before)
            .map((t) => t[2]),
        ).p99;
      return { p99Before: of(true), p99After: of(false) };
    };
    if (process.env.BENCH_TEAM_DEBUG) {
      for (let sec = 0; sec < RUN_SECONDS; sec++) {
        const of = (kind) =>
          timing(
            timeline
              .filter((t) => t[0] === kind && Math.floor(t[1] / 1000) === sec)
              .map((t) => t[2]),
          );
        const i = of('inbound');
        const r = of('reply');
        const sent = times.filter((t) => Math.floor((t - window.start) / 1000) === sec).length;
        console.log(
          `${tls ? 'TLS' : 'plain'} s${sec}: inbound ${i.n} p99 ${i.p99?.toFixed(0)} max ${i.max?.toFixed(0)}; replies ${r.n} p99 ${r.p99?.toFixed(0)}; campaign sent ${sent}`,
        );
      }
    }
    return {
      tls,
      seconds: RUN_SECONDS,
      load: [load1, load2],
      events: expected.length - outOfScope,
      folded,
      eventsPerSecond: inWindow / RUN_SECONDS,
      outOfScope,
      fanout: fromHistogram(deliveries),
      everyStream: fromHistogram(lastStream),
      everyStreamBefore: fromHistogram(beforeLaunch),
      everyStreamAfter: fromHistogram(afterLaunch),
      inboundE2e: fromHistogram(inboundE2e),
      missing,
      drops: drops.length,
      streamsDropped: new Set(drops.map((d) => d.member)).size,
      dropTimes: [...new Set(drops.map((d) => ((d.at - launchedAt) / 1000).toFixed(1)))],
      dropReasons: [...new Set(drops.map((d) => d.why))],
      resets: streams.reduce((n, s) => n + s.resets, 0),
      unordered,
      inbound: {
        ...timing(inbound.ms),
        ...phases('inbound'),
        perSecond: inbound.ms.length / RUN_SECONDS,
        errors: inbound.errors,
      },
      replies: {
        ...timing(replies.ms),
        ...phases('reply'),
        perSecond: replies.ms.length / RUN_SECONDS,
        errors: replies.errors,
        skipped: replies.skipped,
      },
      campaign: {
        sent: times.length,
        status: progress.status,
        launchS: (launched - launchedAt) / 1000,
        allSentS: lastSent ? (lastSent - launched) / 1000 : null,
        maxPerSecond: maxPerSecond(times),
      },
      serverCpuS,
      benchCpuS: (benchCpu.user + benchCpu.system) / 1e6,
      serverLag,
      benchLag: { p99Ms: lag.percentile(99) / 1e6 - 1, maxMs: lag.max / 1e6 - 1 },
      workerLag,
    };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    if (child) await end(child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Both runs: over the team desk's TLS listener, then plain HTTP on loopback. */
export async function teamBench() {
  await bundle();
  return [await teamRun({ tls: true }), await teamRun({ tls: false })];
}

const verdict = (ok) => (ok ? 'PASS' : 'MISS');

export function printTeamRows(runs) {
  const f = (x, d = 0) => (x === null || x === undefined ? '–' : x.toFixed(d));
  // The histograms' last bucket: a minute or more, or never (an event some stream never got).
  const ms = (x) => (x >= 60_000 ? 'never' : String(x));
  const rows = [
    [
      'event fan-out p99, to every stream (ms)',
      (r) =>
        `${ms(r.everyStream.p99)} ${verdict(r.everyStream.p99 <= FANOUT_P99_MS && r.missing === 0)}`,
      `≤ ${FANOUT_P99_MS}`,
    ],
    [
      '  before the campaign / while it runs (ms)',
      (r) => `${ms(r.everyStreamBefore.p99)} / ${ms(r.everyStreamAfter.p99)}`,
      '',
    ],
    [
      'event fan-out per delivery p50 / p99 / max (ms)',
      (r) => `${ms(r.fanout.p50)} / ${ms(r.fanout.p99)} / ${ms(r.fanout.max)}`,
      '',
    ],
    [
      'message.received, post → stream p50 / p99 (ms)',
      (r) => `${ms(r.inboundE2e.p50)} / ${ms(r.inboundE2e.p99)}`,
      '',
    ],
    [
      'events / deliveries checked (campaign events left to its progress)',
      (r) =>
        `${r.events.toLocaleString('en')} / ${r.fanout.n.toLocaleString('en')} (${r.folded.toLocaleString('en')})`,
      '',
    ],
    ['events per second (window)', (r) => f(r.eventsPerSecond), ''],
    [
      'streams dropped (times) / deliveries missing 10 s after / out of order',
      (r) =>
        `${r.streamsDropped} (${r.drops}) / ${r.missing} / ${r.unordered} ${verdict(r.drops === 0 && r.missing === 0 && r.unordered === 0)}`,
      '0 / 0 / 0',
    ],
    [
      'reply API p50 / p99 / max (ms)',
      (r) =>
        `${f(r.replies.p50, 1)} / ${f(r.replies.p99, 1)} / ${f(r.replies.max, 1)} ${verdict(r.replies.p99 <= REPLY_P99_MS && Object.keys(r.replies.errors).length === 0)}`,
      `p99 ≤ ${REPLY_P99_MS}`,
    ],
    [
      '  p99 before the campaign / while it runs (ms)',
      (r) => `${f(r.replies.p99Before, 1)} / ${f(r.replies.p99After, 1)}`,
      '',
    ],
    [
      'replies / s (refused)',
      (r) => `${f(r.replies.perSecond, 1)} (${JSON.stringify(r.replies.errors)})`,
      `${REPLIERS}`,
    ],
    [
      'inbound / s, p50 / p99 (ms) (errors)',
      (r) =>
        `${f(r.inbound.perSecond)}, ${f(r.inbound.p50, 1)} / ${f(r.inbound.p99, 1)} (${r.inbound.errors})`,
      `${INBOUND_PER_SECOND}`,
    ],
    [
      '  p99 before the campaign / while it runs (ms)',
      (r) => `${f(r.inbound.p99Before, 1)} / ${f(r.inbound.p99After, 1)}`,
      '',
    ],
    [
      'campaign: sent, all sent after launch (s), most in any 1 s',
      (r) =>
        `${r.campaign.sent.toLocaleString('en')}, ${f(r.campaign.allSentS, 2)}, ${r.campaign.maxPerSecond} ${verdict(r.campaign.sent === RECIPIENTS && r.campaign.maxPerSecond <= MPS)}`,
      `${RECIPIENTS.toLocaleString('en')}, ≤ ${MPS}`,
    ],
    [
      'server CPU (s) / event loop lag p99 / max (ms)',
      (r) => `${f(r.serverCpuS, 1)} / ${f(r.serverLag.p99Ms, 1)} / ${f(r.serverLag.maxMs)}`,
      '',
    ],
    [
      'bench CPU (s) / lag max: main, stream workers (ms)',
      (r) =>
        `${f(r.benchCpuS, 1)} / ${f(r.benchLag.maxMs)}, ${r.workerLag.map((l) => f(l.maxMs)).join(', ')}`,
      '',
    ],
    ['load average (1 min) at start / end', (r) => `${f(r.load[0], 2)} / ${f(r.load[1], 2)}`, ''],
  ];
  const header = ['team desk', ...runs.map((r) => (r.tls ? 'TLS on' : 'TLS off')), 'target'];
  const body = rows.map(([name, cell, target]) => [name, ...runs.map(cell), target]);
  const w = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(w[i])).join(' | ') + ' |';
  console.log(
    `\nTeam desk (${AGENTS} agents signed in, each holding GET /events; ${INBOUND_PER_SECOND} inbound/s; ${REPLIERS} agents replying 1/s; ` +
      `a ${RECIPIENTS.toLocaleString('en')}-recipient campaign at ${MPS} msg/s launched ${RUN_SECONDS / 4} s in; ${RUN_SECONDS} s measured after a ${WARMUP_MS / 1000} s warm-up; ` +
      `TLS on = the team desk's listener, each client pinned to its certificate; off = the loopback listener, plain HTTP)\n`,
  );
  console.log(line(header));
  console.log('|' + w.map((x) => '-'.repeat(x + 2)).join('|') + '|');
  body.forEach((b) => console.log(line(b)));
  for (const r of runs) {
    if (r.drops) {
      console.log(
        `${r.tls ? 'TLS on' : 'TLS off'}: ${r.drops} stream ends (${r.dropReasons.join('; ')}), at ${r.dropTimes.join(', ')} s after the campaign's launch; each opened again with Last-Event-ID (${r.resets} stream.reset)`,
      );
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.env.BENCH_TEAM_TLS;
  const runs = [];
  await bundle();
  if (only !== 'off') runs.push(await teamRun({ tls: true }));
  if (only !== 'on') runs.push(await teamRun({ tls: false }));
  printTeamRows(runs);
}
