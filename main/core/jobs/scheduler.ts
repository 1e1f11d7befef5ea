import type { Database as Db } from 'better-sqlite3';
import { setMaxListeners } from 'node:events';
import type { JobKind, PayloadOf } from './payloads.ts';
import type { Clock, Random } from '../runtime.ts';
import type { ProcessOwner } from './owner.ts';
import type { UndoLog } from './undo.ts';
import { createUndoLog } from './undo.ts';

/** Thrown by a handler to be run again after `delayMs`. */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs?: number,
    /** false when the run never reached an answer (e.g. waiting out a provider's window). */
    readonly countsAsAttempt = true,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

export interface JobContext {
  jobId: number;
  /** 1 on the first run; runs that never reached an answer (a crash, a shutdown) do not count. */
  attempt: number;
  /** When the job was due: its enqueued time, or the one `again` or a retry set. */
  runAt: number;
  /** Aborted when the core shuts down: an async handler should give up its network call. */
  signal: AbortSignal;
  /**
   * Removes the job. Async handlers call it inside the transaction that commits their answer,
   * so the answer and the job's end are one commit; sync handlers need not (the scheduler does).
   */
  complete(): void;
  /**
   * Sync handlers: keep the job and run it again at `runAt` instead of ending it (a runner that
   * works in passes). Its attempts start over: the pass succeeded.
   */
  again(runAt: number): void;
}

interface Registered {
  /**
   * Synchronous handlers run inside one transaction with the job's removal: their state change
   * and the job's end commit together (exactly once). Async handlers (network calls) hold a
   * lease while they run and are at least once across a crash.
   */
  run: (payload: unknown, ctx: JobContext) => void | Promise<void>;
  sync: boolean;
  maxAttempts: number;
  baseDelayMs: number;
  /** Async kinds: how many of this kind run at once (their own lane). */
  concurrency: number;
  active: number;
  /** Called when the last attempt failed. */
  onDead?: (payload: unknown, error: string) => void;
  /** Sync kinds: its jobs run a chunk at a time in one savepoint (see `register`). */
  chunked: boolean;
}

interface JobRow {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  run_at: number;
}

export interface EnqueueOptions {
  runAt?: number;
  delayMs?: number;
  maxAttempts?: number;
  /** At most one queued job per key (e.g. one review per template version). */
  dedupeKey?: string;
  /** With dedupeKey: an already queued job runs at the earlier of its time and this one's. */
  sooner?: boolean;
}

const LEASE_MS = 60_000;
/**
 * Leases of runs still in flight are extended this often, so a slow call is never run twice. A
 * renewal is also the run's sign of life: it resets the job's death counter (see MAX_RECLAIMS).
 */
export const RENEW_EVERY_MS = 2_000;
/**
 * A job whose process died under the same attempt this many times in a row, each time before
 * the run lived to renew its lease (RENEW_EVERY_MS) or recorded any outcome, is buried instead
 * of run again: it may be what kills the process. Deaths of a run that was alive and waiting
 * (a slow receiver) do not add up: a renewal or any outcome starts the count again.
 */
export const MAX_RECLAIMS = 5;
/** While the store refuses writes (a full disk), ticks back off from this to STORE_BACKOFF_MAX_MS. */
export const STORE_BACKOFF_MIN_MS = 100;
export const STORE_BACKOFF_MAX_MS = 10_000;
/** Shutdown waits this long for handlers to notice the abort. */
const STOP_WAIT_MS = 12_000;
const MAX_DELAY_MS = 6 * 3600_000;
/** Sync jobs are claimed this many at a time. */
const SYNC_CLAIM = 64;
/**
 * A kind's sync jobs run in one transaction per tick until none is due or its slice is used up
 * (time, or count): a burst (10,000 timers due at once) commits a few large transactions instead
 * of many small ones (each commit rewrites the hot index pages to the WAL), and requests and the
 * other kinds still get in between slices.
 */
const SYNC_SLICE_MS = 10;
/**
 * A tick runs the lanes with due work until this much time is used, then lets requests in and
 * goes on in the next tick from the lane after the last it ran: several busy lanes (a
 * campaign's passes, its receipts, replies' dispatches) never hold the loop for a slice each at
 * once, and none waits behind the others for long.
 */
