import { execFileSync } from 'node:child_process';

/** CLI tests run the real bin, which runs the bundle: build the main process first (~0.1 s). */
export default function setup() {
  execFileSync(process.execPath, ['main/scripts/build.mjs', '--main'], { stdio: 'inherit' });
}
