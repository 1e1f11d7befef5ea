// Campaign pacing bench (issue 9): a test-key campaign run by `parley serve` on 127.0.0.1,
// measured from the outside (HTTP) and from the store (hand-over times). Run alone with
// `node test/bench/campaigns.mjs` after `npm run build`, or as part of `npm run bench`.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, groupStore, keyClient, maxPerSecond, serve, sleep } from './serve-common.mjs';
/** The simulator's latencies for the run (README states them with the numbers). */
export const LATENCIES = { deliveryLatencyMs: 500, readLatencyMs: 1000 };

/**
 * A data dir with a test key, an approved template (`bench_offer`), `n` contacts in one group
 * (`grp_bench`) and the simulator at LATENCIES.
 */
export function campaignStore(n, mps) {
  return groupStore(
    'parley-campaign-bench-',
    mps,
    n,
    { idStem: 'CAMP', phoneStem: '+4915712' },
    (db, ws) =>
      db
        .prepare(
          `INSERT INTO simulator_settings (workspace_id, settings) VALUES (?, ?)
           ON CONFLICT (workspace_id) DO UPDATE SET settings = excluded.settings`,
        )
        .run(ws, JSON.stringify(LATENCIES)),
  );
}

/** One campaign of `n` recipients at `mps`; resolves with its numbers. */
export async function campaignRun(n, mps) {
  const { dir, key } = campaignStore(n, mps);
  const { url, child } = await serve(dir);
  try {
    const api = keyClient(url, key);
    const draft = await api('POST', '/campaigns', {
      name: `Bench ${n} at ${mps}`,
      templateName: 'bench_offer',
      variables: { 1: '{{contact.name}}' },
      target: { groupId: 'grp_bench' },
    });
    await sleep(300);
    const cpuBefore = cpuMs(child.pid);
    const launchedAt = Date.now();
    await api('POST', '/campaigns/launch', { id: draft.id });
    const deadline = launchedAt + (n / mps) * 1000 * 2 + 30_000;
    let p;
    // Poll lightly (4/s): until every message is read (the statuses caught up).
    for (;;) {
      p = await api('GET', `/campaigns/${draft.id}/progress`);
      if (p.status === 'completed' && p.read === p.sent) break;
      if (Date.now() > deadline) throw new Error(`campaign stuck: ${JSON.stringify(p)}`);
      await sleep(250);
    }
    const cpu = cpuMs(child.pid) - cpuBefore;
    const { times, lastRead, launched } = campaignTimes(dir, draft.id);
    const lastSent = times[times.length - 1];
    return {
      recipients: n,
      mps,
      sent: p.sent,
      allSentS: (lastSent - launched) / 1000,
      idealS: n / mps,
      maxPerSecond: maxPerSecond(times),
      cpuS: cpu / 1000,
      catchUpS: (lastRead - lastSent) / 1000,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A campaign's hand-over times (sent_at, in order), its last read receipt and its launch. */
export function campaignTimes(dir, id) {
  const db = new Database(path.join(dir, 'parley.db'), { readonly: true });
  try {
    return {
      times: db
        .prepare('SELECT sent_at FROM messages WHERE campaign_id = ? ORDER BY sent_at')
        .pluck()
        .all(id),
      lastRead: db
        .prepare('SELECT max(read_at) FROM messages WHERE campaign_id = ?')
        .pluck()
        .get(id),
      launched: db.prepare('SELECT launched_at FROM campaigns WHERE id = ?').pluck().get(id),
    };
  } finally {
    db.close();
  }
}

/**
 * The floor, measured in the same run: the least SQLite work a campaign of `n` implies — per
 * recipient one message row, its recipient's update and two status updates, in batches of 200
 * — with bare better-sqlite3 on a fresh file. CPU seconds.
 */
export function campaignFloor(n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-campaign-floor-'));
  try {
    const db = new Database(path.join(dir, 'floor.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE recipients (id INTEGER PRIMARY KEY, phone TEXT, status TEXT, message_id TEXT);
      CREATE TABLE messages (id TEXT PRIMARY KEY, phone TEXT, text TEXT, status TEXT, sent_at INTEGER,
        delivered_at INTEGER, read_at INTEGER);`);
    const addRecipient = db.prepare("INSERT INTO recipients (phone, status) VALUES (?, 'pending')");
    db.transaction(() => {
      for (let i = 0; i < n; i++) addRecipient.run(`+4915712${String(i).padStart(6, '0')}`);
    })();
    const due = db.prepare("SELECT id, phone FROM recipients WHERE status = 'pending' LIMIT 200");
    const insert = db.prepare(
      "INSERT INTO messages (id, phone, text, status, sent_at) VALUES (?, ?, ?, 'sent', ?)",
    );
    const settle = db.prepare("UPDATE recipients SET status = 'sent', message_id = ? WHERE id = ?");
    const delivered = db.prepare(
      "UPDATE messages SET status = 'delivered', delivered_at = ? WHERE id = ?",
    );
    const read = db.prepare("UPDATE messages SET status = 'read', read_at = ? WHERE id = ?");
    const start = process.cpuUsage();
    for (;;) {
      const batch = db.transaction(() => {
        const rows = due.all();
        for (const r of rows) {
          const id = `msg_${r.id}`;
          insert.run(id, r.phone, `Hi Person ${r.id}, 20% off today.`, Date.now());
          settle.run(id, r.id);
        }
        return rows;
      })();
      if (batch.length === 0) break;
      db.transaction(() => batch.forEach((r) => delivered.run(Date.now(), `msg_${r.id}`)))();
      db.transaction(() => batch.forEach((r) => read.run(Date.now(), `msg_${r.id}`)))();
    }
    const used = process.cpuUsage(start);
    db.close();
    return (used.user + used.system) / 1e6;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Both runs of the issue, as table rows with their verdicts. */
export async function campaignBench() {
  const fast = { ...(await campaignRun(10_000, 1000)), floorCpuS: campaignFloor(10_000) };
  const paced = { ...(await campaignRun(2000, 80)), floorCpuS: campaignFloor(2000) };
  return [
    {
      ...fast,
      verdict:
        fast.sent === 10_000 &&
        fast.allSentS <= 11 &&
        fast.maxPerSecond <= 1000 &&
        fast.catchUpS <= 5
          ? 'PASS'
          : 'MISS',
      target: 'all sent ≤ 11 s, ≤ 1000 in any second, statuses ≤ 5 s after',
    },
    {
      ...paced,
      verdict: paced.sent === 2000 && paced.maxPerSecond <= 80 ? 'PASS' : 'MISS',
      target: '≤ 80 in any second',
    },
  ];
}

export function printCampaignRows(rows) {
  const header = [
    'campaign',
    'all sent (s)',
    'ideal (s)',
    'max in any 1 s',
    'core CPU (s)',
    'floor CPU (s)',
    'statuses after (s)',
    'target',
  ];
  const body = rows.map((r) => [
    `${r.recipients.toLocaleString('en')} at ${r.mps} mps`,
    r.allSentS.toFixed(2),
    r.idealS.toFixed(2),
    String(r.maxPerSecond),
    r.cpuS.toFixed(2),
    r.floorCpuS === undefined ? '' : r.floorCpuS.toFixed(2),
    r.catchUpS.toFixed(2),
    `${r.verdict} (${r.target})`,
  ]);
  const w = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(w[i])).join(' | ') + ' |';
  console.log(
    `\nCampaigns (test key, simulator latencies ${LATENCIES.deliveryLatencyMs}/${LATENCIES.readLatencyMs} ms; "ideal" = recipients ÷ mps; ` +
      `floor = bare better-sqlite3 doing each recipient's message insert, recipient update and two status updates)\n`,
  );
  console.log(line(header));
  console.log('|' + w.map((x) => '-'.repeat(x + 2)).join('|') + '|');
  body.forEach((b) => console.log(line(b)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? 0);
  const rows = n
    ? [{ ...(await campaignRun(n, Number(process.argv[3] ?? 1000))), floorCpuS: campaignFloor(n) }]
    : await campaignBench();
  printCampaignRows(rows.map((r) => ({ verdict: '', target: '', ...r })));
}