// 10 ms, not 20: since a campaign message got cheaper (one conversation.created, receipts one job
// per status) a 1,000 msg/s campaign keeps its pace on 10 ms ticks, and requests wait half as long
// behind a tick (team bench, TLS: reply p99 67 → 30–54 ms, fan-out p99 101 → 47–59 ms).
const TICK_BUDGET_MS = 10;
const SYNC_SLICE_MAX = 2048;
const RECLAIM_EVERY_MS = 15_000;

/**
 * The one durable scheduler. Jobs live in SQLite (due time, attempts, lease, backoff), so they
 * survive restarts and a killed process. Every kind is its own lane: sync kinds run in short
 * transactions, async kinds run up to their concurrency without the loop waiting on them, so a
 * webhook receiver that never answers does not hold up a message's dispatch. A lease names its
 * process; a restarted core takes a dead process's leases back at once.
 * Enqueue inside the transaction of the state change that needs the job.
 */
export function createScheduler(
  db: Db,
  clock: Clock,
  random: Random,
  owner: ProcessOwner,
  log: (message: string, error?: unknown) => void,
  /** Memory that follows this scheduler's rollbacks (see undo.ts). */
  undo: UndoLog = createUndoLog(),
) {
  const handlers = new Map<string, Registered>();
  const insert = db.prepare(
    `INSERT INTO jobs (kind, payload, run_at, max_attempts, dedupe_key, created_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`,
  );
  const insertSooner = db.prepare(
    `INSERT INTO jobs (kind, payload, run_at, max_attempts, dedupe_key, created_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (dedupe_key) DO UPDATE SET run_at = min(run_at, excluded.run_at)`,
  );
  // A pass or an outcome is progress: the job's death counter starts again.
  const rerun = db.prepare(
    'UPDATE jobs SET run_at = ?, attempts = 0, last_error = NULL, reclaims = 0 WHERE id = ?',
  );
  const dueOfKind = db.prepare(
    `SELECT id, kind, payload, attempts, max_attempts, run_at FROM jobs
     WHERE kind = @kind AND status = 'queued' AND run_at <= @now
       AND (lease_until IS NULL OR lease_until <= @now)
     ORDER BY run_at, id LIMIT @limit`,
  );
  const lease = db.prepare('UPDATE jobs SET lease_until = ?, lease_owner = ? WHERE id = ?');
  // Only runs that have lived a renewal period: their renewal says the process survived them.
  const renew = db.prepare(
    `UPDATE jobs SET lease_until = @until, reclaims = 0
     WHERE lease_owner = @owner AND lease_until <= @until - ${RENEW_EVERY_MS}`,
  );
  // Sync runs hold no lease (their transaction is the lock); an async run may only end the job
  // while the lease is still its own.
  const ownerGuard = 'AND (@owner IS NULL OR lease_owner = @owner)';
  const done = db.prepare(`DELETE FROM jobs WHERE id = @id ${ownerGuard}`);
  const retry = db.prepare(
    `UPDATE jobs SET run_at = @runAt, attempts = @attempts, lease_until = NULL, lease_owner = NULL,
       last_error = @error, reclaims = 0 WHERE id = @id ${ownerGuard}`,
  );
  // run_at becomes the time of death: retention keeps dead jobs from then.
  const dead = db.prepare(
    `UPDATE jobs SET status = 'dead', run_at = @now, attempts = @attempts, lease_until = NULL,
       lease_owner = NULL, last_error = @error, dedupe_key = NULL WHERE id = @id ${ownerGuard}`,
  );
  const dueKinds = db
    .prepare(
      `SELECT DISTINCT kind FROM jobs WHERE status = 'queued' AND run_at <= @now
         AND (lease_until IS NULL OR lease_until <= @now)`,
    )
    .pluck();
  const unlease = db.prepare(
    'UPDATE jobs SET lease_until = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?',
  );
  const nextDue = db
    .prepare(
      `SELECT min(run_at) FROM jobs WHERE status = 'queued'
         AND (lease_until IS NULL OR lease_until <= @now)
         AND kind IN (SELECT value FROM json_each(@kinds))`,
    )
    .pluck();
  const leaseOwners = db
    .prepare(
      `SELECT DISTINCT lease_owner FROM jobs
       WHERE lease_owner IS NOT NULL AND lease_owner != ? AND lease_until > ?`,
    )
    .pluck();
  const releaseOwner = db.prepare(
    `UPDATE jobs SET lease_until = NULL, lease_owner = NULL, reclaims = reclaims + 1
     WHERE lease_owner = ?`,
  );
  const crashers = db.prepare(
    `SELECT id, kind, payload, attempts, max_attempts, run_at FROM jobs
     WHERE status = 'queued' AND reclaims >= ${MAX_RECLAIMS}`,
  );

  let timer: NodeJS.Timeout | null = null;
  let started = false;
  let inTick = false;
  let poked = false;
  let lastReclaim = 0;
  let lastRenew = 0;
  /**
   * Aborts every async run's I/O when the scheduler stops. One signal for all of them: every
   * run in flight (up to each kind's concurrency, a download's two fetches each) listens to it,
   * so it has no listener cap.
   */
  const newShutdown = () => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  };
  let shutdown = newShutdown();
  const inFlight = new Set<Promise<void>>();

  const jitter = () => 0.8 + (random.bytes(1)[0]! / 255) * 0.4;

  /**
   * The store refusing writes (a full disk, an I/O error) is the machine's state, not a job's
   * failure: it costs no attempt, and the loop backs off (exponential, capped) instead of trying
   * again every millisecond. Said once when it starts and once when a job gets through again.
   */
  let storeFailing = false;
  let backoffMs = 0;
  /** While the store fails, no tick before this (Date.now()). */
  let notBefore = 0;
  function storeRefused(e: unknown) {
    backoffMs =
      backoffMs === 0 ? STORE_BACKOFF_MIN_MS : Math.min(STORE_BACKOFF_MAX_MS, backoffMs * 2);
    notBefore = Date.now() + backoffMs;
    if (storeFailing) return;
    storeFailing = true;
    const what = isStoreRefusal(e)
      ? `the store refuses writes (${errorCode(e)})`
      : 'a scheduler tick failed';
    log(
      `scheduler: ${what}; jobs wait, tried again with backoff up to every ${STORE_BACKOFF_MAX_MS / 1000} s`,
      e,
    );
  }
  function storeAccepted() {
    if (!storeFailing) return;
    storeFailing = false;
    backoffMs = 0;
    notBefore = 0;
    log('scheduler: the store accepts writes again; jobs run');
  }

  /** Ends a job for good and lets its kind react (refund, mark failed) in the same transaction. */
  function bury(
    job: JobRow,
    h: Registered | undefined,
    attempts: number,
    message: string,
    leased: boolean,
  ) {
    const changed = dead.run({
      id: job.id,
      now: clock.now(),
      attempts,
      error: message,
      owner: leased ? owner.id : null,
    }).changes;
    if (!changed) return;
    try {
      h?.onDead?.(JSON.parse(job.payload), message);
    } catch (err) {
      log(`job ${job.kind} onDead failed`, err);
    }
  }

  /** Records a failed or postponed run; inside the caller's transaction when there is one. */
  function fail(job: JobRow, h: Registered, e: unknown, leased: boolean) {
    const message = e instanceof Error ? e.message : String(e);
    const counted = !(e instanceof RetryLater) || e.countsAsAttempt;
    const attempts = job.attempts + (counted ? 1 : 0);
    if (counted && attempts >= job.max_attempts) {
      bury(job, h, attempts, message, leased);
      return;
    }
    const delay =
      e instanceof RetryLater && e.delayMs !== undefined
        ? e.delayMs
        : Math.min(MAX_DELAY_MS, h.baseDelayMs * 2 ** Math.max(0, attempts - 1)) * jitter();
    retry.run({
      id: job.id,
      runAt: clock.now() + Math.round(delay),
      attempts,
      error: message,
      owner: leased ? owner.id : null,
    });
  }

  /** When a sync handler asked to run again, its next time; null when it ended. */
  let rerunAt: number | null = null;
  const context = (job: JobRow, leased: boolean): JobContext => ({
    jobId: job.id,
    attempt: job.attempts + 1,
    runAt: job.run_at,
    signal: shutdown.signal,
    complete: () => done.run({ id: job.id, owner: leased ? owner.id : null }),
    again: (runAt: number) => {
      if (leased) throw new Error('only sync jobs can run again');
      rerunAt = runAt;
    },
  });

  /** A sync job's run and its end (or its next run), in the caller's transaction. */
  function runSync(job: JobRow, h: Registered) {
    rerunAt = null;
    void h.run(JSON.parse(job.payload), context(job, false));
    if (rerunAt === null) done.run({ id: job.id, owner: null });
    else rerun.run(rerunAt, job.id);
  }

  /** Each job in a savepoint of its own: one that fails is rolled back alone and retried. */
  function runOneByOne(rows: JobRow[], h: Registered) {
    for (const job of rows) {
      try {
        undo.frame(() => db.transaction(() => runSync(job, h))());
      } catch (e) {
        // Not the job's failure: the whole slice is rolled back and the tick backs off.
        if (isStoreRefusal(e)) throw e;
        if (!(e instanceof RetryLater)) log(`job ${job.kind} #${job.id} failed`, e);
        fail(job, h, e, false);
      }
    }
  }

  /**
   * One transaction: due jobs of a sync kind, until none is due or the slice is used up. How many
   * ran, and whether due ones may remain. A chunked kind's claim runs in one savepoint (a
   * savepoint per job copies every page the job first touches: a quarter of a workflow step's
   * cost); when one of them throws, the chunk is rolled back and run again job by job.
   */
  function runSyncSlice(
    kind: string,
    h: Registered,
    budgetMs = SYNC_SLICE_MS,
  ): { ran: number; more: boolean } {
    return undo.frame(() => slice(kind, h, budgetMs));
  }
  function slice(kind: string, h: Registered, budgetMs: number): { ran: number; more: boolean } {
    return db
      .transaction(() => {
        const started = performance.now();
        let ran = 0;
        for (;;) {
          const rows = dueOfKind.all({ kind, now: clock.now(), limit: SYNC_CLAIM }) as JobRow[];
          let together = h.chunked && rows.length > 1;
          if (together) {
            try {
              undo.frame(() =>
                db.transaction(() => {
                  for (const job of rows) runSync(job, h);
                })(),
              );
            } catch {
              together = false;
            }
          }
          if (!together) runOneByOne(rows, h);
          ran += rows.length;
          if (rows.length < SYNC_CLAIM) return { ran, more: false };
          if (ran >= SYNC_SLICE_MAX || performance.now() - started >= budgetMs) {
            return { ran, more: true };
          }
        }
      })
      .immediate();
  }

  function claim(kind: string, limit: number): JobRow[] {
    if (limit <= 0) return [];
    return db
      .transaction(() => {
        const now = clock.now();
        const rows = dueOfKind.all({ kind, now, limit }) as JobRow[];
        for (const r of rows) lease.run(now + LEASE_MS, owner.id, r.id);
        return rows;
      })
      .immediate();
  }

  async function runAsync(job: JobRow, h: Registered): Promise<void> {
    const ctx = context(job, true);
    try {
      try {
        await h.run(JSON.parse(job.payload), ctx);
        if (db.open) ctx.complete();
        storeAccepted();
      } catch (e) {
        if (!db.open) return;
        if (ctx.signal.aborted) {
          // Shutting down: the run never reached an answer; the next start runs it again.
          unlease.run(job.id, owner.id);
          return;
        }
        if (isStoreRefusal(e)) throw e;
        if (!(e instanceof RetryLater)) log(`job ${job.kind} #${job.id} failed`, e);
        db.transaction(() => fail(job, h, e, true)).immediate();
        storeAccepted();
      }
    } catch (e) {
      if (!db.open) return;
      if (!isStoreRefusal(e)) {
        log(`job ${job.kind} #${job.id}: its outcome could not be recorded`, e);
        return;
      }
      // Its outcome could not be written: run it again once the store takes writes (an answer
      // not recorded is as if never given: at least once, like a crash).
      storeRefused(e);
      try {
        unlease.run(job.id, owner.id);
      } catch {
        // The lease ends by itself (LEASE_MS).
      }
    }
  }

  function launch(job: JobRow, h: Registered) {
    h.active++;
    const p = runAsync(job, h).finally(() => {
      h.active--;
      inFlight.delete(p);
      scheduler.poke();
    });
    inFlight.add(p);
  }

  /**
   * Leases held by processes that no longer run are taken back at once, not after LEASE_MS.
   * A job whose process died under it MAX_RECLAIMS times is buried: it may be what kills it.
   */
  function reclaim(): number {
    let released = 0;
    for (const o of leaseOwners.all(owner.id, clock.now()) as string[]) {
      if (!owner.isAlive(o)) released += releaseOwner.run(o).changes;
    }
    if (released > 0) {
      db.transaction(() => {
        for (const job of crashers.all() as JobRow[]) {
          const message = `the process running it died ${MAX_RECLAIMS} times`;
          log(`job ${job.kind} #${job.id} buried: ${message}`);
          bury(job, handlers.get(job.kind), job.attempts, message, false);
        }
      }).immediate();
    }
    return released;
  }

  /** Extends the leases of this process's runs that have lived a renewal period. */
  function renewLeases(): number {
    return renew.run({ until: clock.now() + LEASE_MS, owner: owner.id }).changes;
  }

  let timerAt = 0;
  /** The lane a tick starts with: where the last one ran out of time. */
  let firstLane = 0;
  /** A tick queued right after the current I/O (work is waiting): no 1 ms timer floor. */
  let immediate: NodeJS.Immediate | null = null;
  function schedule(ms: number) {
    if (immediate) return;
    if (storeFailing) ms = Math.max(ms, notBefore - Date.now());
    if (ms <= 0) {
      if (timer) clearTimeout(timer);
      timer = null;
      timerAt = 0;
      immediate = setImmediate(tick);
      immediate.unref();
      return;
    }
    const at = Date.now() + ms;
    // Many enqueues in a row (a burst of sends) keep the tick already due soonest.
    if (timer && timerAt <= at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(tick, ms);
    timer.unref();
  }

  function tick() {
    if (timer) clearTimeout(timer);
    timer = null;
    timerAt = 0;
    immediate = null;
    if (!started || !db.open) return;
    inTick = true;
    poked = false;
    let busy = false;
    try {
      if (Date.now() - lastReclaim >= RECLAIM_EVERY_MS) {
        lastReclaim = Date.now();
        reclaim();
      }
      // Twice a period, so a run is renewed (and counted alive) within 1.5 periods of its start.
      if (inFlight.size > 0 && Date.now() - lastRenew >= RENEW_EVERY_MS / 2) {
        lastRenew = Date.now();
        renewLeases();
      }
      // One read of the index tells which lanes have work: idle kinds cost nothing.
      const due = new Set(dueKinds.all({ now: clock.now() }) as string[]);
      const lanes = [...handlers];
      const tickStarted = performance.now();
      for (let i = 0; i < lanes.length; i++) {
        const at = (firstLane + i) % lanes.length;
        const [kind, h] = lanes[at]!;
        if (!due.has(kind)) continue;
        const used = performance.now() - tickStarted;
        if (used >= TICK_BUDGET_MS) {
          // The rest in the next tick, this lane first.
          firstLane = at;
          busy = true;
          break;
        }
        if (h.sync) {
          const slice = runSyncSlice(kind, h, Math.min(SYNC_SLICE_MS, TICK_BUDGET_MS - used));
          if (slice.ran > 0) storeAccepted();
          if (slice.more) busy = true;
        } else {
          for (const job of claim(kind, h.concurrency - h.active)) launch(job, h);
        }
      }
    } catch (e) {
      // A failing tick backs off; it is said once, not once per try.
      storeRefused(e);
      busy = false;
      poked = false;
    }
    inTick = false;
    if (!started) return;
    if (busy || poked) {
      // Let requests in between batches.
      schedule(0);
      return;
    }
    // Sleep until the next due job of a kind with room, but look again at least every second:
    // another process (the CLI) may have queued one.
    const open = [...handlers].filter(([, h]) => h.sync || h.active < h.concurrency);
    const now = clock.now();
    let next: number | null = null;
    try {
      next = nextDue.get({ now, kinds: JSON.stringify(open.map(([k]) => k)) }) as number | null;
    } catch (e) {
      storeRefused(e);
    }
    schedule(next === null ? 1000 : Math.max(1, Math.min(1000, next - now)));
  }

  const scheduler = {
    owner,

    register<K extends JobKind>(
      kind: K,
      run: (payload: PayloadOf<K>, ctx: JobContext) => void | Promise<void>,
      opts: {
        sync?: boolean;
        maxAttempts?: number;
        baseDelayMs?: number;
        /** Async kinds: how many run at once (default 8). */
        concurrency?: number;
        onDead?: (payload: PayloadOf<K>, error: string) => void;
        /**
         * Sync kinds: run a claim of due jobs in one savepoint instead of one each. When a job
         * of the chunk throws, the chunk is rolled back and run again job by job, so a handler
         * may run twice against the same stored state: only for handlers whose effects are all
         * in the store (memory they touch is a cache of committed rows, or harmless to repeat).
         */
        chunked?: boolean;
      } = {},
    ) {
      // Stored untyped: the map holds every kind; `enqueue` checked what goes in.
      handlers.set(kind, {
        run: run as Registered['run'],
        sync: opts.sync ?? true,
        maxAttempts: opts.maxAttempts ?? 10,
        baseDelayMs: opts.baseDelayMs ?? 1000,
        concurrency: opts.concurrency ?? 8,
        active: 0,
        chunked: (opts.sync ?? true) && (opts.chunked ?? false),
        ...(opts.onDead ? { onDead: opts.onDead as NonNullable<Registered['onDead']> } : {}),
      });
    },

    enqueue<K extends JobKind>(kind: K, payload: PayloadOf<K>, opts: EnqueueOptions = {}): void {
      const now = clock.now();
      const runAt = opts.runAt ?? now + (opts.delayMs ?? 0);
      (opts.sooner ? insertSooner : insert).run(
        kind,
        JSON.stringify(payload),
        runAt,
        opts.maxAttempts ?? handlers.get(kind)?.maxAttempts ?? 10,
        opts.dedupeKey ?? null,
        now,
      );
      if (runAt <= now) scheduler.poke();
    },

    /**
     * Runs every job due now, kind by kind, and resolves when they (and the jobs they made due)
     * are done. Tests drive time with it; the running loop does not wait like this. Stopped (or
     * its store closed), it claims nothing: a job it took then would run against a core that is
     * going away, its lease held until reclaimed.
     */
    async runDue(): Promise<number> {
      let total = 0;
      for (;;) {
        if (shutdown.signal.aborted || !db.open) return total;
        let n = 0;
        const running: Promise<void>[] = [];
        for (const [kind, h] of handlers) {
          if (h.sync) {
            for (let more = true; more;) {
              const slice = runSyncSlice(kind, h);
              n += slice.ran;
              more = slice.more;
            }
          } else {
            const jobs = claim(kind, Number.MAX_SAFE_INTEGER);
            n += jobs.length;
            for (const j of jobs) {
              // In flight like the loop's runs: `stop` waits for it to give its lease back.
              const p = runAsync(j, h).finally(() => inFlight.delete(p));
              inFlight.add(p);
              running.push(p);
            }
          }
        }
        await Promise.all(running);
        total += n;
        if (n === 0) return total;
      }
    },

    reclaim,

    /** What the loop does twice every RENEW_EVERY_MS while runs are in flight (tests call it). */
    renewLeases,

    /** Whether the store is refusing the scheduler's writes (the loop is backing off). */
    get storeFailing() {
      return storeFailing;
    },

    poke() {
      if (!started) return;
      if (inTick) poked = true;
      else schedule(0);
    },

    start() {
      if (started) return;
      started = true;
      shutdown = newShutdown();
      lastReclaim = Date.now();
      reclaim();
      schedule(0);
    },

    /** Stops the loop, aborts network calls in flight and waits for their handlers to end. */
    async stop() {
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
      if (immediate) clearImmediate(immediate);
      immediate = null;
      shutdown.abort();
      // A handler that ignores the abort must not hold the shutdown forever.
      await Promise.race([
        Promise.all(inFlight),
        new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref()),
      ]);
    },
  };

  return scheduler;
}
export type Scheduler = ReturnType<typeof createScheduler>;

function errorCode(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** SQLite could not write (disk or quota full, an I/O error): the machine's state, not a job's. */
export function isStoreRefusal(e: unknown): boolean {
  const code = errorCode(e);
  return code !== null && (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR'));
}
