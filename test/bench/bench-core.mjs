// What the bench's own servers (identity-serve.mjs, team-serve.mjs) share: the core bundled as
// the CLI bundles it, members added as test/helpers.ts `member()` adds them, and their own
// event loop's delay read over IPC. The bundle is made by the bench that starts them
// (serve-common.mjs `bundleCore`).
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** An agent with a password: invited by the workspace's owner and accepted. */
export async function addAgent(core, { email, name, password }) {
  const { members, workspaces } = core.services;
  const workspaceId = workspaces.resolve().id;
  const owner = members.ownerOf(workspaceId);
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
  return members.acceptInvite(
    { token: inviteUrl.split('#token=')[1], name, password },
    { address: '127.0.0.1', userAgent: 'bench' },
  );
}

/** The delay timer's interval: a reading is how much later than this the timer fired. */
const RESOLUTION_MS = 1;

/**
 * Answers the bench over IPC: 'start' and 'read' measure this process's event-loop delay (off
 * in between, so the loads run as in `parley serve`); any other message goes to `more`, whose
 * result (when not undefined) is the answer.
 */
export function answerBench(more = () => undefined) {
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
    } else {
      const answer = more(m);
      if (answer !== undefined) process.send(answer);
    }
  });
}
