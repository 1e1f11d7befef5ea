import { ApiError } from '../../../shared/errors.ts';
import type { Clock } from '../runtime.ts';

export interface RateLimitConfig {
  /** Sustained requests per second per bucket. */
  perSecond: number;
  /** Requests a bucket allows in a burst. */
  burst: number;
}

/** Per API key. */
export const DEFAULT_RATE_LIMIT: RateLimitConfig = { perSecond: 100, burst: 200 };
/** A signed-in member (every session and tab of theirs), and the desktop window: a bucket each. */
export const DEFAULT_SESSION_RATE_LIMIT: RateLimitConfig = { perSecond: 100, burst: 200 };
/**
 * Requests without a valid credential (401s, /login attempts), per client address. Loopback
 * clients all share one address, so it is generous enough for a script that forgot its key
 * and a person signing in at the same time, yet it caps guessing and lookup floods.
 */
export const DEFAULT_ANONYMOUS_RATE_LIMIT: RateLimitConfig = { perSecond: 10, burst: 50 };

/**
 * `/channel/webhook`, per client address (it has no key: the signature is the credential).
 * Meta's deliveries come from many addresses and batch their items, so a single address above
 * this is a flood, not Meta.
 */
export const CHANNEL_WEBHOOK_RATE_LIMIT: RateLimitConfig = { perSecond: 50, burst: 500 };
/** Signed media links (`GET /media/:id/content`), per client address: a thread's thumbnails. */
export const MEDIA_LINK_RATE_LIMIT: RateLimitConfig = { perSecond: 200, burst: 1000 };

/**
 * A token bucket per key (an API key id, "session", a client address), in memory. `take(key)`
 * spends one token or throws 429 `rate_limited`.
 *
 * The 429 carries `Retry-After` and the IETF httpapi RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers-10, the structured-field form that replaced the older
 * `RateLimit-Limit/-Remaining/-Reset` trio): `RateLimit-Policy: "<policy>";q=<burst>;w=<secs>`
 * describes the quota and `RateLimit: "<policy>";r=<remaining>;t=<secs until a token>` the
 * current state. A token bucket has no fixed window; the policy advertises the burst as the quota
 * over the time the bucket takes to refill from empty, which is what a client pacing itself needs.
 * They are sent with the 429 only, so successful responses stay as small as before.
 */
export function createRateLimiter(config: RateLimitConfig, clock: Clock, policy = 'default') {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const window = Math.max(1, Math.ceil(config.burst / config.perSecond));
  return (key: string): void => {
    const now = clock.now();
    const b = buckets.get(key) ?? { tokens: config.burst, at: now };
    b.tokens = Math.min(config.burst, b.tokens + ((now - b.at) / 1000) * config.perSecond);
    b.at = now;
    buckets.set(key, b);
    if (b.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / config.perSecond));
      throw new ApiError('rate_limited', `Too many requests; retry in ${retryAfter} s.`, {
        headers: {
          'retry-after': String(retryAfter),
          'ratelimit-policy': `"${policy}";q=${config.burst};w=${window}`,
          ratelimit: `"${policy}";r=0;t=${retryAfter}`,
        },
      });
    }
    b.tokens -= 1;
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
