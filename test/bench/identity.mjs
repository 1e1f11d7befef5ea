// Identity bench (issue 20): what a sign-in costs, and what the session check adds to every
// request a signed-in member makes.
// 1. hashPassword / verifyPassword (main/core/modules/members/passwords.ts) at the default cost,
//    timed in this process; then POST /login over HTTP, one at a time and as many at once as
//    libuv's thread pool has threads, while the server reads its own event loop's delay
//    (monitorEventLoopDelay; an idle second first, as the floor).
// 2. GET /api/contacts (50 of 10k) with a member's session cookie, and on the same server with
//    the API key (taking turns), each as % of the floor (test/bench/floor.mjs: the runner's, or
//    one measured here when run alone).
// The server is test/bench/identity-serve.mjs, on the core bundled here into .build/bench/ as
// main/scripts/build.mjs bundles the CLI (the CLI's bundle exports nothing, and `parley serve`
// has no switch for the session's rate bucket). Run alone with `node test/bench/identity.mjs`
// after `npm run build`, or as part of `npm run bench`.
import autocannon from 'autocannon';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BENCH_BUILD,
  bundleCore,
  contactsStore,
  end,
  loadResult,
  root,
  SECONDS,
  serve,
  sleep,
} from './serve-common.mjs';

const CONNECTIONS = 32;
const SERVER = path.join(root, 'test/bench/identity-serve.mjs');
const EMAIL = 'agent@bench.example';
const PASSWORD = 'bench correct horse 42';
const HASHES = 3;
const VERIFIES = 10;
const ONE_AT_A_TIME = 5;
/** libuv's thread pool (the server inherits this environment): scrypt's threads. */
const POOL = Number(process.env.UV_THREADPOOL_SIZE || 4);
/** What scrypt at the default cost is meant to cost, per hash or check. */
const SCRYPT_MS = [100, 500];
/** The most a sign-in may hold the server's loop: a scrypt run on it would hold it ≥ 100 ms. */
const LAG_MS = 20;
/** GET /api/contacts with a session cookie, as a share of its floor (issue 20). */
const SESSION_RATIO = 0.8;

/** createCore and the password functions, bundled as the CLI is, the migrations beside. */
const bundle = () =>
  bundleCore({
    core: 'main/core/core.ts',
    passwords: 'main/core/modules/members/passwords.ts',
  });

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** p50, p99 and max of the times (ms), and how many per second the wall time allowed. */
function stats(ms, wallMs) {
  const s = [...ms].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: quantile(s, 0.5),
    p99: quantile(s, 0.99),
    max: s.at(-1),
    perSecond: (s.length * 1000) / wallMs,
  };
}

/** Runs `f` `n` times, `together` at once; the times of each run, and their stats. */
async function timed(n, f, together = 1) {
  const ms = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i += together) {
    await Promise.all(
      Array.from({ length: Math.min(together, n - i) }, async () => {
        const t = performance.now();
        await f();
        ms.push(performance.now() - t);
      }),
    );
  }
  return stats(ms, performance.now() - t0);
}

async function scryptCost() {
  const passwords = await import(pathToFileURL(path.join(BENCH_BUILD, 'passwords.mjs')).href);
  const cost = passwords.DEFAULT_SCRYPT_COST;
  let stored;
  const hash = await timed(HASHES, async () => {
    stored = await passwords.hashPassword(PASSWORD, cost);
  });
  const verify = await timed(VERIFIES, async () => {
    if (!(await passwords.verifyPassword(PASSWORD, stored))) {
      throw new Error('verifyPassword refused the password it hashed');
    }
  });
  return { cost, hash, verify };
}

/** A sign-in over HTTP; resolves with the session cookie's value. */
async function signIn(url) {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const text = await res.text();
  if (res.status !== 204) throw new Error(`POST /login: ${res.status} ${text.slice(0, 200)}`);
  const token = /parley_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!token) throw new Error('POST /login set no session cookie');
  return token;
}

/** Sends a message to the server and waits for its answer. */
async function ask(child, message) {
  const answer = once(child, 'message');
  child.send(message);
  return (await answer)[0];
}

/** `work`'s result with the server's event-loop delay while it ran. */
async function withLag(child, work) {
  await ask(child, 'start');
  const result = await work();
  return { ...result, lag: await ask(child, 'read') };
}

