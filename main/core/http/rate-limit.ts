import { ApiError } from '../../../shared/errors.ts';
import type { Clock } from '../runtime.ts';

export interface RateLimitConfig {
  /** Sustained requests per second per API key. */
  perSecond: number;
  /** Requests a key may make in a burst. */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitConfig = { perSecond: 100, burst: 200 };

/** A token bucket per API key, in memory. */
export function createRateLimiter(config: RateLimitConfig, clock: Clock) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (keyId: string): void => {
    const now = clock.now();
    const b = buckets.get(keyId) ?? { tokens: config.burst, at: now };
    b.tokens = Math.min(config.burst, b.tokens + ((now - b.at) / 1000) * config.perSecond);
    b.at = now;
    if (b.tokens < 1) {
      buckets.set(keyId, b);
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / config.perSecond));
      throw new ApiError('rate_limited', `Too many requests; retry in ${retryAfter} s.`, {
        headers: { 'retry-after': String(retryAfter) },
      });
    }
    b.tokens -= 1;
    buckets.set(keyId, b);
  };
}
