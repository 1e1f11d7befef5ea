// What one inbound message costs the core's event loop: `messages.receive` (contact, conversation,
// message, the conversation's touch and its events) called BENCH_RECEIVE_MESSAGES (default 4,000)
// times on the core in this process, over BENCH_RECEIVE_CONTACTS (default 1,000) customers (the
// first message of each opens its conversation; the rest land in open ones), every 8th
// conversation resolved or snoozed before its next message (it reopens). No HTTP, no timers: the
// process's CPU is the core's work, whatever else the machine runs.
// To compare trees in one process, so they share the machine's load: BENCH_RECEIVE_TREES=a,b
// (checkout roots; default this one) bundles each tree's core and steps them alternately, a
// batch of BENCH_RECEIVE_BATCH (default 500) messages at a time; prints µs of CPU per message
// per batch and the median per tree, with the load average.
// Run alone: `node test/bench/receive-cpu.mjs` (it bundles the core first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchKey, bundleCore, root } from './serve-common.mjs';

const MESSAGES = Number(process.env.BENCH_RECEIVE_MESSAGES ?? 4_000);
const CONTACTS = Number(process.env.BENCH_RECEIVE_CONTACTS ?? 1_000);
const BATCH = Number(process.env.BENCH_RECEIVE_BATCH ?? 500);
const TREES = (process.env.BENCH_RECEIVE_TREES ?? root).split(',').map((t) => path.resolve(t));
const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));
const phone = (i) => `+4917${String(10_000_000 + i)}`;

/** The tree's core, bundled under this checkout (its node_modules resolve from there). */
async function bundle(tree, i) {
  const outdir = path.join(root, `.build/bench/receive-${i}`);
  await bundleCore({ core: path.join(tree, 'main/core/core.ts') }, { tree, outdir });
  return path.join(outdir, 'core.mjs');
}

/** A fresh store with one tree's core on a clock moved by hand; `step(n)` receives n messages. */
async function runner(file) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-receive-'));
  benchKey(dir);
  const { createCore } = await import(pathToFileURL(file).href);
  let now = Date.now();
  const core = await createCore({ dataDir: dir, clock: { now: () => now } });
  const { messages, conversations } = core.services;
  const scope = { workspaceId: core.services.workspaces.resolve().id, environment: 'test' };
  let sent = 0;
  return {
    async step(n) {
      const before = process.cpuUsage();
      for (let k = 0; k < n; k++, sent++) {
        now += 3;
        const m = messages.receive(scope, {
          phone: phone(sent % CONTACTS),
          text: `message ${sent}`,
          type: 'text',
          receivedAt: now,
        });
        // Every 8th conversation is closed before its next message (which reopens it).
        if (sent % 8 === 0) {
          const status = sent % 16 === 0 ? 'resolved' : 'snoozed';
          conversations.patch(scope, m.conversationId, {
            status,
            ...(status === 'snoozed'
              ? { snoozedUntil: new Date(now + 3600_000).toISOString() }
              : {}),
          });
        }
      }
      const used = process.cpuUsage(before);
      // The hub writes after the commit (setImmediate): let it, outside the measure.
      await new Promise((r) => setImmediate(r));
      return (used.user + used.system) / n;
    },
    async stop() {
      await core.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const files = [];
for (const [i, tree] of TREES.entries()) files.push(await bundle(tree, i));
const runners = [];
for (const f of files) runners.push(await runner(f));
const loadBefore = load();
const perTree = TREES.map(() => []);
try {
  for (let done = 0; done < MESSAGES; done += BATCH) {
    // Alternate which tree goes first, so neither always follows the other.
    const order = runners.map((_, i) => i);
    if ((done / BATCH) % 2 === 1) order.reverse();
    for (const i of order) perTree[i].push(await runners[i].step(Math.min(BATCH, MESSAGES - done)));
  }
} finally {
  for (const r of runners) await r.stop();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  JSON.stringify({
    messages: MESSAGES,
    contacts: CONTACTS,
    batch: BATCH,
    trees: TREES.map((tree, i) => ({
      tree,
      cpuUsPerMessage: perTree[i].map((x) => Math.round(x)),
      median: Math.round(median(perTree[i])),
      // The first batches open every conversation: the rest are messages to existing ones.
      medianExisting: Math.round(median(perTree[i].slice(Math.ceil(CONTACTS / BATCH)))),
    })),
    load: [loadBefore, load()],
  }),
);
process.exit(0);