/** GET /api/contacts?limit=50 at CONNECTIONS connections for `seconds`. */
async function getContacts(url, headers, seconds) {
  const r = await autocannon({
    url: `${url}/api/contacts?limit=50`,
    headers,
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (r.non2xx + r.errors > 0 || r.requests.average === 0) {
    throw new Error(
      `GET /api/contacts: ${r.non2xx} non-2xx, ${r.errors} errors: the run is invalid`,
    );
  }
  return loadResult(r);
}

/**
 * GET /api/contacts with each of two credentials on one server: 1 s warm-up each, then SECONDS
 * each in halves A B B A, so that the server's warming and the machine's drift fall on both
 * alike. Each: the mean req/s of its halves, the worse half's p50 and p99.
 */
async function getContactsPair(url, a, b) {
  await getContacts(url, a, 1);
  await getContacts(url, b, 1);
  const a1 = await getContacts(url, a, SECONDS / 2);
  const b1 = await getContacts(url, b, SECONDS / 2);
  const b2 = await getContacts(url, b, SECONDS / 2);
  const a2 = await getContacts(url, a, SECONDS / 2);
  const both = (x, y) => ({
    rps: (x.rps + y.rps) / 2,
    p50: Math.max(x.p50, y.p50),
    p99: Math.max(x.p99, y.p99),
    non2xx: 0,
    errors: 0,
  });
  return [both(a1, a2), both(b1, b2)];
}

/** The floor of GET /api/contacts, for a run of this file alone. */
async function measureFloor(dir, key) {
  const { url, child } = await serve(dir, {
    argv: [path.join(root, 'test/bench/floor.mjs'), dir],
  });
  try {
    await getContacts(url, { 'x-api-key': key }, 1);
    return await getContacts(url, { 'x-api-key': key }, SECONDS);
  } finally {
    await end(child);
  }
}

/** Over HTTP, on identity-serve: the loads first (to stay near the floor), then the sign-ins. */
async function overHttp(dir, key) {
  const { url, child } = await serve(dir, { argv: [SERVER, dir, EMAIL, PASSWORD], ipc: true });
  try {
    // This sign-in also takes the route's cold path (a process's first): a warm-up.
    const token = await signIn(url);
    const [cookie, apiKey] = await getContactsPair(
      url,
      { cookie: `parley_session=${token}` },
      { 'x-api-key': key },
    );
    const idle = await withLag(child, async () => {
      await sleep(1000);
      return {};
    });
    const oneAtATime = await withLag(child, () => timed(ONE_AT_A_TIME, () => signIn(url)));
    const atOnce = await withLag(child, () => timed(POOL, () => signIn(url), POOL));
    return { cookie, apiKey, idle, oneAtATime, atOnce };
  } finally {
    await end(child);
  }
}

/**
 * Both parts; `floor` is the runner's GET /api/contacts floor, measured just before. `rows` are
 * the session check's rows in the runner's table.
 */
export async function identityBench({ floor } = {}) {
  await bundle();
  const { dir, key } = contactsStore();
  let http;
  try {
    floor ??= await measureFloor(dir, key);
    http = await overHttp(dir, key);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const { cookie, apiKey } = http;
  const scrypt = await scryptCost();
  const pct = (r) => `${((r.rps / floor.rps) * 100).toFixed(0)}%`;
  const ratio = cookie.rps / floor.rps;
  return {
    ...http,
    scrypt,
    floor,
    ratio,
    rows: [
      {
        name: 'GET /api/contacts (session cookie)',
        server: 'core (identity-serve)',
        ...cookie,
        ratio: pct(cookie),
        verdict: `${ratio >= SESSION_RATIO ? 'PASS' : 'MISS'} (≥${SESSION_RATIO * 100}%)`,
      },
      {
        name: 'GET /api/contacts (API key, control)',
        server: 'core (identity-serve)',
        ...apiKey,
        ratio: pct(apiKey),
        verdict: `the cookie's: ${((cookie.rps / apiKey.rps) * 100).toFixed(0)}% of this`,
      },
    ],
  };
}

/** The sign-in table and the session check's verdict. */
export function printIdentityRows(r) {
  const { logN, r: blocks, p } = r.scrypt.cost;
  const inRange = (s) =>
    `${s.p50 >= SCRYPT_MS[0] && s.p50 <= SCRYPT_MS[1] ? 'PASS' : 'MISS'} (p50 ${SCRYPT_MS[0]}–${SCRYPT_MS[1]} ms)`;
  const calm = (s) => `${s.lag.maxMs < LAG_MS ? 'PASS' : 'MISS'} (loop lag max < ${LAG_MS} ms)`;
  const f = (x) => x.toFixed(1);
  const timing = (s) => [String(s.n), f(s.p50), f(s.p99), f(s.max), s.perSecond.toFixed(2)];
  const lag = (s) => [f(s.lag.p99Ms), f(s.lag.maxMs)];
  const header = [
    'sign-in',
    'n',
    'p50 ms',
    'p99 ms',
    'max ms',
    'per s',
    'loop lag p99 ms',
    'loop lag max ms',
    'target',
  ];
  const body = [
    ['hashPassword (bench process)', ...timing(r.scrypt.hash), '', '', inRange(r.scrypt.hash)],
    [
      'verifyPassword (bench process)',
      ...timing(r.scrypt.verify),
      '',
      '',
      inRange(r.scrypt.verify),
    ],
    ['server idle 1 s (floor)', '', '', '', '', '', ...lag(r.idle), ''],
    [
      'POST /login, one at a time',
      ...timing(r.oneAtATime),
      ...lag(r.oneAtATime),
      calm(r.oneAtATime),
    ],
    [`POST /login, ${POOL} at once`, ...timing(r.atOnce), ...lag(r.atOnce), calm(r.atOnce)],
  ];
  const w = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(w[i])).join(' | ') + ' |';
  console.log(
    `\nSign-in: scrypt N=2^${logN}, r=${blocks}, p=${p}; libuv thread pool ${POOL}; loop lag = how late the server's 1 ms timer fired (monitorEventLoopDelay)\n`,
  );
  console.log(line(header));
  console.log('|' + w.map((x) => '-'.repeat(x + 2)).join('|') + '|');
  body.forEach((b) => console.log(line(b)));
  const { cookie, apiKey, floor } = r;
  console.log(
    `\nSession check: GET /api/contacts with a member's cookie ${cookie.rps.toFixed(0)} req/s (p99 ${cookie.p99} ms) = ` +
      `${(r.ratio * 100).toFixed(0)}% of the floor (${floor.rps.toFixed(0)} req/s); with the API key on the same server ` +
      `${apiKey.rps.toFixed(0)} req/s (p99 ${apiKey.p99} ms) — ${r.ratio >= SESSION_RATIO ? 'PASS' : 'MISS'} (≥ ${SESSION_RATIO * 100}% of the floor)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printIdentityRows(await identityBench());
}
