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
  /** Business events (`POST /api/events`: payload and answer), kept for dedupe; at least 1. */
  businessEventsDays: number;
  /** Ended workflow runs and their step history (outputs included). */
  workflowRunsDays: number;
  /** The body (html, text) of a transactional email once it has left; the record stays. */
  emailBodiesDays: number;
  /** Channel webhook items that could not be read (Settings → Channel). */
  webhookRejectsDays: number;
  /** Media files (photos, voice notes, documents): the file goes, the message keeps its facts. */
  mediaDays: number;
}

export const DEFAULT_RETENTION: Retention = {
  eventsDays: 30,
  deliveriesDays: 30,
  deadJobsDays: 7,
  businessEventsDays: 1,
  workflowRunsDays: 90,
  emailBodiesDays: 90,
  webhookRejectsDays: 30,
  mediaDays: 365,
};

/** Every setting: its variable and the smallest value it takes (README "Retention"). */
export const RETENTION_SETTINGS: Record<keyof Retention, { env: string; min: number }> = {
  eventsDays: { env: 'PARLEY_RETENTION_EVENTS_DAYS', min: 0 },
  deliveriesDays: { env: 'PARLEY_RETENTION_DELIVERIES_DAYS', min: 0 },
  deadJobsDays: { env: 'PARLEY_RETENTION_DEAD_JOBS_DAYS', min: 0 },
  // `dedupeKey` is accepted once per 24 h: its row must live that long.
  businessEventsDays: { env: 'PARLEY_RETENTION_BUSINESS_EVENTS_DAYS', min: 1 },
  workflowRunsDays: { env: 'PARLEY_RETENTION_WORKFLOW_RUNS_DAYS', min: 0 },
  emailBodiesDays: { env: 'PARLEY_RETENTION_EMAIL_BODIES_DAYS', min: 0 },
  webhookRejectsDays: { env: 'PARLEY_RETENTION_WEBHOOK_REJECTS_DAYS', min: 0 },
  mediaDays: { env: 'PARLEY_RETENTION_MEDIA_DAYS', min: 0 },
};

/** A pending delivery older than this without a queued job lost it (a crash of an old version). */
const ORPHAN_AFTER_MS = 3600_000;

const DAY_MS = 24 * 3600_000;
/** Rows per table per run: short transactions, off the request path. */
export const PRUNE_BATCH = 500;
const IDLE_EVERY_MS = 3600_000;
const BUSY_EVERY_MS = 1000;
const KIND = 'store.prune';

/** `PARLEY_RETENTION_*_DAYS` (RETENTION_SETTINGS): positive numbers, at least their minimum. */
export function retentionFromEnv(env: NodeJS.ProcessEnv): Retention {
  const out = { ...DEFAULT_RETENTION };
  for (const key of Object.keys(RETENTION_SETTINGS) as (keyof Retention)[]) {
    const { env: name, min } = RETENTION_SETTINGS[key];
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of days`);
    if (n < min) throw new Error(`${name} must be at least ${min} day${min === 1 ? '' : 's'}`);
    out[key] = n;
  }
  return out;
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
  const businessEvents = db.prepare(
    `DELETE FROM business_events WHERE id IN (
       SELECT id FROM business_events WHERE created_at < ? LIMIT ${PRUNE_BATCH})`,
  );
  const endedRuns = db
    .prepare(
      `SELECT id FROM workflow_runs WHERE ended_at IS NOT NULL AND ended_at < ? LIMIT ${PRUNE_BATCH}`,
    )
    .pluck();
  const runSteps = db.prepare(
    'DELETE FROM workflow_run_steps WHERE run_id IN (SELECT value FROM json_each(?))',
  );
  const runs = db.prepare('DELETE FROM workflow_runs WHERE id IN (SELECT value FROM json_each(?))');
  const emailBodies = db.prepare(
    `UPDATE email_messages SET html = NULL, text = NULL WHERE id IN (
       SELECT id FROM email_messages
       WHERE campaign_id IS NULL AND (html IS NOT NULL OR text IS NOT NULL) AND created_at < ?
         AND status NOT IN ('pending', 'sending')
       LIMIT ${PRUNE_BATCH})`,
  );
  const webhookRejects = db.prepare(
    `DELETE FROM webhook_rejects WHERE id IN (
       SELECT id FROM webhook_rejects WHERE received_at < ? LIMIT ${PRUNE_BATCH})`,
  );
  // Nothing stays pending forever: a delivery whose job is gone (buried before deliveries had a
  // dead handler, or lost) is failed, so the log says so and retention can remove it later.
  const orphanDeliveries = db.prepare(
    `UPDATE webhook_deliveries
     SET status = 'failed', next_attempt_at = NULL,
         last_error = 'its delivery job was lost (the process running it died); redeliver it to send it again'
     WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status = 'pending' AND created_at < @cutoff
         AND id NOT IN (SELECT json_extract(payload, '$.deliveryId') FROM jobs
                        WHERE kind = 'webhook.deliver' AND status = 'queued'
                          AND json_extract(payload, '$.deliveryId') IS NOT NULL)
       LIMIT ${PRUNE_BATCH})`,
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
    const b = businessEvents.run(now - Math.max(1, retention.businessEventsDays) * DAY_MS).changes;
    const ended = endedRuns.all(now - retention.workflowRunsDays * DAY_MS) as string[];
    if (ended.length) {
      runSteps.run(JSON.stringify(ended));
      runs.run(JSON.stringify(ended));
    }
    const e = emailBodies.run(now - retention.emailBodiesDays * DAY_MS).changes;
    const o = orphanDeliveries.run({ cutoff: now - ORPHAN_AFTER_MS }).changes;
    const r = webhookRejects.run(now - retention.webhookRejectsDays * DAY_MS).changes;
    const counts = [
      d,
      seqs.length,
      j,
      k,
      b,
      ended.length,
      e,
      o,
      r,
      ...extra.map((prune) => prune(PRUNE_BATCH)),
    ];
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
