// What the runner benches (campaigns, workflows) share: the bin, a serve child, and readings
// of its CPU, memory and hand-over times; what the browser benches share: the sign-in and the
// long-task count.
/* global window -- in-page code (watchLongTasks, longTasksSince) */
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(root, 'main/cli/bin.mjs');
/** Where the benches bundle the parts of the core they load themselves (`bundleCore`). */
export const BENCH_BUILD = path.join(root, '.build/bench');
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * Bundles modules of the core into BENCH_BUILD as main/scripts/build.mjs bundles the CLI (the
 * CLI's bundle exports nothing), the migrations beside: `entryPoints` maps output names to
 * sources, e.g. `{ core: 'main/core/core.ts' }` → .build/bench/core.mjs. `tree`: another
 * checkout's sources (`outdir` under this one, so its node_modules resolve).
 */
export async function bundleCore(entryPoints, { tree = root, outdir = BENCH_BUILD } = {}) {
  await build({
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    format: 'esm',
    logLevel: 'warning',
    absWorkingDir: tree,
  });
  const migrations = path.join(outdir, 'migrations');
  fs.rmSync(migrations, { recursive: true, force: true });
  fs.cpSync(path.join(tree, 'main/core/db/migrations'), migrations, { recursive: true });
}

/** A test key for a fresh data dir (the CLI creates the Default workspace with it). */
export const benchKey = (dir) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [BIN, 'keys', 'create', '--env', 'test', '--name', 'bench', '--json', '--data-dir', dir],
      { encoding: 'utf8' },
    ),
  );

/** How many contacts contactsStore() seeds: the page GET /api/contacts reads 50 of them. */
const SEED_CONTACTS = 10_000;

/**
 * A data dir with the Default workspace, one test key, the approved template `bench_notice`
 * ("Your code is {{1}}") and SEED_CONTACTS contacts: what the runner's HTTP scenarios load.
 */
export function contactsStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const key = benchKey(dir);
  const db = new Database(path.join(dir, 'parley.db'));
  const insert = db.prepare(
    `INSERT INTO contacts (id, workspace_id, environment, phone, name, labels, attributes, created_at, updated_at)
     VALUES (?, ?, 'test', ?, ?, '["seed"]', '{"city":"Berlin"}', ?, ?)`,
  );
  const now = Date.now();
  db.prepare(
    `INSERT INTO templates (id, workspace_id, environment, name, category, language, components, variable_count, status,
       approved_at, usable_at, created_at, updated_at)
     VALUES ('tpl_bench', ?, 'test', 'bench_notice', 'UTILITY', 'en', ?, 1, 'APPROVED', ?, ?, ?, ?)`,
  ).run(
    key.workspaceId,
    JSON.stringify([{ type: 'BODY', text: 'Your code is {{1}}' }]),
    now,
    now,
    now,
    now,
  );
  db.transaction(() => {
    for (let i = 0; i < SEED_CONTACTS; i++) {
      const id = `ct_0SEED${String(i).padStart(21, '0')}`;
      insert.run(
        id,
        key.workspaceId,
        `+4915112${String(i).padStart(6, '0')}`,
        `Seed ${i}`,
        now,
        now,
      );
    }
  })();
  db.close();
  return { dir, key: key.key };
}

/**
 * `parley serve` on a data dir (or another server that prints `listening on URL`: `argv`);
 * `ipc` opens a message channel to it.
 */
export function serve(
  dir,
  { argv = [BIN, 'serve', '--port', '0', '--data-dir', dir], ipc = false } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, {
      stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc'] : [])],
      env: { ...process.env, PARLEY_RATE_LIMIT: '100000000' },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], child, listenedAt: Date.now() });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

