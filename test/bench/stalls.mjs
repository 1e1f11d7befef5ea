// How long the core holds its event loop while heavy work runs (issue 19 item 8: should the core
// leave Electron's main process?). A probe asks `GET /health` back to back, one at a time, and
// records each answer's latency: a stall of the core's thread shows as a slow answer. Measured
// idle (the floor, same run), then during a 100,000-row CSV import, a 10,000-recipient campaign
// at 1,000/s and a backlog of 30,000 events replayed to a stream. Run alone with
// `node test/bench/stalls.mjs` after `npm run build`, or as part of `npm run bench`.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { end, groupStore, serve, sleep } from './serve-common.mjs';

const CONTACTS = 10_000;
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);

const seed = () =>
  groupStore('parley-stalls-', 1000, CONTACTS, { idStem: 'STALL', phoneStem: '+4915713' });

/** Probes /health back to back until `stop()`; resolves with the latencies (ms). */
function probe(url) {
  let running = true;
  const latencies = [];
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return latencies;
    },
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const summary = (name, latencies, ms) => {
  const s = [...latencies].sort((a, b) => a - b);
  return {
    name,
    seconds: ms / 1000,
    probes: s.length,
    p50: quantile(s, 0.5),
    p99: quantile(s, 0.99),
    max: s[s.length - 1] ?? 0,
  };
};

async function during(name, url, work) {
  const p = probe(url);
  const t0 = Date.now();
  await work();
  const latencies = await p.stop();
  return summary(name, latencies, Date.now() - t0);
}

export async function stallBench() {
  const { dir, key } = seed();
  const { url, child } = await serve(dir);
  const api = async (method, p, body, headers = {}) => {
    const res = await fetch(url + p, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text.split('\n').filter(Boolean).at(-1)) : null;
  };
  const rows = [];
  try {
    rows.push(await during('idle (floor)', url, () => sleep(2000)));

    const csv = ['phone,name,city'];
    for (let i = 0; i < IMPORT_ROWS; i++) {
      csv.push(`+4917613${String(i).padStart(6, '0')},Imported ${i},Berlin`);
    }
    rows.push(
      await during(`CSV import, ${IMPORT_ROWS.toLocaleString('en')} rows`, url, () =>
        api('POST', '/api/contacts/import', csv.join('\n'), { 'content-type': 'text/csv' }),
      ),
    );

    const draft = await api('POST', '/campaigns', {
      name: 'Stalls',
      templateName: 'bench_offer',
      variables: { 1: '{{contact.name}}' },
      target: { groupId: 'grp_bench' },
    });
    rows.push(
      await during(
        `campaign, ${CONTACTS.toLocaleString('en')} recipients at 1,000/s`,
        url,
        async () => {
          await api('POST', '/campaigns/launch', { id: draft.id });
          for (let i = 0; i < 600; i++) {
            const p = await api('GET', `/campaigns/${draft.id}/progress`);
            if (p.status === 'completed') return;
            await sleep(100);
          }
          throw new Error('the campaign did not complete in 60 s');
        },
      ),
    );

    rows.push(
      await during('30,000 events replayed to a new stream', url, async () => {
        const controller = new AbortController();
        const res = await fetch(`${url}/events`, {
          headers: { 'x-api-key': key, 'last-event-id': '0' },
          signal: controller.signal,
        });
        const reader = res.body.getReader();
        let seen = 0;
        const decoder = new TextDecoder();
        while (seen < 30_000) {
          const { value, done } = await reader.read();
          if (done) break;
          seen += (decoder.decode(value).match(/\nid: /g) ?? []).length;
        }
        controller.abort();
      }),
    );
  } finally {
    await end(child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The rows as a table; the verdict: no stall a person would notice (≤ 100 ms) anywhere. */
export function printStallRows(rows) {
  console.log(
    '\nEvent-loop stalls of the core (GET /health answered back to back during the work)',
  );
  console.log('| work | s | probes | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.seconds.toFixed(1)} | ${r.probes} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} |`,
    );
  }
  const worst = Math.max(...rows.slice(1).map((r) => r.max));
  console.log(
    `worst stall ${worst.toFixed(0)} ms (floor: ${rows[0].max.toFixed(0)} ms idle): ${worst <= 100 ? 'PASS' : 'MISS'} (≤ 100 ms, below what a person notices)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printStallRows(await stallBench());
}
