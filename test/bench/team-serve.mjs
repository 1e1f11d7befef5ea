// The server of the team bench (test/bench/team.mjs, which builds .build/bench/ first): the core
// as `parley serve --team --host 127.0.0.1` starts it (main/cli/index.ts) — the loopback listener
// (plain HTTP) and the team desk's TLS listener beside it (`core.team.share`), both on 127.0.0.1,
// no mDNS — with the API key's rate bucket as large as PARLEY_RATE_LIMIT=100000000 makes it (the
// members' buckets keep their defaults). The OS is asked for no interface and no host name, so
// the certificate names loopback only. Before it listens it adds AGENTS agents with PASSWORD,
// invited by the owner and accepted as test/helpers.ts `member()` does (scrypt at its test cost,
// 2^10: the default cost is the identity bench's; a check takes the hash's own cost).
// Over IPC: 'desk' answers {url, teamUrl, fingerprint}; 'start' / 'read' measure its own event
// loop's delay (bench-core.mjs `answerBench`).
// Usage: node test/bench/team-serve.mjs DATA_DIR AGENTS PASSWORD
import { fileURLToPath } from 'node:url';
import { createCore } from '../../.build/bench/core.mjs';
import { addAgent, answerBench } from './bench-core.mjs';

const [dataDir, agents, password] = process.argv.slice(2);
const unlimited = { perSecond: 100_000_000, burst: 200_000_000 };
const core = await createCore({
  dataDir,
  rendererDir: fileURLToPath(new URL('../../.build/renderer/', import.meta.url)),
  rateLimit: unlimited,
  scrypt: { logN: 10, r: 8, p: 1 },
  team: {
    interfaces: () => ({}),
    hostname: () => 'parley-bench',
    announce: () => Promise.reject(new Error('the bench announces nothing')),
  },
});
for (let i = 1; i <= Number(agents); i++) {
  await addAgent(core, { email: `agent${i}@bench.example`, name: `Agent ${i}`, password });
}

const { url } = await core.start({ host: '127.0.0.1', port: 0 });
const { status } = await core.team.share({ enabled: true, host: '127.0.0.1', port: 0 });
const desk = { url, teamUrl: `https://127.0.0.1:${status.port}`, fingerprint: status.fingerprint };
answerBench((m) => (m === 'desk' ? desk : undefined));
console.log(`listening on ${url}`);
process.on('SIGTERM', () => core.stop().then(() => process.exit(0)));
