// `npm start`: the desktop app where Electron can run; otherwise headless serve with a
// one-line reason, the URL and the browser sign-in link (serve prints both). The Electron
// runtime is fetched on first use, not at install.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

if (
  !fs.existsSync(path.join(root, '.build/main/cli.mjs')) ||
  !fs.existsSync(path.join(root, '.build/renderer/index.html'))
) {
  const r = spawnSync(process.execPath, [path.join(root, 'main/scripts/build.mjs')], {
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function electronBinary() {
  try {
    const bin = require('electron'); // a path; throws when the runtime was never downloaded
    return typeof bin === 'string' && fs.existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

/** Returns the Electron binary, or a reason it cannot be used here. */
function desktopRuntime() {
  if (process.env.PARLEY_HEADLESS === '1') return { reason: 'PARLEY_HEADLESS=1 is set' };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: 'no display (DISPLAY/WAYLAND_DISPLAY unset)' };
  }
  let bin = electronBinary();
  if (!bin) {
    console.error('parley: fetching the Electron runtime (first start only)…');
    const r = spawnSync(process.execPath, [require.resolve('electron/install.js')], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 180_000,
      encoding: 'utf8',
    });
    bin = electronBinary();
    if (!bin) {
      const why = (r.stderr || r.error?.message || 'unknown error').trim().split('\n').pop();
      return { reason: `the Electron runtime could not be downloaded (${why})` };
    }
  }
  const native = ensureElectronSqlite(bin);
  if (native.reason) return native;
  return { bin };
}

/**
 * better-sqlite3 is built for Node at install (tests run on Node); the unpackaged desktop app
 * needs a copy built for Electron's ABI, kept apart in .build/electron-native/.
 */
function ensureElectronSqlite(bin) {
  const outDir = path.join(root, '.build/electron-native');
  const target = path.join(outDir, 'better_sqlite3.node');
  if (fs.existsSync(target)) return {};
  const version = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  })
    .stdout?.trim()
    .replace(/^v/, '');
  const gyp = process.env.npm_config_node_gyp;
  if (!version || !gyp)
    return { reason: 'cannot rebuild better-sqlite3 for Electron (run it through npm start)' };
  const work = path.join(outDir, 'better-sqlite3');
  fs.rmSync(work, { recursive: true, force: true });
  fs.cpSync(path.dirname(require.resolve('better-sqlite3/package.json')), work, {
    recursive: true,
    filter: (src) => !src.includes(`${path.sep}build${path.sep}`),
  });
  console.error(`parley: building better-sqlite3 for Electron ${version} (first start only)…`);
  const r = spawnSync(
    process.execPath,
    [
      gyp,
      'rebuild',
      '--release',
      `--target=${version}`,
      '--runtime=electron',
      '--dist-url=https://electronjs.org/headers',
    ],
    { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' },
  );
  const built = path.join(work, 'build/Release/better_sqlite3.node');
  if (r.status !== 0 || !fs.existsSync(built)) {
    return { reason: `better-sqlite3 could not be built for Electron ${version}` };
  }
  fs.copyFileSync(built, target);
  return {};
}

const runtime = desktopRuntime();
const child = runtime.bin
  ? spawn(runtime.bin, [root, ...args], { stdio: 'inherit' })
  : (console.error(
      `parley: desktop window unavailable: ${runtime.reason}; serving headless — open the sign-in link below in a browser`,
    ),
    spawn(process.execPath, [path.join(root, 'main/cli/bin.mjs'), 'serve', ...args], {
      stdio: 'inherit',
    }));

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
