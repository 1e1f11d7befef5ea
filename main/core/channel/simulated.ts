import { createHash } from 'node:crypto';
import { MAGIC_NUMBERS } from '../../../shared/phone.ts';
import type { SimulatorSettingsService } from '../modules/simulator/settings.ts';
import type { Clock, Random } from '../runtime.ts';
import type { UndoLog } from '../jobs/undo.ts';
import { randomBase62 } from '../runtime.ts';
import type { ChannelMessage, DeliveryOutcome, LocalChannel } from './types.ts';

/**
 * The simulated channel (every test-key message; live ones too until a real channel is
 * connected). Deterministic: latencies depend only on the workspace's seed and the message id.
 * Magic numbers: +15550000001 always fails 131026; +15550000002 fails once with a retryable
 * error, then succeeds; +15550000003 is delivered but never read.
 *
 * Its limits are the real provider's, answered the same way: more than the account's
 * `throughputMps` hand-overs in any second → `130429`; to one person, a burst of
 * PAIR_BURST and then one every 6 s → `131056` (both retryable). The governor is stricter, so
 * runners never provoke them; unheld API sends can. The provider's memory of recent
 * hand-overs is this process's (as a remote provider's would be its own).
 */
export const PAIR_BURST = 45;
const PAIR_REFILL_MS = 6000;

export function createSimulatedChannel(
  settings: SimulatorSettingsService,
  random: Random,
  clock: Clock,
  /** The scheduler's rollbacks take back the hand-overs they undid. */
  undo?: Pick<UndoLog, 'add'>,
): LocalChannel {
  /** Hand-over times of the last second, per workspace and environment (oldest first). */
  const recent = new Map<string, number[]>();
  /** Per recipient: tokens of the pair burst and when they were counted. */
  const pairs = new Map<string, { tokens: number; at: number }>();

  function overThroughput(key: string, mps: number, now: number): boolean {
    let times = recent.get(key);
    if (!times) recent.set(key, (times = []));
    let drop = 0;
    while (drop < times.length && times[drop]! <= now - 1000) drop++;
    if (drop > 0) times.splice(0, drop);
    return times.length >= mps;
  }

  function overPairRate(key: string, now: number): boolean {
    const p = pairs.get(key);
    if (!p) return false;
    const tokens = Math.min(PAIR_BURST, p.tokens + (now - p.at) / PAIR_REFILL_MS);
    return tokens < 1;
  }

  function count(key: string, pairKey: string, now: number) {
    const times = recent.get(key)!;
    times.push(now);
    const p = pairs.get(pairKey);
    const tokens = p ? Math.min(PAIR_BURST, p.tokens + (now - p.at) / PAIR_REFILL_MS) : PAIR_BURST;
    pairs.set(pairKey, { tokens: tokens - 1, at: now });
    // A hand-over whose transaction rolls back never happened: the provider did not see it.
    undo?.add(() => {
      const i = times.lastIndexOf(now);
      if (i >= 0) times.splice(i, 1);
      if (p) pairs.set(pairKey, p);
      else pairs.delete(pairKey);
    });
    if (pairs.size > 50_000) {
      // Forget people whose burst has refilled: they are as good as new.
      for (const [k, v] of pairs) {
        if (now - v.at > PAIR_BURST * PAIR_REFILL_MS) pairs.delete(k);
      }
    }
  }

  /** A factor in [0.75, 1.25] from (seed, message id, salt). */
  const factor = (seed: number, id: string, salt: string) => {
    const h = createHash('sha256').update(`${seed}:${id}:${salt}`).digest();
    return 0.75 + (h.readUInt16BE(0) / 65535) * 0.5;
  };
  return {
    kind: 'local',
    newMessageId: () => `wamid.${randomBase62(random, 32)}`,
    handOver(m: ChannelMessage, attempt: number, at?: number): DeliveryOutcome {
      if (m.phone === MAGIC_NUMBERS.alwaysFails) {
        return { ok: false, retryable: false, code: '131026', message: 'Message undeliverable' };
      }
      if (m.phone === MAGIC_NUMBERS.failsOnceThenSucceeds && attempt === 1) {
        return {
          ok: false,
          retryable: true,
          code: '131000',
          message: 'Something went wrong; the send is retried',
        };
      }
      const s = settings.get(m.workspaceId);
      const now = at ?? clock.now();
      const key = `${m.workspaceId}:${m.environment}`;
      const pairKey = `${key}:${m.phone}`;
      if (overThroughput(key, s.throughputMps, now)) {
        return {
          ok: false,
          retryable: true,
          code: '130429',
          message: `Rate limit hit: more than ${s.throughputMps} messages in a second`,
        };
      }
      if (overPairRate(pairKey, now)) {
        return {
          ok: false,
          retryable: true,
          code: '131056',
          message: 'Pair rate limit hit: too many messages to this person in a short time',
        };
      }
      count(key, pairKey, now);
      const delivered = Math.round(s.deliveryLatencyMs * factor(s.seed, m.id, 'delivered'));
      const read = delivered + Math.round(s.readLatencyMs * factor(s.seed, m.id, 'read'));
      return {
        ok: true,
        followUps:
          m.phone === MAGIC_NUMBERS.deliveredNeverRead
            ? [{ status: 'delivered', delayMs: delivered }]
            : [
                { status: 'delivered', delayMs: delivered },
                { status: 'read', delayMs: read },
              ],
      };
    },
  };
}
