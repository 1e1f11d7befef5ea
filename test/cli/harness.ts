import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect } from 'vitest';
import { tempDir } from '../helpers.ts';

export const BIN = path.resolve('main/cli/bin.mjs');
const run = promisify(execFile);

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
  return {
    /** Processes to kill after the test. */
    children,
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
