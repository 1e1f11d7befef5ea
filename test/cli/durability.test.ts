import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../main/core/core.ts';
import { tempDir } from '../helpers.ts';

const BIN = path.resolve('main/cli/bin.mjs');
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const cli = (args: string[], dir: string) =>
  JSON.parse(
    execFileSync(process.execPath, [BIN, ...args, '--json', '--data-dir', dir], {
      encoding: 'utf8',
    }),
  );

function serve(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PARLEY_RATE_LIMIT: '100000' },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

/** A data dir with a live key, an approved live template (no post-approval wait) and funds. */
async function prepared(topup: string) {
  const dir = tempDir('parley-dur-');
  dirs.push(dir);
  const test = cli(['keys', 'create', '--env', 'test', '--name', 't'], dir).key as string;
  const live = cli(['keys', 'create', '--env', 'live', '--name', 'l'], dir).key as string;
  cli(['wallet', 'topup', '--amount', topup], dir);
  const a = await serve(dir);
  const call = (key: string, method: string, p: string, body?: unknown) =>
    fetch(`${a.url}${p}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  await call(test, 'PUT', '/api/simulator/settings', { reviewDelayMs: 0, approvalWaitMs: 0 });
  await call(live, 'POST', '/api/templates', {
    name: 'notice',
    category: 'UTILITY',
    language: 'en',
    components: [{ type: 'BODY', text: 'Notice {{1}}' }],
  });
  for (let i = 0; i < 100; i++) {
    const tpl = (await (await call(live, 'GET', '/api/templates?name=notice')).json()) as {
      data: { status: string }[];
    };
    if (tpl.data[0]?.status === 'APPROVED') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { dir, live, first: a };
}

const send = (url: string, key: string, i: number) =>
  fetch(`${url}/api/send`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      'idempotency-key': `send-${i}`,
    },
    body: JSON.stringify({
      phone: `+4915112${String(i).padStart(6, '0')}`,
      templateName: 'notice',
      variables: { '1': String(i) },
    }),
  });

it('never overdraws or double-charges under concurrent live sends from two processes', async () => {
  const { dir, live, first } = await prepared('0.05'); // 50,000 micros: ten UTILITY sends at 5,000
  const second = await serve(dir);
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      send(i % 2 ? first.url : second.url, live, i).then((r) => r.status),
    ),
  );
  expect(results.filter((s) => s === 200)).toHaveLength(10);
  expect(results.filter((s) => s === 402)).toHaveLength(30);
  const store = openStore({ dataDir: dir });
  const ws = store.services.workspaces.resolve().id;
  expect(store.services.wallet.get(ws).balanceMicros).toBe(0);
  expect(store.services.wallet.ledgerSum(ws)).toBe(0);
  expect(
    store.db.prepare("SELECT count(*) FROM wallet_ledger WHERE type = 'charge'").pluck().get(),
  ).toBe(10);
  expect(
    store.db
      .prepare("SELECT count(DISTINCT reference) FROM wallet_ledger WHERE type = 'charge'")
      .pluck()
      .get(),
  ).toBe(10);
  expect(
    store.db.prepare("SELECT count(*) FROM messages WHERE environment = 'live'").pluck().get(),
  ).toBe(10);
  store.close();
});

it('loses no accepted message, ledger entry or pending job when the core is SIGKILLed', async () => {
  const { dir, live, first } = await prepared('1000');
  const accepted: string[] = [];
  let i = 0;
  const worker = async () => {
    for (;;) {
      const n = i++;
      try {
        const res = await send(first.url, live, n);
        if (res.status === 200)
          accepted.push(
            ((await res.json()) as { data: { channelMessageId: string } }).data.channelMessageId,
          );
      } catch {
        return; // the server died under us
      }
    }
  };
  const workers = Array.from({ length: 16 }, worker);
  while (accepted.length < 150) await new Promise((r) => setTimeout(r, 5));
  first.child.kill('SIGKILL');
  await Promise.all(workers);

  const store = openStore({ dataDir: dir });
  const { db, services } = store;
  const ws = services.workspaces.resolve().id;
  const have = new Set(
    db.prepare('SELECT channel_message_id FROM messages').pluck().all() as string[],
  );
  expect(accepted.length).toBeGreaterThanOrEqual(150);
  expect(accepted.filter((id) => !have.has(id))).toEqual([]);
  // The balance equals the ledger, and every message was charged exactly once.
  expect(services.wallet.get(ws).balanceMicros).toBe(services.wallet.ledgerSum(ws));
  const charged = db
    .prepare(
      `SELECT count(*) FROM messages m WHERE m.environment = 'live' AND
       (SELECT count(*) FROM wallet_ledger l WHERE l.reference = m.id AND l.type = 'charge') = 1`,
    )
    .pluck()
    .get();
  expect(charged).toBe(have.size);
  // Every message still waiting for the channel has its dispatch job.
  const orphans = db
    .prepare(
      `SELECT count(*) FROM messages m WHERE m.status = 'accepted' AND NOT EXISTS
       (SELECT 1 FROM jobs j WHERE j.kind = 'message.dispatch' AND json_extract(j.payload, '$.messageId') = m.id)`,
    )
    .pluck()
    .get();
  expect(orphans).toBe(0);
  store.close();

  // And a restarted core picks the work up at once: the dead process's leases are taken back
  // (not waited out), and every send in flight at the kill can be retried with its key.
  const again = await serve(dir);
  const issued = i;
  const retried = await Promise.all(
    Array.from({ length: issued }, async (_, n) => {
      const res = await send(again.url, live, n);
      const body = (await res.json()) as { data?: { channelMessageId: string } };
      return { n, status: res.status, replayed: res.headers.get('idempotent-replayed'), body };
    }),
  );
  // No key is left "in progress" (409): each either replays its first answer or runs now.
  expect(retried.filter((r) => r.status !== 200)).toEqual([]);
  for (const r of retried.filter((x) => have.has(x.body.data!.channelMessageId))) {
    expect(r.replayed).toBe('true');
  }
  const check = openStore({ dataDir: dir });
  const counts = check.db
    .prepare("SELECT phone, count(*) AS n FROM messages WHERE environment = 'live' GROUP BY phone")
    .all() as { phone: string; n: number }[];
  check.close();
  expect(counts).toHaveLength(issued);
  expect(counts.filter((c) => c.n !== 1)).toEqual([]);
  let left = -1;
  for (let k = 0; k < 200 && left !== 0; k++) {
    const s = openStore({ dataDir: dir });
    left = s.db
      .prepare("SELECT count(*) FROM messages WHERE status = 'accepted'")
      .pluck()
      .get() as number;
    s.close();
    if (left !== 0) await new Promise((r) => setTimeout(r, 50));
  }
  expect(left).toBe(0);
  // Every message was handed to the channel once: one `message.sent` event each.
  const end = openStore({ dataDir: dir });
  expect(
    end.db
      .prepare(
        `SELECT count(*) FROM (SELECT json_extract(data, '$.message.id') AS id, count(*) AS n FROM events
         WHERE type = 'message.sent' GROUP BY id HAVING n > 1)`,
      )
      .pluck()
      .get(),
  ).toBe(0);
  end.close();
  again.child.kill('SIGTERM');
}, 60_000);
