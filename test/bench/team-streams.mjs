// The team bench's event streams (test/bench/team.mjs), in a worker thread of their own so that
// reading them does not hold up the load the main thread makes (nor its timing). Each agent of
// workerData holds one `GET /events?campaigns=summary` (every event type, a campaign as its
// progress, as the desk's stream asks once its stores
// are loaded) with their session cookie, over TLS through an agent pinned to the desk's
// certificate (main/core/net/pin.ts `pinnedAgent`), or plain HTTP on the loopback listener.
// A stream that ends is counted as dropped and, as the desk does (renderer/src/api/events.ts),
// opened again 250 ms later with Last-Event-ID, so that what it missed still counts.
// Messages from the main thread: 'measure' {fromSeq} — from now, stored events after fromSeq
// count; 'finish' {toSeq} — wait (≤ 10 s) until every stream has seq toSeq, then close them
// all and post the report.
import http from 'node:http';
import https from 'node:https';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { base, fingerprint, cookieName, agents, pinModule } = workerData;
const tls = base.startsWith('https:');
const { pinnedAgent } = tls ? await import(pinModule) : {};
const agent = tls
  ? pinnedAgent(fingerprint, { maxSockets: Infinity })
  : new http.Agent({ maxSockets: Infinity });
/** The desk's quick retry after a stream that was open ends (renderer/src/api/events.ts). */
const RETRY_MS = 250;
/** Latencies in 1 ms buckets up to a minute; the last bucket holds everything later. */
const BUCKETS = 60_001;
const deliveries = new Uint32Array(BUCKETS);
/**
 * Per stored event (seq): [the latest arrival over this worker's streams in ms after its
 * createdAt, how many of them got it].
 */
const arrivals = new Map();
/** message.received: the arrival, ms after the bench posted it (the time is in its text). */
const inbound = new Uint32Array(BUCKETS);
const MARK = '"text":"bench@';
const lag = monitorEventLoopDelay({ resolution: 1 });
let fromSeq = Infinity;
let measuring = false;

const streams = agents.map((a) => ({
  member: a.index,
  token: a.token,
  /** Each time it ended (or failed) before the bench closed it: when, why, after which seq. */
  drops: [],
  resets: 0,
  closing: false,
  lastSeq: 0,
  /** Whether each stored event came after the one before (no repeats, no going back). */
  ordered: true,
  /** Events without an id (presence and the like). */
  ephemeral: 0,
  req: null,
}));

/** Opens the stream (again, after lastSeq); resolves once the server said `: connected`. */
function open(s) {
  return new Promise((resolve, reject) => {
    let over = false;
    const gone = (why) => {
      if (over) return;
      over = true;
      reject(new Error(why));
      if (s.closing) return;
      s.drops.push({ at: Date.now(), why, afterSeq: s.lastSeq });
      setTimeout(() => open(s).catch(() => {}), RETRY_MS);
    };
    const req = (tls ? https : http).request(`${base}/events?campaigns=summary`, {
      agent,
      headers: {
        cookie: `${cookieName}=${s.token}`,
        accept: 'text/event-stream',
        ...(s.lastSeq ? { 'last-event-id': String(s.lastSeq) } : {}),
      },
    });
    s.req = req;
    req.once('error', (e) => gone(e.message));
    req.once('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        gone(`GET /events answered ${res.statusCode}`);
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk) => {
        const now = Date.now();
        buffer += chunk;
        let i;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          if (block.endsWith('\n: connected')) resolve();
          frame(s, block, now);
        }
      });
      res.once('end', () => gone('the server ended the stream'));
      res.once('aborted', () => gone('the connection was cut'));
      res.once('close', () => gone('the connection closed'));
    });
    req.end();
  });
}

/** One SSE block: a stored event (id, event, data), an ephemeral one (no id) or a comment. */
function frame(s, block, now) {
  const d = block.indexOf('data: ');
  if (d < 0) return;
  if (!block.startsWith('id: ')) {
    s.ephemeral++;
    return;
  }
  const seq = Number(block.slice(4, block.indexOf('\n')));
  if (block.includes('\nevent: stream.reset\n')) {
    s.resets++;
    return;
  }
  if (seq <= s.lastSeq) s.ordered = false;
  s.lastSeq = seq;
  if (!measuring || seq <= fromSeq) return;
  const c = block.indexOf('"createdAt":"', d);
  const ms = Math.max(0, now - Date.parse(block.slice(c + 13, c + 37)));
  deliveries[Math.min(ms, BUCKETS - 1)]++;
  const a = arrivals.get(seq);
  if (a === undefined) arrivals.set(seq, [ms, 1]);
  else {
    if (ms > a[0]) a[0] = ms;
    a[1]++;
  }
  const m = block.indexOf(MARK, d);
  if (m >= 0) {
    const sent = Number(block.slice(m + MARK.length, block.indexOf('@', m + MARK.length)));
    inbound[Math.min(Math.max(0, now - sent), BUCKETS - 1)]++;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await Promise.all(streams.map((s) => open(s)));
parentPort.postMessage({ connected: streams.length });
parentPort.on('message', async (m) => {
  if (m.measure) {
    fromSeq = m.fromSeq;
    measuring = true;
    lag.enable();
    return;
  }
  const deadline = Date.now() + 10_000;
  while (streams.some((s) => s.lastSeq < m.toSeq) && Date.now() < deadline) await sleep(20);
  lag.disable();
  measuring = false;
  for (const s of streams) {
    s.closing = true;
    s.req.destroy();
  }
  agent.destroy();
  parentPort.postMessage({
    deliveries,
    inbound,
    arrivals: [...arrivals],
    lag: { p99Ms: lag.percentile(99) / 1e6 - 1, maxMs: lag.max / 1e6 - 1 },
    streams: streams.map(({ member, drops, resets, lastSeq, ordered, ephemeral }) => ({
      member,
      drops,
      resets,
      lastSeq,
      ordered,
      ephemeral,
    })),
  });
});
