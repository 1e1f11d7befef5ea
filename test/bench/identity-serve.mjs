// The server of the identity bench (test/bench/identity.mjs, which builds .build/bench/ first):
// the core as `parley serve` starts it (main/cli/index.ts), with one difference the CLI has no
// switch for — the UI session's rate bucket is as large as PARLEY_RATE_LIMIT makes the key's,
// so a session cookie can be loaded as hard as a key. Before it listens it adds an agent with a
// password, invited by the owner and accepted as test/helpers.ts `member()` does (the hash at
// the default cost). Over IPC it measures its own event loop's delay: 'start', then 'read' (off
// in between, so the loads run as in `parley serve`); each is answered.
// Usage: node test/bench/identity-serve.mjs DATA_DIR EMAIL PASSWORD
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createCore } from '../../.build/bench/core.mjs';

/** The delay timer's interval: a reading is how much later than this the timer fired. */
const RESOLUTION_MS = 1;
const [dataDir, email, password] = process.argv.slice(2);
const unlimited = { perSecond: 100_000_000, burst: 200_000_000 };
const core = await createCore({
  dataDir,
  rendererDir: fileURLToPath(new URL('../../.build/renderer/', import.meta.url)),
  rateLimit: unlimited,
  sessionRateLimit: unlimited,
  extraHosts: ['127.0.0.1'],
});

const { members, workspaces } = core.services;
const workspaceId = workspaces.resolve().id;
const owner = members.ownerOf(workspaceId);
const name = 'Bench Agent';
const { inviteUrl } = members.invite(
  {
    workspaceId,
    actor: { kind: 'member', id: owner.id, name: owner.name },
    memberId: owner.id,
    sessionId: null,
    address: null,
  },
  { email, name, role: 'agent' },
  'http://127.0.0.1',
);
await members.acceptInvite(
  { token: inviteUrl.split('#token=')[1], name, password },
  { address: '127.0.0.1', userAgent: 'bench' },
);

const { url } = await core.start({ host: '127.0.0.1', port: 0 });
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const ms = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
process.on('message', (m) => {
  if (m === 'start') {
    delay.reset();
    delay.enable();
    process.send({ started: true });
  } else if (m === 'read') {
    delay.disable();
    process.send({
      samples: delay.count,
      p50Ms: ms(delay.percentile(50)),
      p99Ms: ms(delay.percentile(99)),
      maxMs: ms(delay.max),
    });
  }
});
console.log(`listening on ${url}`);
process.on('SIGTERM', () => core.stop().then(() => process.exit(0)));
