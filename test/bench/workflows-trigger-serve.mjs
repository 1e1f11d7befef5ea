// The server of the listening-workflows bench (test/bench/workflows-trigger.mjs, which builds
// .build/bench/ first): the core as `parley serve` starts it (main/cli/index.ts), the API key's
// rate bucket as large as PARLEY_RATE_LIMIT=100000000 makes it, with one probe the CLI has no
// switch for: it times the inbound path itself — each `messages.receive` (the transaction that
// stores a customer's message, resumes waiting runs, evaluates the listening workflows' triggers
// and starts their runs) — so the bench can tell the core's own cost from the HTTP around it.
// Over IPC: 'start' / 'read' measure its event loop's delay (bench-core.mjs `answerBench`);
// 'reset' forgets the inbound times; 'inbound' answers their count, p50, p99 and max (ms).
// Usage: node test/bench/workflows-trigger-serve.mjs DATA_DIR
import { fileURLToPath } from 'node:url';
import { createCore } from '../../.build/bench/core.mjs';
import { answerBench } from './bench-core.mjs';

const [dataDir] = process.argv.slice(2);
const unlimited = { perSecond: 100_000_000, burst: 200_000_000 };
const core = await createCore({
  dataDir,
  rendererDir: fileURLToPath(new URL('../../.build/renderer/', import.meta.url)),
  rateLimit: unlimited,
});

let times = [];
const { messages } = core.services;
const receive = messages.receive;
messages.receive = (...args) => {
  const t0 = performance.now();
  try {
    return receive(...args);
  } finally {
    times.push(performance.now() - t0);
  }
};
const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;

const { url } = await core.start({ host: '127.0.0.1', port: 0 });
answerBench((m) => {
  if (m === 'reset') {
    times = [];
    return { reset: true };
  }
  if (m === 'inbound') {
    const s = [...times].sort((a, b) => a - b);
    return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s.at(-1) ?? 0 };
  }
  return undefined;
});
console.log(`listening on ${url}`);
process.on('SIGTERM', () => core.stop().then(() => process.exit(0)));
