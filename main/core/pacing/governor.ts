import type { Database as Db } from 'better-sqlite3';
import type { BlockedBy } from '../../../shared/campaign-rules.ts';
import type { Clock } from '../runtime.ts';

/** Whose limits: a business account, in one environment (test traffic never eats the live tier). */
export interface PaceKey {
  accountId: string;
  environment: 'test' | 'live';
}

export interface PaceLimits {
  throughputMps: number;
  /** Unique recipients outside a service window per rolling 24 h; null = unlimited. */
  messagingTier: number | null;
}

export const TIER_WINDOW_MS = 24 * 3600_000;
export const PAIR_INTERVAL_MS = 6000;
/** The throughput window. */
const WINDOW_MS = 1000;

/** What a recipient may do now. */
export type RecipientVerdict =
  | { ok: true; takesTierSlot: boolean }
  | { ok: false; by: Exclude<BlockedBy, 'throughput'>; until: number };

/**
 * The one sending governor (README "Campaigns"). Every runner asks it before handing
 * a message to the channel; API sends are recorded (they use tokens, tier slots and the pair
 * clock) but never held. Its state lives in SQLite and is read and written inside the caller's
 * write transaction, so two processes on one data dir share it exactly.
 * - throughput: at most `throughputMps` hand-overs in any window of one second — not just whole
 *   seconds — counted exactly (a sliding window of per-millisecond counts), so a pass may hand
 *   over as many as the window has room for and batches stay large at any rate;
 * - the messaging tier: recipients outside their service window take a slot for 24 h from their
 *   first such message; when `messagingTier` slots are taken, new ones wait for the oldest to end;
 * - the pair rate: one message per recipient per 6 s.
 */
