// The server of the identity bench (test/bench/identity.mjs, which builds .build/bench/ first):
// the core as `parley serve` starts it (main/cli/index.ts), with one difference the CLI has no
// switch for — the UI session's rate bucket is as large as PARLEY_RATE_LIMIT makes the key's,
// so a session cookie can be loaded as hard as a key. Before it listens it adds an agent with a
// password, invited by the owner and accepted as test/helpers.ts `member()` does (the hash at
// the default cost). Over IPC it measures its own event loop's delay: 'start', then 'read' (off
// in between, so the loads run as in `parley serve`); each is answered.
// Usage: node test/bench/identity-serve.mjs DATA_DIR EMAIL PASSWORD
import { fileURLToPath } from 'node:url';
import { createCore } from '../../.build/bench/core.mjs';
import { addAgent, answerBench } from './bench-core.mjs';

const [dataDir, email, password] = process.argv.slice(2);
const unlimited = { perSecond: 100_000_000, burst: 200_000_000 };
const core = await createCore({
  dataDir,
  rendererDir: fileURLToPath(new URL('../../.build/renderer/', import.meta.url)),
  rateLimit: unlimited,
  sessionRateLimit: unlimited,
  extraHosts: ['127.0.0.1'],
});
await addAgent(core, { email, name: 'Bench Agent', password });

const { url } = await core.start({ host: '127.0.0.1', port: 0 });
answerBench();
console.log(`listening on ${url}`);
process.on('SIGTERM', () => core.stop().then(() => process.exit(0)));
