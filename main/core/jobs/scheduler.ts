import type { Database as Db } from 'better-sqlite3';
import type { Clock, Random } from '../runtime.ts';

/** Thrown by a handler to be run again after `delayMs` (counts as an attempt). */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs?: number,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

export interface JobContext {
  jobId: number;
  /** 1 on the first run. */
  attempt: number;
}

interface Registered {
  /**
   * Synchronous handlers run inside one transaction with the job's completion: their state
   * change and the job's removal commit together (exactly once). Async handlers (network
   * calls) are at least once.
   */
  run: (payload: unknown, ctx: JobContext) => void | Promise<void>;
  sync: boolean;
  maxAttempts: number;
  baseDelayMs: number;
  /** Called when the last attempt failed. */
  onDead?: (payload: unknown, error: string) => void;
}

interface JobRow {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
}

export interface EnqueueOptions {
  runAt?: number;
  delayMs?: number;
  maxAttempts?: number;
  /** At most one queued job per key (e.g. one review per template version). */
  dedupeKey?: string;
}

const LEASE_MS = 60_000;
const MAX_DELAY_MS = 6 * 3600_000;

/**
 * The one durable scheduler. Jobs live in SQLite (due time, attempts, lease, backoff), so they
 * survive restarts and a killed process; a lease keeps two processes from running one job.
 * Enqueue inside the transaction of the state change that needs the job.
 */
export function createScheduler(
  db: Db,
  clock: Clock,
  random: Random,
  log: (message: string, error?: unknown) => void,
) {
  const handlers = new Map<string, Registered>();
  const insert = db.prepare(
    `INSERT INTO jobs (kind, payload, run_at, max_attempts, dedupe_key, created_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`,
  );
  const due = db.prepare(
    `SELECT id, kind, payload, attempts, max_attempts FROM jobs
     WHERE status = 'queued' AND run_at <= @now AND (lease_until IS NULL OR lease_until <= @now)
     ORDER BY run_at, id LIMIT @limit`,
  );
  const lease = db.prepare('UPDATE jobs SET lease_until = ?, attempts = attempts + 1 WHERE id = ?');
  const done = db.prepare('DELETE FROM jobs WHERE id = ?');
  const retry = db.prepare(
    'UPDATE jobs SET run_at = ?, lease_until = NULL, last_error = ? WHERE id = ?',
  );
  const dead = db.prepare(
    "UPDATE jobs SET status = 'dead', lease_until = NULL, last_error = ?, dedupe_key = NULL WHERE id = ?",
  );
  const nextDue = db.prepare("SELECT min(run_at) FROM jobs WHERE status = 'queued'").pluck();

  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let started = false;
  let inFlight: Promise<unknown> = Promise.resolve();

  const jitter = () => 0.8 + (random.bytes(1)[0]! / 255) * 0.4;

  function claim(limit: number): JobRow[] {
    return db
      .transaction(() => {
        const now = clock.now();
        const rows = due.all({ now, limit }) as JobRow[];
        for (const r of rows) lease.run(now + LEASE_MS, r.id);
        return rows.map((r) => ({ ...r, attempts: r.attempts + 1 }));
      })
      .immediate();
  }

  function fail(job: JobRow, h: Registered, e: unknown) {
    const message = e instanceof Error ? e.message : String(e);
    if (job.attempts >= job.max_attempts) {
      dead.run(message, job.id);
      try {
        h.onDead?.(JSON.parse(job.payload), message);
      } catch (err) {
        log(`job ${job.kind} onDead failed`, err);
      }
      return;
    }
    const delay =
      e instanceof RetryLater && e.delayMs !== undefined
        ? e.delayMs
        : Math.min(MAX_DELAY_MS, h.baseDelayMs * 2 ** (job.attempts - 1)) * jitter();
    retry.run(clock.now() + Math.round(delay), message, job.id);
  }

  async function runOne(job: JobRow): Promise<void> {
    const h = handlers.get(job.kind);
    if (!h) {
      fail(
        job,
        { run: () => {}, sync: true, maxAttempts: 1, baseDelayMs: 1000 },
        new Error(`no handler for ${job.kind}`),
      );
      return;
    }
    const payload = JSON.parse(job.payload) as unknown;
    const ctx = { jobId: job.id, attempt: job.attempts };
    if (h.sync) {
      try {
        db.transaction(() => {
          void h.run(payload, ctx);
          done.run(job.id);
        }).immediate();
      } catch (e) {
        if (!(e instanceof RetryLater)) log(`job ${job.kind} #${job.id} failed`, e);
        fail(job, h, e);
      }
      return;
    }
    try {
      await h.run(payload, ctx);
      done.run(job.id);
    } catch (e) {
      if (!(e instanceof RetryLater)) log(`job ${job.kind} #${job.id} failed`, e);
      fail(job, h, e);
    }
  }

  const scheduler = {
    register(
      kind: string,
      run: Registered['run'],
      opts: {
        sync?: boolean;
        maxAttempts?: number;
        baseDelayMs?: number;
        onDead?: Registered['onDead'];
      } = {},
    ) {
      handlers.set(kind, {
        run,
        sync: opts.sync ?? true,
        maxAttempts: opts.maxAttempts ?? 10,
        baseDelayMs: opts.baseDelayMs ?? 1000,
        ...(opts.onDead ? { onDead: opts.onDead } : {}),
      });
    },

    enqueue(kind: string, payload: unknown, opts: EnqueueOptions = {}): void {
      const now = clock.now();
      const runAt = opts.runAt ?? now + (opts.delayMs ?? 0);
      insert.run(
        kind,
        JSON.stringify(payload),
        runAt,
        opts.maxAttempts ?? handlers.get(kind)?.maxAttempts ?? 10,
        opts.dedupeKey ?? null,
        now,
      );
      if (started && runAt <= now) scheduler.poke();
    },

    /** Runs every job due now (a batch at a time) and resolves when they are done. */
    async runDue(limit = 100): Promise<number> {
      let total = 0;
      for (;;) {
        const jobs = claim(limit);
        if (jobs.length === 0) return total;
        total += jobs.length;
        await Promise.all(jobs.map(runOne));
      }
    },

    poke() {
      if (!started || running) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(tick, 0);
    },

    start() {
      if (started) return;
      started = true;
      timer = setTimeout(tick, 0);
    },

    /** Stops the loop and waits for the jobs already running. */
    async stop() {
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await inFlight;
    },
  };

  async function tick() {
    timer = null;
    if (!started) return;
    running = true;
    const work = scheduler.runDue().catch((e) => log('scheduler tick failed', e));
    inFlight = work;
    await work;
    running = false;
    if (!started) return;
    // Sleep until the next due job, but look again at least every second: another process
    // (the CLI) may have queued one.
    const next = nextDue.get() as number | null;
    const wait = next === null ? 1000 : Math.max(0, Math.min(1000, next - clock.now()));
    timer = setTimeout(tick, wait);
    timer.unref();
  }

  return scheduler;
}
export type Scheduler = ReturnType<typeof createScheduler>;
