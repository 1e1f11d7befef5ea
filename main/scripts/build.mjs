// Builds what the app runs: the main-process bundles (CLI, Electron shell, preload) with
// esbuild, the migrations and the simulator's sample media beside them, and the renderer with
// Vite. Runs on `npm install`.
import { build as esbuild } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(root, '.build/main');
const only = process.argv.includes('--main')
  ? 'main'
  : process.argv.includes('--renderer')
    ? 'renderer'
    : 'all';
const started = Date.now();

if (only !== 'renderer') {
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    absWorkingDir: root,
  };
  await Promise.all([
    esbuild({
      ...common,
      entryPoints: ['main/cli/run.ts'],
      outfile: path.join(out, 'cli.mjs'),
      format: 'esm',
    }),
    esbuild({
      ...common,
      entryPoints: ['main/shell/main.ts'],
      outfile: path.join(out, 'shell.mjs'),
      format: 'esm',
    }),
    esbuild({
      ...common,
      entryPoints: ['main/shell/preload.ts'],
      outfile: path.join(out, 'preload.cjs'),
      format: 'cjs',
    }),
  ]);
  const migrations = path.join(out, 'migrations');
  fs.rmSync(migrations, { recursive: true, force: true });
  fs.cpSync(path.join(root, 'main/core/db/migrations'), migrations, { recursive: true });
  // The simulator's sample media (main/core/media/samples.ts finds them beside the bundle).
  const samples = path.join(out, 'simulator-samples');
  fs.rmSync(samples, { recursive: true, force: true });
  fs.cpSync(path.join(root, 'main/core/media/simulator-samples'), samples, { recursive: true });
}

if (only !== 'main') {
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'renderer/vite.config.ts'), logLevel: 'warn' });
}

console.log(
  `parley: built ${only === 'all' ? 'main + renderer' : only} in ${Date.now() - started} ms`,
);
