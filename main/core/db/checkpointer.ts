import type { Database as Db } from 'better-sqlite3';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker copies the WAL back into the database. */
const EVERY_MS = 250;

/**
 * The worker: its own connection to the data dir's database, a PASSIVE checkpoint every
 * EVERY_MS (it never blocks the writer, nor waits for readers), closed when told.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 1000');
const tick = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (e) { parentPort.postMessage({ error: String(e && e.message || e) }); }
};
const timer = setInterval(tick, workerData.everyMs);
parentPort.on('message', () => { clearInterval(timer); tick(); db.close(); parentPort.postMessage({ closed: true }); });
parentPort.postMessage({ ready: true });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints (copying committed pages back into the database file, with its fsyncs)
 * off the main thread, onto the second core: a commit then only appends to the WAL. Without it,
 * SQLite runs a checkpoint inside the commit that crosses 1,000 WAL pages, on the thread that
 * serves requests and runs jobs. If the worker cannot start or fails, the connection goes back
 * to checkpointing itself.
 */
export function startCheckpointer(db: Db, opts: { nativeBinding?: string } = {}): Checkpointer {
  const fallback = () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  };
  let worker: Worker;
  try {
    worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        file: db.name,
        nativeBinding: opts.nativeBinding ?? null,
        everyMs: EVERY_MS,
      },
    });
  } catch {
    return { stop: async () => {} };
  }
  worker.unref();
  let failed = false;
  const fail = () => {
    if (failed) return;
    failed = true;
    fallback();
    void worker.terminate();
  };
  worker.on('message', (m: { ready?: boolean; error?: string }) => {
    if (m.ready && !failed && db.open) db.pragma('wal_autocheckpoint = 0');
    if (m.error) fail();
  });
  worker.on('error', fail);
  worker.on('exit', () => {
    if (!failed) fallback();
    failed = true;
  });
  return {
    async stop() {
      if (failed) return;
      failed = true;
      fallback();
      const closed = new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.once('message', () => resolve());
      });
      worker.postMessage('stop');
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]);
      await worker.terminate();
    },
  };
}