/** Ends the process: SIGTERM (a clean stop) or SIGKILL (no handler runs). */
export async function end(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/** User + system CPU of a process so far, in ms (Linux /proc). */
export function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** Resident memory of a process, in MiB (Linux /proc VmRSS). */
export function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

/** The most hand-overs in any window [t, t + 1000 ms). */
export function maxPerSecond(times) {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[j] < times[i] - 999) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/** The benches' run length in seconds (BENCH_SECONDS, default 5); some scale theirs from it. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Requests to a server with an API key: `(method, path, body?)` → the JSON answer (a 4xx/5xx throws). */
export const keyClient = (url, key) => async (method, p, body) => {
  const res = await fetch(url + p, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

/** Sends a message to a server started with `ipc` and waits for its answer. */
export async function ask(child, message) {
  const answer = new Promise((resolve) => child.once('message', resolve));
  child.send(message);
  return answer;
}

/** What the tables show of an autocannon run. */
export const loadResult = (r) => ({
  rps: r.requests.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
});

/**
 * A fresh data dir for a runner bench: a test key, the approved template `bench_offer`
 * ("Hi {{1}}, 20% off today.") and the account at `mps` with no tier limit; `fill(db, ws, now)`
 * adds the rest in the same transaction.
 */
export function benchStore(prefix, mps, fill) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const key = benchKey(dir);
  const db = new Database(path.join(dir, 'parley.db'));
  const now = Date.now();
  const ws = key.workspaceId;
  db.transaction(() => {
    db.prepare(
      `INSERT INTO templates (id, workspace_id, environment, name, category, language, components, variable_count,
         status, approved_at, usable_at, created_at, updated_at)
       VALUES ('tpl_bench', ?, 'test', 'bench_offer', 'MARKETING', 'en', ?, 1, 'APPROVED', ?, ?, ?, ?)`,
    ).run(
      ws,
      JSON.stringify([{ type: 'BODY', text: 'Hi {{1}}, 20% off today.' }]),
      now,
      now,
      now,
      now,
    );
    db.prepare(
      'UPDATE business_accounts SET throughput_mps = ?, messaging_tier = NULL WHERE workspace_id = ?',
    ).run(mps, ws);
    fill(db, ws, now);
  })();
  db.close();
  return { dir, key: key.key };
}

/**
 * `benchStore` with `n` contacts in one group `grp_bench` (ids and phones built from the given
 * stems): what the campaign and stall benches send to.
 */
export function groupStore(prefix, mps, n, { idStem, phoneStem }, more = () => {}) {
  return benchStore(prefix, mps, (db, ws, now) => {
    db.prepare(
      `INSERT INTO contact_groups (id, workspace_id, environment, name, created_at) VALUES ('grp_bench', ?, 'test', 'Bench', ?)`,
    ).run(ws, now);
    const contact = db.prepare(
      `INSERT INTO contacts (id, workspace_id, environment, phone, name, created_at, updated_at)
       VALUES (?, ?, 'test', ?, ?, ?, ?)`,
    );
    const member = db.prepare(
      `INSERT INTO group_members (group_id, contact_id, added_at) VALUES ('grp_bench', ?, ?)`,
    );
    for (let i = 0; i < n; i++) {
      const id = `ct_0${idStem}${String(i).padStart(25 - idStem.length, '0')}`;
      contact.run(id, ws, `${phoneStem}${String(i).padStart(6, '0')}`, `Person ${i}`, now, now);
      member.run(id, now);
    }
    more(db, ws, now);
  });
}

/**
 * Reads an event stream (the answer to GET /events) until it ends or its request is aborted:
 * `onEvent(event, arrivedAt)` for each event's data, arrivedAt the ms its chunk came in.
 */
export async function readEvents(res, onEvent) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const now = Date.now();
      buffer += decoder.decode(value, { stream: true });
      let i;
      while ((i = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (data) onEvent(JSON.parse(data.slice(6)), now);
      }
    }
  } catch {
    // aborted
  }
}

/**
 * The one-click sign-in link `parley login-url` prints for the server on `port`, of the data
 * dir `dir` (without it, the one serve last wrote: PARLEY_DATA_DIR or the default).
 */
export function loginUrl(port, dir) {
  const args = [BIN, 'login-url', '--port', port, '--json'];
  if (dir) args.push('--data-dir', dir);
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })).loginUrl;
}

/**
 * A fresh 1360×860 context of `browser`, signed in through the link: Chromium itself opens it
 * (it resolves the UI's own host name, p<PORT>.localhost, where the cookie lands). Returns the
 * context and the UI's origin, where the measured pages are opened.
 */
export async function signedInContext(browser, link) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const signIn = await context.newPage();
  const login = await signIn.goto(link);
  if (!login || !login.ok()) throw new Error(`sign-in failed: HTTP ${login?.status()}`);
  const uiOrigin = new URL(signIn.url()).origin;
  await signIn.close();
  return { context, uiOrigin };
}

/**
 * Runs in the page before any of its scripts (`page.addInitScript(watchLongTasks)`): notes each
 * long task (PerformanceObserver 'longtask': the main thread blocked > 50 ms) in
 * window.__bench.longTasks, beside what the bench's own init script keeps there.
 */
export function watchLongTasks() {
  window.__bench = { ...window.__bench, longTasks: [] };
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.__bench.longTasks.push({ start: entry.startTime, duration: entry.duration });
      }
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    // No long-task timing in this engine: the count stays 0.
  }
}

/** The long tasks watchLongTasks saw from `start` (the page's performance.now()) on. */
export const longTasksSince = (page, start) =>
  page.evaluate((from) => {
    const during = window.__bench.longTasks.filter((t) => t.start >= from);
    return {
      count: during.length,
      totalMs: Math.round(during.reduce((sum, t) => sum + t.duration, 0)),
      maxMs: Math.round(Math.max(0, ...during.map((t) => t.duration))),
    };
  }, start);
