/**
 * The campaign runner's skeleton, one for every kind (README "Campaigns" and "Email"): the
 * scheduled start (a job that waits for the campaign's time, also across restarts), the pass loop
 * (one sync job a campaign, run again when its kind says; what happens when it keeps failing),
 * completion, and progress events at most once a second plus one on every state change. A kind
 * supplies only its hand-over: how a pass claims and hands over its due recipients (messaging:
 * the governor and messages.handOverForRunner; email: its transport), how a campaign starts
 * sending, and how its progress reads.
 */
import type { Clock } from '../runtime.ts';
import type { JobContext, Scheduler } from './scheduler.ts';

/** The scheduler's kinds a runner registers: each carries a campaign id. */
export type CampaignJobKind =
  'campaign.run' | 'campaign.start' | 'campaign.progress' | 'email.campaign' | 'email.progress';

/** Progress events go out at most this often while a campaign sends. */
export const PROGRESS_EVERY_MS = 1000;

interface RunnerRow {
  id: string;
  status: string;
  scheduled_for: number | null;
}

export interface CampaignRunnerKind<C extends RunnerRow, P> {
  jobs: {
    /** A campaign's passes. */
    run: CampaignJobKind;
    /** Its scheduled start: the run kind itself when one job does both. */
    start: CampaignJobKind;
    progress: CampaignJobKind;
  };
  /** The campaign as stored now. */
  load: (id: string) => C | undefined;
  /** Moves a campaign whose time has come into sending (the kind's start); true when it is. */
  start: (c: C) => boolean;
  /**
   * One pass of a sending campaign at `now`: claims its due recipients, hands them over and
   * says when to look again (null: it ended or stopped).
   */
  pass: (c: C, now: number) => number | null;
  /** Recipients not yet handed over: none left ends a sending campaign. */
  remaining: (c: C) => number;
  /** Moves a sending campaign to its end. */
  complete: (c: C) => void;
  /** The pass job's attempts before `onDead` (default 10). */
  maxAttempts?: number;
  /** A start or a pass kept failing: the kind's last word on the campaign. */
  onDead?: (c: C, job: 'run' | 'start', error: string) => void;
  progress: {
    /** The campaign's progress at `now`, as its event says it. */
    read: (c: C, now: number) => P;
    /** What it says but for what changes by the second (rates): equal is unchanged. */
    signature: (p: P) => string;
    /** Writes the event. */
    emit: (c: C, p: P) => void;
    /**
     * When the last event went out, kept where every process sees it; absent, this process
     * remembers (`recordAt` then is not needed).
     */
    lastAt?: (c: C) => number;
    recordAt?: (c: C, now: number) => void;
  };
}

export function campaignRunner<C extends RunnerRow, P>(
  scheduler: Scheduler,
  clock: Clock,
  kind: CampaignRunnerKind<C, P>,
) {
  const { jobs } = kind;
  const oneJob = jobs.start === jobs.run;

  // ---- progress -------------------------------------------------------------------------------

  /** What this process last reported per campaign: an unchanged funnel is not sent again. */
  const reported = new Map<string, string>();
  const reportedAt = new Map<string, number>();
  /**
   * When a queued progress job runs, per campaign: receipts arrive by the thousand, and while one
   * is queued the next need not look (the queued one reads the state when it runs).
   */
  const queued = new Map<string, number>();
  const lastAt = (c: C): number | undefined =>
    kind.progress.lastAt ? kind.progress.lastAt(c) : reportedAt.get(c.id);

  /** A progress event now, unless it says what the last one did (`force`: even then). */
  function reportNow(c: C, force = false) {
    const now = clock.now();
    const progress = kind.progress.read(c, now);
    const signature = kind.progress.signature(progress);
    if (!force && reported.get(c.id) === signature) return;
    reported.set(c.id, signature);
    reportedAt.set(c.id, now);
    kind.progress.emit(c, progress);
    kind.progress.recordAt?.(c, now);
  }

  /**
   * A progress event now if the last is a second old, else one when it is (one job queued).
   * `row`: the campaign as the caller just read it (else it is read here, when needed).
   */
  function report(id: string, row?: C) {
    const now = clock.now();
    const waiting = queued.get(id);
    if (waiting !== undefined && waiting > now) return;
    const c = row ?? kind.load(id);
    if (!c || c.status === 'draft') return;
    const last = lastAt(c);
    if (last === undefined || now - last >= PROGRESS_EVERY_MS) {
      queued.delete(c.id);
      reportNow(c);
      return;
    }
    const runAt = last + PROGRESS_EVERY_MS;
    scheduler.enqueue(
      jobs.progress,
      { campaignId: c.id },
      { runAt, dedupeKey: `${jobs.progress}:${c.id}`, sooner: true },
    );
    queued.set(c.id, runAt);
  }

  scheduler.register(jobs.progress, (payload, ctx) => {
    const c = kind.load(payload.campaignId);
    if (!c) return;
    // Another writer (a pass, a receipt, a state change) reported since this was queued.
    const last = lastAt(c);
    const due = last === undefined ? 0 : last + PROGRESS_EVERY_MS;
    if (due > clock.now()) ctx.again(due);
    else reportNow(c);
  });

  // ---- start, passes, end ---------------------------------------------------------------------

  /** Queues a campaign's passes now (or sooner than already queued). */
  const queueRun = (id: string, runAt?: number) =>
    scheduler.enqueue(
      jobs.run,
      { campaignId: id },
      { ...(runAt === undefined ? {} : { runAt }), dedupeKey: `${jobs.run}:${id}`, sooner: true },
    );

  /** Queues a scheduled campaign's start at `at` (`sooner`: an earlier time replaces a later). */
  const queueStart = (id: string, at: number, sooner = true) =>
    scheduler.enqueue(
      jobs.start,
      { campaignId: id },
      { runAt: at, dedupeKey: `${jobs.start}:${id}`, sooner },
    );

  /** A scheduled campaign whose time has come starts (true); one re-launched for later waits. */
  function startIfDue(c: C, ctx: JobContext): boolean {
    if (c.scheduled_for !== null && c.scheduled_for > clock.now()) {
      ctx.again(c.scheduled_for);
      return false;
    }
    return kind.start(c);
  }

  /** Ends a sending campaign nobody is left in; true when it did. */
  function finishIfDone(c: C): boolean {
    if (c.status !== 'sending' || kind.remaining(c) > 0) return false;
    kind.complete(c);
    return true;
  }

  const dead = (job: 'run' | 'start') =>
    kind.onDead
      ? {
          onDead: (payload: { campaignId: string }, error: string) => {
            const c = kind.load(payload.campaignId);
            if (c) kind.onDead!(c, job, error);
          },
        }
      : {};

  scheduler.register(
    jobs.run,
    (payload, ctx) => {
      const c = kind.load(payload.campaignId);
      if (!c) return;
      if (oneJob && c.status === 'scheduled') {
        // This job is the campaign's runner: once started it goes on now.
        if (startIfDue(c, ctx)) ctx.again(clock.now());
        return;
      }
      if (c.status !== 'sending') return;
      const again = kind.pass(c, clock.now());
      if (again !== null) ctx.again(again);
    },
    { maxAttempts: kind.maxAttempts ?? 10, ...dead('run') },
  );

  if (!oneJob) {
    scheduler.register(
      jobs.start,
      (payload, ctx) => {
        const c = kind.load(payload.campaignId);
        if (c && c.status === 'scheduled') startIfDue(c, ctx);
      },
      dead('start'),
    );
  }

  return { report, reportNow, queueRun, queueStart, finishIfDone };
}
