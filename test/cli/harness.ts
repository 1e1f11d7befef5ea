import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect } from 'vitest';
import type { Store } from '../../main/core/core.ts';
import { openStore } from '../../main/core/core.ts';
import { tempDir } from '../helpers.ts';

export const BIN = path.resolve('main/cli/bin.mjs');
const run = promisify(execFile);

/** A `parley serve` child. */
export interface Server {
  url: string;
  child: ChildProcess;
  /** What it wrote on stderr, for a failure's message. */
  log: () => string;
}

/** SIGKILL: no handler runs, no transaction finishes. */
export async function killHard(s: Server) {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGKILL');
  await exited;
}

export async function stop(s: Server) {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
}

/** A JSON request with an API key to a served core; a non-2xx answer throws with its body. */
export async function api<T = Record<string, unknown>>(
  url: string,
  key: string,
  method: string,
  p: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The store of a data dir for one piece of work (seeding, reading), closed after it. */
export function withStore<T>(dir: string, f: (s: Store) => T): T {
  const store = openStore({ dataDir: dir });
  try {
    return f(store);
  } finally {
    store.close();
  }
}

/**
 * The CLI suites' harness: temp data dirs and spawned processes that the test file's
 * `afterEach` removes and kills, and the real bin run with `--data-dir`.
 */
export function cliHarness(prefix: string) {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  async function parley(args: string[], dir: string) {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args, '--data-dir', dir]);
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  }
  /** `parley serve` on a free port (no per-key rate limit), killed after the test. */
  function serve(dir: string): Promise<Server> {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PARLEY_RATE_LIMIT: '100000000' },
    });
    children.push(child);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve({ url: m[1]!, child, log: () => err });
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
  }
  return {
    /** Processes to kill after the test. */
    children,
    serve,
    dataDir() {
      const d = tempDir(prefix);
      dirs.push(d);
      return d;
    },
    parley,
    /** `--json` output, which must come with nothing on stderr. */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async json(args: string[], dir: string): Promise<any> {
      const r = await parley([...args, '--json'], dir);
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout);
    },
  };
}
