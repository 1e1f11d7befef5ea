import type { Database as Db } from 'better-sqlite3';
import type { Clock } from '../runtime.ts';
import type { Scheduler } from './scheduler.ts';

/** How long the store keeps what only grows. Days; README "Retention". */
export interface Retention {
  /** Events (the stream's history and webhook payloads). */
  eventsDays: number;
  /** Finished webhook deliveries (the delivery log). */
  deliveriesDays: number;
  /** Jobs that failed for good. */
  deadJobsDays: number;
}

export const DEFAULT_RETENTION: Retention = { eventsDays: 30, deliveriesDays: 30, deadJobsDays: 7 };

const DAY_MS = 24 * 3600_000;
/** Rows per table per run: short transactions, off the request path. */
export const PRUNE_BATCH = 500;
const IDLE_EVERY_MS = 3600_000;
const BUSY_EVERY_MS = 1000;
const KIND = 'store.prune';

/** `PARLEY_RETENTION_EVENTS_DAYS`, `…_DELIVERIES_DAYS`, `…_DEAD_JOBS_DAYS` (positive numbers). */
export function retentionFromEnv(env: NodeJS.ProcessEnv): Retention {
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of days`);
    return n;
  };
  return {
    eventsDays: read('PARLEY_RETENTION_EVENTS_DAYS', DEFAULT_RETENTION.eventsDays),
    deliveriesDays: read('PARLEY_RETENTION_DELIVERIES_DAYS', DEFAULT_RETENTION.deliveriesDays),
    deadJobsDays: read('PARLEY_RETENTION_DEAD_JOBS_DAYS', DEFAULT_RETENTION.deadJobsDays),
  };
}

/**
 * Retention as a job of the one scheduler: each run removes at most PRUNE_BATCH rows of each
 * kind, and runs again in a second while there is more, else in an hour. Events a pending
 * webhook delivery still needs are kept. The highest event sequence removed is remembered, so
 * the stream can tell a client whose Last-Event-ID fell out of retention (`stream.reset`).
 */
export function createRetention(
  db: Db,
  clock: Clock,
  scheduler: Scheduler,
  retention: Retention,
  /** Other stores of what only grows, pruned with the rest: each removes at most `limit`. */
  extra: ((limit: number) => number)[] = [],
) {
  const deliveries = db.prepare(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE created_at < ? AND status != 'pending' LIMIT ${PRUNE_BATCH})`,
  );
  const events = db
    .prepare(
      // Events are appended in time order: everything before the first event young enough to
      // keep is old, so the scan is a range on the sequence, not the whole table.
      `DELETE FROM events WHERE seq IN (
         SELECT seq FROM events e
         WHERE seq < coalesce((SELECT seq FROM events WHERE created_at >= @cutoff ORDER BY seq LIMIT 1),
                              (SELECT max(seq) + 1 FROM events))
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq)
         ORDER BY seq LIMIT ${PRUNE_BATCH})
       RETURNING seq`,
    )
    .pluck();
  const deadJobs = db.prepare(
    `DELETE FROM jobs WHERE id IN (
       SELECT id FROM jobs WHERE status = 'dead' AND run_at < ? LIMIT ${PRUNE_BATCH})`,
  );
  const idempotency = db.prepare(
    `DELETE FROM idempotency_keys WHERE (scope, key) IN (
       SELECT scope, key FROM idempotency_keys WHERE created_at < ? LIMIT ${PRUNE_BATCH})`,
  );
  const prunedThrough = db
    .prepare("SELECT CAST(value AS INTEGER) FROM store_meta WHERE key = 'events_pruned_through'")
    .pluck();
  const setPrunedThrough = db.prepare(
    `INSERT INTO store_meta (key, value) VALUES ('events_pruned_through', ?)
     ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), excluded.value)`,
  );
  const queued = db
    .prepare(`SELECT 1 FROM jobs WHERE kind = '${KIND}' AND status = 'queued' LIMIT 1`)
    .pluck();

  /** One pass; returns how many rows it removed (a full batch anywhere means: more to do). */
  function pruneOnce(): { removed: number; more: boolean } {
    const now = clock.now();
    const d = deliveries.run(now - retention.deliveriesDays * DAY_MS).changes;
    const seqs = events.all({ cutoff: now - retention.eventsDays * DAY_MS }) as number[];
    if (seqs.length) setPrunedThrough.run(Math.max(...seqs));
    const j = deadJobs.run(now - retention.deadJobsDays * DAY_MS).changes;
    const k = idempotency.run(now - DAY_MS).changes;
    const counts = [d, seqs.length, j, k, ...extra.map((prune) => prune(PRUNE_BATCH))];
    return {
      removed: counts.reduce((a, b) => a + b, 0),
      more: counts.some((c) => c === PRUNE_BATCH),
    };
  }

  scheduler.register(KIND, () => {
    const { more } = pruneOnce();
    scheduler.enqueue(KIND, {}, { delayMs: more ? BUSY_EVERY_MS : IDLE_EVERY_MS });
  });

  return {
    retention,
    pruneOnce,
    /** The highest event sequence retention removed (0: none yet). */
    prunedThrough: () => (prunedThrough.get() as number | undefined) ?? 0,
    /** Queues the first run unless one is queued (a second process on the data dir shares it). */
    ensureScheduled() {
      db.transaction(() => {
        if (!queued.get()) scheduler.enqueue(KIND, {});
      }).immediate();
    },
  };
}
export type RetentionService = ReturnType<typeof createRetention>;