export function createGovernor(db: Db, clock: Clock) {
  const windowRows = db
    .prepare(
      `SELECT at, n FROM governor_sends WHERE account_id = ? AND environment = ? AND at > ?
       ORDER BY at`,
    )
    .raw();
  const windowSum = db
    .prepare(
      `SELECT coalesce(sum(n), 0) FROM governor_sends
       WHERE account_id = ? AND environment = ? AND at > ?`,
    )
    .pluck();
  const addSends = db.prepare(
    `INSERT INTO governor_sends (account_id, environment, at, n) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, environment, at) DO UPDATE SET n = n + excluded.n`,
  );
  const lastSend = db
    .prepare('SELECT max(at) FROM governor_sends WHERE account_id = ? AND environment = ?')
    .pluck();
  const dropOld = db.prepare(
    'DELETE FROM governor_sends WHERE account_id = ? AND environment = ? AND at <= ?',
  );
  const recipient = db.prepare(
    `SELECT last_sent_at, tier_opened_at FROM governor_recipients
     WHERE account_id = ? AND environment = ? AND phone = ?`,
  );
  const record = db.prepare(
    `INSERT INTO governor_recipients (account_id, environment, phone, last_sent_at, tier_opened_at)
     VALUES (@accountId, @environment, @phone, @at, @slot)
     ON CONFLICT (account_id, environment, phone) DO UPDATE SET
       last_sent_at = max(last_sent_at, excluded.last_sent_at),
       tier_opened_at = coalesce(excluded.tier_opened_at, tier_opened_at)`,
  );
  const tierUsed = db
    .prepare(
      `SELECT count(*) FROM governor_recipients
       WHERE account_id = ? AND environment = ? AND tier_opened_at > ?`,
    )
    .pluck();
  const tierOldest = db
    .prepare(
      `SELECT min(tier_opened_at) FROM governor_recipients
       WHERE account_id = ? AND environment = ? AND tier_opened_at > ?`,
    )
    .pluck();
  const slotsByAge = db
    .prepare(
      `SELECT tier_opened_at FROM governor_recipients
       WHERE account_id = ? AND environment = ? AND tier_opened_at > ?
       ORDER BY tier_opened_at LIMIT ?`,
    )
    .pluck();
  const prune = db.prepare(
    `DELETE FROM governor_recipients WHERE (account_id, environment, phone) IN (
       SELECT account_id, environment, phone FROM governor_recipients
       WHERE last_sent_at < @cutoff AND (tier_opened_at IS NULL OR tier_opened_at < @cutoff) LIMIT @limit)`,
  );

  /** The hand-overs of the last second, oldest first: [at, n]. */
  const recent = (key: PaceKey, now: number) =>
    windowRows.all(key.accountId, key.environment, now - WINDOW_MS) as [number, number][];

  const governor = {
    /** How many more hand-overs the last second has room for (below zero after unheld sends). */
    room: (key: PaceKey, mps: number, at = clock.now()): number =>
      mps - (windowSum.get(key.accountId, key.environment, at - WINDOW_MS) as number),

    /** Counts `n` hand-overs now (inside the hand-over's transaction). API sends are never held. */
    spend(key: PaceKey, n: number, at?: number): void {
      if (n <= 0) return;
      const now = at ?? clock.now();
      addSends.run(key.accountId, key.environment, now, n);
      dropOld.run(key.accountId, key.environment, now - WINDOW_MS);
    },

    /**
     * Evenly paced start times for up to `want` hand-overs that take time (an SMTP exchange):
     * `1000 / mps` ms apart, after the last one counted, from `at` to `at + horizonMs`. A burst
     * would still fit the window but reach the server all at once; paced, any second holds at
     * most `mps`. The caller counts each time it uses with `spend(key, 1, time)`.
     */
    paced(key: PaceKey, mps: number, want: number, at: number, horizonMs: number): number[] {
      const gap = WINDOW_MS / mps;
      const last = lastSend.get(key.accountId, key.environment) as number | null;
      const out: number[] = [];
      const from = last === null ? at : Math.max(at, last + gap);
      for (let k = 0; out.length < want; k++) {
        const t = Math.ceil(from + k * gap);
        if (t >= at + horizonMs) break;
        out.push(t);
      }
      return out;
    },

    /**
     * Whether a hand-over that takes time (an SMTP exchange) may start now: the last second's
     * counted starts plus `pending` (admitted, not yet counted: they start any moment) leave room
     * for one more. So every second, the first included and however late the jobs ran, holds at
     * most `mps` starts, counted when they really happen. Otherwise, when to ask again.
     */
    admit(
      key: PaceKey,
      mps: number,
      pending: number,
      at: number,
    ): { ok: true } | { ok: false; at: number } {
      if (governor.room(key, mps, at) - pending >= 1) return { ok: true };
      return { ok: false, at: Math.max(at + 1, governor.roomAt(key, mps, 1 + pending, at)) };
    },

    /** The earliest time the window has room for `want` more (now if it has). */
    roomAt(key: PaceKey, mps: number, want: number, at = clock.now()): number {
      const now = at;
      if (governor.room(key, mps, now) >= want) return now;
      const rows = recent(key, now);
      let used = rows.reduce((sum, [, n]) => sum + n, 0);
      if (mps - used >= want) return now;
      for (const [at, n] of rows) {
        used -= n;
        if (mps - used >= want) return at + WINDOW_MS;
      }
      return now + WINDOW_MS;
    },

    /** A tier count for one pass: how many slots are taken now. */
    tierUsed: (key: PaceKey, at = clock.now()): number =>
      tierUsed.get(key.accountId, key.environment, at - TIER_WINDOW_MS) as number,

    /** When the oldest running slot ends (a new one frees up), or null when none runs. */
    tierFreesAt(key: PaceKey, at = clock.now()): number | null {
      const oldest = tierOldest.get(key.accountId, key.environment, at - TIER_WINDOW_MS) as
        number | null;
      return oldest === null ? null : oldest + TIER_WINDOW_MS;
    },

    /**
     * When the next `n` tier slots end, oldest first: a runner holds the k-th recipient the tier
     * refused until the k-th slot ends, so each waits for its own slot instead of all of them
     * being looked at again at every slot's end.
     */
    tierSlotEnds: (key: PaceKey, n: number, at = clock.now()): number[] =>
      (slotsByAge.all(key.accountId, key.environment, at - TIER_WINDOW_MS, n) as number[]).map(
        (t) => t + TIER_WINDOW_MS,
      ),

    /**
     * Whether a runner may message this recipient now. `insideWindow`: the recipient wrote in
     * the last 24 h (such messages take no tier slot). `used` is the pass's running tier count.
     */
    check(
      key: PaceKey,
      limits: PaceLimits,
      phone: string,
      insideWindow: boolean,
      used: number,
      at = clock.now(),
    ): RecipientVerdict {
      const now = at;
      const r = recipient.get(key.accountId, key.environment, phone) as
        { last_sent_at: number; tier_opened_at: number | null } | undefined;
      if (r && r.last_sent_at + PAIR_INTERVAL_MS > now) {
        return { ok: false, by: 'pair_rate', until: r.last_sent_at + PAIR_INTERVAL_MS };
      }
      const slotRunning = r?.tier_opened_at != null && r.tier_opened_at > now - TIER_WINDOW_MS;
      const takesTierSlot = !insideWindow && !slotRunning;
      if (takesTierSlot && limits.messagingTier !== null && used >= limits.messagingTier) {
        return {
          ok: false,
          by: 'tier',
          until: governor.tierFreesAt(key, now) ?? now + TIER_WINDOW_MS,
        };
      }
      return { ok: true, takesTierSlot };
    },

    /**
     * Records a message to a recipient (runners and API sends alike): the pair clock, and a
     * tier slot when it opens one. Returns whether it took a slot.
     */
    record(
      key: PaceKey,
      phone: string,
      insideWindow: boolean,
      knownSlot?: boolean,
      at?: number,
    ): boolean {
      const now = at ?? clock.now();
      let slot = knownSlot ?? false;
      if (knownSlot === undefined && !insideWindow) {
        const r = recipient.get(key.accountId, key.environment, phone) as
          { tier_opened_at: number | null } | undefined;
        slot = !(r?.tier_opened_at != null && r.tier_opened_at > now - TIER_WINDOW_MS);
      }
      record.run({
        accountId: key.accountId,
        environment: key.environment,
        phone,
        at: now,
        slot: slot ? now : null,
      });
      return slot;
    },

    /** Removes recipients whose pair clock and tier slot both ended; returns how many. */
    prune(limit: number): number {
      return prune.run({ cutoff: clock.now() - TIER_WINDOW_MS, limit }).changes;
    },
  };
  return governor;
}
export type Governor = ReturnType<typeof createGovernor>;
