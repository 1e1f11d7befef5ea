import { ApiError } from '../../../../shared/errors.ts';
import type { Clock } from '../../runtime.ts';

/** Failures allowed before sign-in waits; then 1 s, 2 s, 4 s… up to 15 minutes. */
export const FREE_FAILURES = 4;
const MAX_WAIT_MS = 15 * 60 * 1000;
/** A key with no failure for this long is forgotten. */
const FORGET_MS = 24 * 3600 * 1000;
const MAX_KEYS = 50_000;

/**
 * Sign-in throttling (design.md §6) per account and per client address, in memory: from the 5th
 * failure on, a key must wait before its next try, twice as long after each further failure. A
 * success clears the account's count (not the address's: one right password must not reopen
 * guessing at others from the same place).
 */
export function createSignInThrottle(clock: Clock) {
  const keys = new Map<string, { failures: number; until: number; at: number }>();

  function prune(now: number): void {
    if (keys.size < MAX_KEYS) return;
    for (const [k, v] of keys) if (now - v.at > FORGET_MS) keys.delete(k);
    // Still full (a flood of addresses): drop the oldest half.
    if (keys.size >= MAX_KEYS) {
      let drop = keys.size / 2;
      for (const k of keys.keys()) {
        if (drop-- <= 0) break;
        keys.delete(k);
      }
    }
  }

  return {
    /** Throws 429 `rate_limited` with Retry-After while any of the keys must wait. */
    check(of: readonly string[]): void {
      const now = clock.now();
      const wait = Math.max(0, ...of.map((k) => (keys.get(k)?.until ?? 0) - now));
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new ApiError('rate_limited', `Too many failed sign-ins; try again in ${seconds} s.`, {
          headers: { 'retry-after': String(seconds) },
        });
      }
    },
    fail(of: readonly string[]): void {
      const now = clock.now();
      prune(now);
      for (const k of of) {
        const v = keys.get(k) ?? { failures: 0, until: 0, at: now };
        v.failures++;
        v.at = now;
        if (v.failures > FREE_FAILURES) {
          v.until = now + Math.min(MAX_WAIT_MS, 1000 * 2 ** (v.failures - FREE_FAILURES - 1));
        }
        keys.set(k, v);
      }
    },
    succeed(of: readonly string[]): void {
      for (const k of of) keys.delete(k);
    },
  };
}
