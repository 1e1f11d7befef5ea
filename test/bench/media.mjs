// Media bench (issue 22), on 127.0.0.1 only, nothing announced:
// (a) customers send 200 images a second, 100 KB each, over the live channel: Meta-shaped
//     webhooks signed with the app secret (X-Hub-Signature-256), 5 messages to a POST (the core
//     takes 50 POSTs a second from one address; Meta batches a busy number's), are posted to
//     `parley serve`, which fetches each file from a fake Graph API (test/fake-graph.ts, bundled here) in Meta's
//     two steps — `GET /{media-id}` then the short-lived URL with the token. While the downloads
//     run, the inbox API (GET /conversations, 20 requests a second, open-loop: a request's time
//     runs from the instant it was due) and the event stream (commit → arrival of
//     message.received at 4 streams: the event's createdAt is set in the committing
//     transaction) are measured — and the same again with text messages at the same rate, the
//     floor. Then how many images were stored (in the window, and after a drain).
//     Every image is a distinct PNG of noise (a real, decodable 200×170 picture, 100 KB), so the
//     store writes every one (it is content-addressed). They are made before the run: the
//     customers' phones are not this machine, and making 20 MB/s of noise took about half of
//     one of the two cores the server runs on (the fake Graph API still hashes and serves each).
// (b) a thread of 500 such images in Chromium (Debian's, test/chromium.mjs): scrolled with the
//     wheel from the newest to the start of the conversation and back, counting the message rows
//     in the DOM (target ≤ 30) and long tasks (PerformanceObserver 'longtask', > 50 ms: target 0).
//     Where the top is reached and no older page comes by itself, it presses "Load older
//     messages" as an agent would, and says how often.
// Run alone with `node test/bench/media.mjs` after `npm run build`, or as part of `npm run bench`.
// BENCH_MEDIA_SECONDS: the measured window of (a) (default 2 × BENCH_SECONDS, at least 10; the
// issue's run is 30); BENCH_MEDIA_THREAD: the thread's images (500); BENCH_MEDIA_PART=a|b runs one.
/* global document, window, requestAnimationFrame, getComputedStyle -- in-page code */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../chromium.mjs';
import {
  BENCH_BUILD,
  BIN,
  benchKey,
  bundleCore,
  cpuMs,
  end,
  loginUrl,
  longTasksSince,
  readEvents,
  SECONDS,
  serve,
  signedInContext,
  sleep,
  watchLongTasks,
} from './serve-common.mjs';

process.env.PARLEY_NO_MDNS = '1';

const RUN_SECONDS = Number(process.env.BENCH_MEDIA_SECONDS ?? Math.max(10, 2 * SECONDS));
const WARMUP_MS = 2_000;
/** After the window, how long the downloads may go on before the count is final. */
const DRAIN_MS = 30_000;
const PER_SECOND = 200;
/**
 * Messages per webhook POST: the core takes at most 50 POSTs a second from one address
 * (CHANNEL_WEBHOOK_RATE_LIMIT: Meta posts from many and batches), and the bench posts from one.
 */
const BATCH = 5;
const CUSTOMERS = 1_000;
const POLLS_PER_SECOND = 20;
const STREAMS = 4;
const THREAD_IMAGES = Number(process.env.BENCH_MEDIA_THREAD ?? 500);
const INBOX_P99_MS = 20;
const EVENT_P99_MS = 50;
const MAX_DOM_ROWS = 30;
const LONG_TASK_MS = 50;

/** The fake Graph API and Meta's webhook shapes, bundled as the core is (Node runs no .ts). */
async function peers() {
  await bundleCore({
    'fake-graph': 'test/fake-graph.ts',
    'meta-webhooks': 'test/fixtures/meta/webhooks.ts',
    'live-channel': 'test/live-channel.ts',
  });
  const at = (name) => pathToFileURL(path.join(BENCH_BUILD, `${name}.mjs`)).href;
  return {
    graph: await import(at('fake-graph')),
    meta: await import(at('meta-webhooks')),
    live: await import(at('live-channel')),
  };
}

// --- a distinct 100 KB PNG --------------------------------------------------------------------

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const WIDTH = 200;
const HEIGHT = 170;

function pngChunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A WIDTH × HEIGHT RGB picture of random noise: incompressible, so about 100 KB stored. */
export function noisePng() {
  const stride = 1 + 3 * WIDTH;
  const raw = randomFillSync(Buffer.alloc(HEIGHT * stride));
  for (let y = 0; y < HEIGHT; y++) raw[y * stride] = 0; // filter: none
  const header = Buffer.alloc(13);
  header.writeUInt32BE(WIDTH, 0);
  header.writeUInt32BE(HEIGHT, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no interlace
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(raw, { level: 0 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// --- HTTP to the server on 127.0.0.1 ----------------------------------------------------------

/** A request to `base` (http://127.0.0.1:PORT); `host` sets the Host header (the UI's name). */
function request(base, agent, method, p, { headers = {}, body, host } = {}) {
  const url = new URL(p, base);
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        agent,
        headers: {
          ...headers,
          ...(host ? { host } : {}),
          ...(payload ? { 'content-length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (d) => chunks.push(d));
        res.once('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - t,
          }),
        );
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

const cli = (dir, args) =>
  JSON.parse(
    execFileSync(process.execPath, [BIN, ...args, '--json', '--data-dir', dir], {
      encoding: 'utf8',
      env: process.env,
    }),
  );

/** The owner's session cookie, through the sign-in link `parley login-url` prints. */
async function ownerSession(dir, base) {
  const link = new URL(loginUrl(new URL(base).port, dir));
  const res = await request(base, undefined, 'GET', link.pathname + link.search, {
    host: link.host,
  });
  const cookie = [res.headers['set-cookie'] ?? []].flat()[0]?.split(';')[0];
  if (res.status !== 303 || !cookie) throw new Error(`sign-in: ${res.status} ${res.text}`);
  return { cookie, host: link.host };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const timing = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s.at(-1) };
};

/**
 * Opens GET /events at `base` (resolves once subscribed); `onEvent(type, event, arrivedAt)` for
 * each event until `signal` aborts.
 */
async function stream(base, key, types, onEvent, signal) {
  const res = await fetch(`${base}/events?types=${types.join(',')}`, {
    headers: { 'x-api-key': key },
    signal,
  });
  if (res.status !== 200) throw new Error(`GET /events: ${res.status}`);
  // In an object: a promise returned from an async function would be waited for.
  const reading = readEvents(res, (event, now) => onEvent(event.type, event, now));
  return { reading };
}

// --- (a) inbound images at 200/s --------------------------------------------------------------

/**
 * The server started with test/bench/loop-probe.mjs loaded: SIGUSR2 starts and ends its
 * measure of the event loop (how late a 1 ms timer runs, how busy the loop is).
 */
async function withLoopProbe(out, start) {
  const saved = { options: process.env.NODE_OPTIONS, out: process.env.PARLEY_BENCH_LOOP_OUT };
  const probe = fileURLToPath(new URL('./loop-probe.mjs', import.meta.url));
  process.env.NODE_OPTIONS = `${saved.options ?? ''} --import=${pathToFileURL(probe).href}`.trim();
  process.env.PARLEY_BENCH_LOOP_OUT = out;
  try {
    return await start();
  } finally {
    for (const [name, value] of [
      ['NODE_OPTIONS', saved.options],
      ['PARLEY_BENCH_LOOP_OUT', saved.out],
    ]) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** What the probe wrote (it answers the signal between two requests: a bound, not a sleep). */
async function readLoop(file) {
  const until = Date.now() + 5_000;
  // The file may be there before its bytes are (seen once): read until it parses, or give up.
  for (;;) {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      if (Date.now() >= until) return null;
      await sleep(20);
    }
  }
}

/** One run: `kind` 'image' (100 KB PNGs, downloaded by the core) or 'text' (the floor). */
async function inboundRun(kind, { graph: fakeGraph, meta, live }) {
  // The customers' pictures, made before the clock starts (with room for the last due ones).
  const pictures =
    kind === 'image'
      ? Array.from({ length: ((WARMUP_MS + 1_000) / 1000 + RUN_SECONDS) * PER_SECOND }, noisePng)
      : [];
  const graph = await fakeGraph.startFakeGraph();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-media-'));
  benchKey(dir); // the Default workspace
  const { key } = cli(dir, ['keys', 'create', '--env', 'live', '--name', 'bench-live']);
  cli(dir, ['settings', 'set', 'allowPrivateWebhooks', 'true']);
  let child;
  const controllers = [];
  try {
    const loopOut = path.join(dir, 'loop.json');
    const server = await withLoopProbe(loopOut, () => serve(dir));
    child = server.child;
    const base = server.url;
    const { cookie, host } = await ownerSession(dir, base);
    const put = await request(base, undefined, 'PUT', '/api/channel', {
      host,
      headers: {
        cookie,
        'content-type': 'application/json',
        'x-parley-environment': 'live',
      },
      body: JSON.stringify(live.connectionTo(graph)),
    });
    if (put.status !== 200 || !JSON.parse(put.text).connected) {
      throw new Error(`PUT /api/channel: ${put.status} ${put.text.slice(0, 300)}`);
    }
    const account = { phoneNumberId: graph.phoneNumberId, wabaId: graph.wabaId };

    const window = { start: Infinity, end: Infinity };
    const inWindow = (at) => at >= window.start && at < window.end;
    const received = [];
    const posted = new Map(); // wamid → [posted at, Meta's media id]
    const ready = { inWindow: 0, total: 0, failed: 0, ms: [] };
    const onEvent = (type, event, arrived) => {
      const message = event.data?.message;
      if (type === 'message.received') {
        if (inWindow(Date.parse(event.createdAt)))
          received.push(arrived - Date.parse(event.createdAt));
        return;
      }
      const sent = posted.get(message?.channelMessageId);
      if (!sent) return;
      posted.delete(message.channelMessageId);
      // The fake holds each file until it was fetched (6,000 × 100 KB otherwise).
      graph.media.delete(sent[1]);
      if (type === 'message.media_failed') {
        ready.failed++;
        return;
      }
      ready.total++;
      if (inWindow(arrived)) ready.inWindow++;
      ready.ms.push(arrived - sent[0]);
    };
    const types = ['message.received', 'message.media_ready', 'message.media_failed'];
    for (let s = 0; s < STREAMS; s++) {
      const controller = new AbortController();
      controllers.push(controller);
      // Media events are counted from the first stream only.
      await stream(
        base,
        key,
        types,
        s === 0
          ? onEvent
          : (type, event, arrived) => type === 'message.received' && onEvent(type, event, arrived),
        controller.signal,
      );
    }

    const webhookAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const pollAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const webhooks = { ms: [], errors: {}, sent: 0 };
    const polls = { ms: [], errors: {}, sent: 0 };
    const inFlight = new Set();
    /**
     * A request fired at its due instant: timed into `into` when that instant is in the window
     * (from the call, so waiting for a free connection counts).
     */
    const timed = (into, response) => {
      const at = Date.now();
      const p = response.then(
        (r) => {
          if (!inWindow(at)) return;
          if (r.status === 200) into.ms.push(r.ms);
          else into.errors[r.status] = (into.errors[r.status] ?? 0) + 1;
        },
        (e) => (into.errors[e.code] = (into.errors[e.code] ?? 0) + 1),
      );
      inFlight.add(p);
      p.finally(() => inFlight.delete(p));
    };
    let stopped = false;
    const t0 = Date.now();

    /** One customer's message: an image Meta holds (kind 'image') or a text. */
    const customerMessage = (n) => {
      const waId = `4917${String(20_000_000 + (n % CUSTOMERS))}`;
      let message;
      if (kind === 'image') {
        const bytes = pictures[n] ?? noisePng();
        pictures[n] = undefined; // held by the fake until fetched, then gone
        const held = graph.addMedia({ bytes, mimeType: 'image/png' });
        message = meta.media({
          from: waId,
          type: 'image',
          mediaId: held.id,
          mimeType: 'image/png',
          sha256: held.sha256Base64,
          caption: `photo ${n}`,
        });
        posted.set(message.id, [Date.now(), held.id]);
      } else {
        message = meta.text({ from: waId, body: `message ${n}` });
      }
      return meta.messagesValue(account, {
        contacts: [meta.sender({ waId, name: `Customer ${n % CUSTOMERS}` })],
        messages: [message],
      });
    };
    /** Delivery `d`: BATCH messages, one `changes[]` item each, as Meta batches a busy number's. */
    const postWebhook = (d) => {
      const values = Array.from({ length: BATCH }, (_, i) => customerMessage(d * BATCH + i));
      const raw = fakeGraph.metaJson(meta.envelope(account, values));
      timed(
        webhooks,
        request(base, webhookAgent, 'POST', '/channel/webhook', {
          headers: {
            'content-type': 'application/json',
            'x-hub-signature-256': fakeGraph.signatureFor(graph.appSecret, raw),
          },
          body: raw,
        }),
      );
    };
    const poll = () =>
      timed(
        polls,
        request(base, pollAgent, 'GET', '/conversations?limit=50', {
          headers: { 'x-api-key': key },
        }),
      );
    const loop = (rate, counter, fire) =>
      (async () => {
        while (!stopped) {
          const due = Math.floor(((Date.now() - t0) * rate) / 1000);
          while (counter.sent < due) fire(counter.sent++);
          await sleep(2);
        }
      })();
    const loops = [
      loop(PER_SECOND / BATCH, webhooks, postWebhook),
      loop(POLLS_PER_SECOND, polls, poll),
    ];

    await sleep(WARMUP_MS);
    const cpuBefore = process.cpuUsage();
    const loadBefore = os.loadavg()[0];
    const serverCpuBefore = cpuMs(child.pid);
    child.kill('SIGUSR2'); // the server's loop probe starts measuring
    window.start = Date.now();
    window.end = window.start + RUN_SECONDS * 1000;
    await sleep(window.end - Date.now());
    child.kill('SIGUSR2'); // … and writes what it measured
    stopped = true;
    await Promise.all(loops);
    await Promise.all([...inFlight]);
    const benchCpuS = (() => {
      const u = process.cpuUsage(cpuBefore);
      return (u.user + u.system) / 1e6;
    })();
    const load = [loadBefore, os.loadavg()[0]];
    const serverCpuS = (cpuMs(child.pid) - serverCpuBefore) / 1000;
    const loopLag = await readLoop(loopOut);
    const refused = (errors) => Object.values(errors).reduce((a, b) => a + b, 0);
    const postsInWindow = webhooks.ms.length + refused(webhooks.errors);
    const readyInWindow = ready.inWindow;

    // The downloads still under way finish (or the drain's bound ends the wait).
    let drainedMs = 0;
    if (kind === 'image') {
      const drainStart = Date.now();
      let last = -1;
      let still = Date.now();
      while (posted.size > 0 && Date.now() - drainStart < DRAIN_MS) {
        if (ready.total !== last) {
          last = ready.total;
          still = Date.now();
        } else if (Date.now() - still > 10_000) break;
        await sleep(100);
      }
      drainedMs = Date.now() - drainStart;
    }
    const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
    const stored = Object.fromEntries(
      db
        .prepare(
          "SELECT status, count(*) AS n FROM media WHERE environment = 'live' GROUP BY status",
        )
        .all()
        .map((r) => [r.status, r.n]),
    );
    const errors = db
      .prepare(
        "SELECT error, count(*) AS n FROM media WHERE status = 'failed' GROUP BY error ORDER BY n DESC LIMIT 3",
      )
      .all();
    db.close();
    const onDisk = fs.existsSync(path.join(dir, 'media'))
      ? fs.readdirSync(path.join(dir, 'media')).filter((f) => !f.startsWith('.')).length
      : 0;
    webhookAgent.destroy();
    pollAgent.destroy();
    return {
      kind,
      seconds: RUN_SECONDS,
      sent: webhooks.sent,
      postsInWindow,
      messagesInWindow: webhooks.ms.length * BATCH,
      webhook: timing(webhooks.ms),
      webhookErrors: webhooks.errors,
      inbox: timing(polls.ms),
      inboxErrors: polls.errors,
      events: timing(received),
      readyInWindow,
      readyTotal: ready.total,
      failedEvents: ready.failed,
      readyLatency: timing(ready.ms),
      stillPending: posted.size,
      drainedMs,
      stored,
      errors,
      onDisk,
      benchCpuS,
      serverCpuS,
      loop: loopLag,
      load,
    };
  } finally {
    controllers.forEach((c) => c.abort());
    if (child) await end(child);
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// --- (b) a thread of 500 images in Chromium ---------------------------------------------------

const MESSAGE = '[data-testid=thread-messages] [data-testid=message]';
const WHEEL_PX = 1200;
const MAX_STEPS = 600;
/** How long a step waits for an older page once the top is reached (a bound, not a sleep). */
const PAGE_WAIT_MS = 3_000;

/**
 * Runs in the page before its scripts (after watchLongTasks): how to find the thread's
 * scrolling element (the nearest ancestor of a message that scrolls) from the bench's probes.
 */
function instrument() {
  window.__bench = {
    ...window.__bench,
    scroll(selector) {
      let el = document.querySelector(selector);
      while (el) {
        const overflow = getComputedStyle(el).overflowY;
        if (el.scrollHeight > el.clientHeight && /auto|scroll/.test(overflow)) break;
        el = el.parentElement;
      }
      return el ? { top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight } : null;
    },
  };
}

/** A conversation of `n` distinct 100 KB images (uploads sent by the agent, captioned). */
async function imageThread(n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-thread-'));
  const { key } = benchKey(dir);
  const server = await serve(dir);
  const phone = '+4915199000001';
  const headers = { 'x-api-key': key };
  const api = async (method, p, body) => {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers:
        body instanceof FormData ? headers : { ...headers, 'content-type': 'application/json' },
      body: body instanceof FormData ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const started = Date.now();
  await api('POST', '/api/simulator/inbound', {
    phone,
    message: 'Send me all the photos, please.',
  });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const form = new FormData();
      form.append('file', new Blob([noisePng()], { type: 'image/png' }), `photo-${i}.png`);
      const media = await api('POST', '/media', form);
      await api('POST', '/api/send-media', { phone, mediaId: media.id, caption: `Photo ${i + 1}` });
    }
  };
  // Four uploads at a time.
  await Promise.all(Array.from({ length: 4 }, worker));
  return { dir, server, seededMs: Date.now() - started };
}

async function threadRender() {
  const { dir, server, seededMs } = await imageThread(THREAD_IMAGES);
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const { context, uiOrigin } = await signedInContext(
      browser,
      loginUrl(new URL(server.url).port, dir),
    );
    const page = await context.newPage();
    await page.addInitScript(watchLongTasks);
    await page.addInitScript(instrument);
    await page.goto(`${uiOrigin}/#/inbox`);
    await page.locator('[data-testid=conversation-row]').first().click();
    await page.waitForSelector(MESSAGE, { timeout: 30_000 });
    // The newest images have loaded before the scroll starts (what is measured is the scroll).
    await page
      .waitForFunction(
        () =>
          [...document.querySelectorAll('[data-testid=thread-messages] img')].every(
            (i) => i.complete,
          ),
        null,
        { timeout: 15_000 },
      )
      .catch(() => {});
    const rows = () => page.locator(MESSAGE).count();
    const box = await page.locator('[data-testid=thread-messages]').boundingBox();
    if (!box) throw new Error('the thread is not on screen');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const images = () =>
      page.evaluate(() => {
        const imgs = [...document.querySelectorAll('[data-testid=thread-messages] img')];
        return {
          inDom: imgs.length,
          lazy: imgs.filter((i) => i.loading === 'lazy').length,
          async: imgs.filter((i) => i.decoding === 'async').length,
        };
      });

    const scrollStart = await page.evaluate(() => performance.now());
    const startedAt = Date.now();
    let maxRows = await rows();
    let maxImages = (await images()).inDom;
    let steps = 0;
    let reachedStart = false;
    const scrollState = () => page.evaluate((sel) => window.__bench.scroll(sel), MESSAGE);
    // Up to the start of the conversation, older pages loading on the way.
    let stuck = 0;
    let olderByButton = 0;
    while (steps < MAX_STEPS) {
      steps++;
      await page.mouse.wheel(0, -WHEEL_PX);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
      maxRows = Math.max(maxRows, await rows());
      maxImages = Math.max(maxImages, (await images()).inDom);
      const s = await scrollState();
      if (s && s.top < 4) {
        // At the top: the start of the conversation, or an older page on its way.
        if (await page.getByText('Start of the conversation').isVisible()) {
          reachedStart = true;
          break;
        }
        const grew = await page
          .waitForFunction(
            ([sel, h]) => (window.__bench.scroll(sel)?.height ?? 0) > h,
            [MESSAGE, s.height],
            { timeout: PAGE_WAIT_MS },
          )
          .then(() => true)
          .catch(() => false);
        // At the top the wheel scrolls nothing, so no scroll event asks for the next page: the
        // agent presses "Load older messages" (counted: the thread did not load it by itself).
        const button = page.getByTestId('load-older');
        if (!grew && (await button.isEnabled().catch(() => false))) {
          await button.click();
          olderByButton++;
          stuck = 0;
          continue;
        }
        stuck = grew ? 0 : stuck + 1;
        if (stuck >= 3) break;
      }
    }
    const upSteps = steps;
    // And back down to the newest.
    for (let down = 0; down < upSteps + 20; down++) {
      steps++;
      await page.mouse.wheel(0, WHEEL_PX);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
      maxRows = Math.max(maxRows, await rows());
      maxImages = Math.max(maxImages, (await images()).inDom);
      const s = await scrollState();
      if (s && s.height - s.top - s.client < 4) break;
    }
    const scrollMs = Date.now() - startedAt;
    const lazy = await images();
    const loadedImages = await page.evaluate(
      () =>
        [...document.querySelectorAll('[data-testid=thread-messages] img')].filter(
          (i) => i.complete && i.naturalWidth > 0,
        ).length,
    );
    const longTasks = await longTasksSince(page, scrollStart);
    await context.close();
    return {
      images: THREAD_IMAGES,
      seededMs,
      steps,
      scrollMs,
      reachedStart,
      olderByButton,
      maxRows,
      maxImages,
      lazyImages: lazy.lazy,
      asyncImages: lazy.async,
      imagesInDomAtEnd: lazy.inDom,
      loadedImages,
      longTasks,
    };
  } finally {
    await browser.close();
    await end(server.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** (a) the floor (text), then images; (b) the thread. */
export async function mediaBench() {
  const part = process.env.BENCH_MEDIA_PART;
  const result = { runs: [], thread: null };
  if (part !== 'b') {
    const bundled = await peers();
    result.runs.push(await inboundRun('text', bundled));
    result.runs.push(await inboundRun('image', bundled));
  }
  if (part !== 'a') {
    try {
      result.thread = await threadRender();
    } catch (e) {
      result.thread = { error: e.message.split('\n')[0] };
    }
  }
  return result;
}

const verdict = (ok) => (ok ? 'PASS' : 'MISS');
const f = (x, d = 1) => (x === null || x === undefined ? '–' : x.toFixed(d));

export function printMediaRows({ runs, thread }) {
  if (runs.length > 0) {
    const [floor] = runs;
    const rows = [
      [
        `messages taken in the window, per second (POSTs of ${BATCH})`,
        (r) =>
          `${r.messagesInWindow}, ${f(r.messagesInWindow / r.seconds, 0)} (${r.postsInWindow})`,
        `${PER_SECOND}/s`,
      ],
      [
        'webhook POST p50 / p99 / max (ms), refused',
        (r) =>
          `${f(r.webhook.p50)} / ${f(r.webhook.p99)} / ${f(r.webhook.max)}, ${JSON.stringify(r.webhookErrors)}`,
        '',
      ],
      [
        'inbox GET /conversations p50 / p99 / max (ms)',
        (r) =>
          `${f(r.inbox.p50)} / ${f(r.inbox.p99)} / ${f(r.inbox.max)}${Object.keys(r.inboxErrors).length ? ` refused ${JSON.stringify(r.inboxErrors)}` : ''} ${verdict(r.inbox.p99 <= INBOX_P99_MS && Object.keys(r.inboxErrors).length === 0)}`,
        `p99 ≤ ${INBOX_P99_MS}`,
      ],
      [
        '  vs the floor (p99)',
        (r) => (r === floor ? '' : `${f(r.inbox.p99 / floor.inbox.p99, 2)}×`),
        '',
      ],
      [
        `message.received, commit → ${STREAMS} streams p50 / p99 / max (ms)`,
        (r) =>
          `${r.events.p50 ?? '–'} / ${r.events.p99 ?? '–'} / ${r.events.max ?? '–'} (${r.events.n}) ${verdict(r.events.p99 <= EVENT_P99_MS)}`,
        `p99 ≤ ${EVENT_P99_MS}`,
      ],
      [
        'images stored in the window / after the drain (s)',
        (r) =>
          r.kind === 'image'
            ? `${r.readyInWindow} / ${r.readyTotal} (${f(r.drainedMs / 1000)})`
            : '',
        '',
      ],
      [
        'media records ready / pending / failed; files on disk',
        (r) =>
          r.kind === 'image'
            ? `${r.stored.ready ?? 0} / ${r.stored.pending ?? 0} / ${r.stored.failed ?? 0}; ${r.onDisk}`
            : '',
        '',
      ],
      [
        'webhook → media_ready p50 / p99 / max (ms)',
        (r) =>
          r.kind === 'image'
            ? `${r.readyLatency.p50 ?? '–'} / ${r.readyLatency.p99 ?? '–'} / ${r.readyLatency.max ?? '–'}`
            : '',
        '',
      ],
      [
        'server event loop in the window: lag p50 / p99 / max (ms), busy',
        (r) =>
          r.loop
            ? `${f(r.loop.p50)} / ${f(r.loop.p99)} / ${f(r.loop.max)}, ${Math.round(100 * r.loop.busy)} %`
            : '–',
        '',
      ],
      [
        'server / bench process CPU, window and its last requests (s)',
        (r) => `${f(r.serverCpuS)} / ${f(r.benchCpuS)}`,
        '',
      ],
      ['load average (1 min) at start / end', (r) => `${f(r.load[0], 2)} / ${f(r.load[1], 2)}`, ''],
    ];
    const header = [
      'inbound at 200/s',
      ...runs.map((r) => (r.kind === 'image' ? '100 KB images' : 'text (floor)')),
      'target',
    ];
    const body = rows.map(([name, cell, target]) => [name, ...runs.map(cell), target]);
    const w = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(w[i])).join(' | ') + ' |';
    console.log(
      `\nMedia inbound (live channel, signed Meta webhooks → fake Graph API two-step download of distinct ${Math.round(noisePng().length / 1024)} KB PNGs; ` +
        `${RUN_SECONDS} s measured after a ${WARMUP_MS / 1000} s warm-up; GET /conversations ${POLLS_PER_SECOND}/s open-loop; ${os.cpus().length} cores)\n`,
    );
    console.log(line(header));
    console.log('|' + w.map((x) => '-'.repeat(x + 2)).join('|') + '|');
    body.forEach((b) => console.log(line(b)));
    for (const r of runs) {
      if (r.errors?.length) {
        console.log(`failed downloads: ${r.errors.map((e) => `${e.n}× ${e.error}`).join('; ')}`);
      }
    }
  }
  if (thread) {
    console.log(
      thread.error
        ? `\nThread of ${THREAD_IMAGES} images in Chromium: not measured (${thread.error})`
        : `\nThread of ${thread.images} images (100 KB PNGs) in Chromium, seeded in ${f(thread.seededMs / 1000)} s: ` +
            `scrolled ${thread.reachedStart ? 'to the start and back' : 'up (the start NOT reached) and back'} in ${thread.steps} wheel steps, ${f(thread.scrollMs / 1000)} s (older pages that needed the Load older button: ${thread.olderByButton}); ` +
            `DOM message rows at most ${thread.maxRows} — ${verdict(thread.maxRows <= MAX_DOM_ROWS)} (≤ ${MAX_DOM_ROWS}); ` +
            `long tasks (> ${LONG_TASK_MS} ms) while scrolling: ${thread.longTasks.count} (total ${thread.longTasks.totalMs} ms, longest ${thread.longTasks.maxMs} ms) — ${verdict(thread.longTasks.count === 0)} (0); ` +
            `<img> in the DOM at most ${thread.maxImages}, at the end ${thread.imagesInDomAtEnd} (loading=lazy ${thread.lazyImages}, decoding=async ${thread.asyncImages}, decoded ${thread.loadedImages})`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printMediaRows(await mediaBench());
}
