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

/**
 * The throughput bucket's shape for `mps`: a burst of 1/50 s worth and a refill of the rest, so
 * no second — any second, not just whole ones — holds more than `mps` hand-overs
 * (burst + refill ≤ mps).
 */
export function bucketShape(mps: number): { burst: number; perSecond: number } {
  const burst = Math.max(1, Math.ceil(mps / 50));
  return { burst, perSecond: Math.max(1, mps - burst) };
}

/** What a recipient may do now. */
export type RecipientVerdict =
  | { ok: true; takesTierSlot: boolean }
  | { ok: false; by: Exclude<BlockedBy, 'throughput'>; until: number };

/**
 * The one sending governor (design.md §4 Outbound pacing). Every runner asks it before handing
 * a message to the channel; API sends are recorded (they use tokens, tier slots and the pair
 * clock) but never held. Its state lives in SQLite and is read and written inside the caller's
 * write transaction, so two processes on one data dir share it exactly.
 * - throughput: a token bucket per account (`bucketShape`);
 * - the messaging tier: recipients outside their service window take a slot for 24 h from their
 *   first such message; when `messagingTier` slots are taken, new ones wait for the oldest to end;
 * - the pair rate: one message per recipient per 6 s.
 */
export function createGovernor(db: Db, clock: Clock) {
  const bucket = db.prepare(
    'SELECT tokens, updated_at FROM governor_buckets WHERE account_id = ? AND environment = ?',
  );
  const saveBucket = db.prepare(
    `INSERT INTO governor_buckets (account_id, environment, tokens, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, environment) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at`,
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
  const prune = db.prepare(
    `DELETE FROM governor_recipients WHERE (account_id, environment, phone) IN (
       SELECT account_id, environment, phone FROM governor_recipients
       WHERE last_sent_at < @cutoff AND (tier_opened_at IS NULL OR tier_opened_at < @cutoff) LIMIT @limit)`,
  );

  function tokensAt(key: PaceKey, mps: number, now: number): number {
    const { burst, perSecond } = bucketShape(mps);
    const row = bucket.get(key.accountId, key.environment) as
      { tokens: number; updated_at: number } | undefined;
    if (!row) return burst;
    const elapsed = Math.max(0, now - row.updated_at);
    return Math.min(burst, row.tokens + (elapsed * perSecond) / 1000);
  }

  const governor = {
    /** Tokens the account has now (may be below zero after unheld API sends). */
    tokens: (key: PaceKey, mps: number): number => tokensAt(key, mps, clock.now()),

    /** Uses `n` tokens now (inside the hand-over's transaction). API sends may overdraw. */
    spend(key: PaceKey, mps: number, n: number): void {
      if (n <= 0) return;
      const now = clock.now();
      saveBucket.run(key.accountId, key.environment, tokensAt(key, mps, now) - n, now);
    },

    /** When the bucket will hold `n` tokens again. */
    tokensAvailableAt(key: PaceKey, mps: number, n: number): number {
      const now = clock.now();
      const have = tokensAt(key, mps, now);
      if (have >= n) return now;
      const { perSecond } = bucketShape(mps);
      return now + Math.ceil(((n - have) * 1000) / perSecond);
    },

    /** A tier count for one pass: how many slots are taken now. */
    tierUsed: (key: PaceKey): number =>
      tierUsed.get(key.accountId, key.environment, clock.now() - TIER_WINDOW_MS) as number,

    /** When the oldest running slot ends (a new one frees up), or null when none runs. */
    tierFreesAt(key: PaceKey): number | null {
      const oldest = tierOldest.get(
        key.accountId,
        key.environment,
        clock.now() - TIER_WINDOW_MS,
      ) as number | null;
      return oldest === null ? null : oldest + TIER_WINDOW_MS;
    },

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
    ): RecipientVerdict {
      const now = clock.now();
      const r = recipient.get(key.accountId, key.environment, phone) as
        { last_sent_at: number; tier_opened_at: number | null } | undefined;
      if (r && r.last_sent_at + PAIR_INTERVAL_MS > now) {
        return { ok: false, by: 'pair_rate', until: r.last_sent_at + PAIR_INTERVAL_MS };
      }
      const slotRunning = r?.tier_opened_at != null && r.tier_opened_at > now - TIER_WINDOW_MS;
      const takesTierSlot = !insideWindow && !slotRunning;
      if (takesTierSlot && limits.messagingTier !== null && used >= limits.messagingTier) {
        return { ok: false, by: 'tier', until: governor.tierFreesAt(key) ?? now + TIER_WINDOW_MS };
      }
      return { ok: true, takesTierSlot };
    },

    /**
     * Records a message to a recipient (runners and API sends alike): the pair clock, and a
     * tier slot when it opens one. Returns whether it took a slot.
     */
    record(key: PaceKey, phone: string, insideWindow: boolean, knownSlot?: boolean): boolean {
      const now = clock.now();
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
