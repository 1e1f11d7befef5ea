import { randomBytes } from 'node:crypto';
import type { Environment } from '../../shared/schemas/common.ts';

/** Time is injected so tests can move it and runners stay deterministic. Milliseconds. */
export interface Clock {
  now(): number;
}

/** Randomness is injected too; the default is the OS's cryptographic generator. */
export interface Random {
  bytes(n: number): Buffer;
}

export const systemClock: Clock = { now: () => Date.now() };
export const cryptoRandom: Random = { bytes: (n) => randomBytes(n) };

/** Every record belongs to a workspace and an environment; every query is scoped by both. */
/**
 * The agent a caller acts as (`X-Parley-Agent`, resolved by the auth hook): `id` when the header
 * named an agent of the workspace, null otherwise; `named` is what the header said (null: none).
 */
export interface ActingAgent {
  id: string | null;
  named: string | null;
}
export const NO_AGENT: ActingAgent = { id: null, named: null };

export interface Scope {
  workspaceId: string;
  environment: Environment;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Time-sortable ids (ULID layout: 48-bit milliseconds + 80 random bits, Crockford base32),
 * monotonic within a millisecond, behind a short type prefix: `ct_01J…`.
 */
export function createIds(clock: Clock, random: Random) {
  let lastTime = -1;
  let lastRand: number[] = [];
  return (prefix: string): string => {
    let t = clock.now();
    let rand: number[];
    if (t <= lastTime) {
      // Same (or an earlier) millisecond: increment the last random part to stay monotonic;
      // if it overflows, borrow the next millisecond.
      t = lastTime;
      rand = lastRand.slice();
      let i = rand.length - 1;
      for (; i >= 0; i--) {
        if (rand[i]! < 31) {
          rand[i]!++;
          break;
        }
        rand[i] = 0;
      }
      if (i < 0) t++;
    } else {
      rand = Array.from(random.bytes(16), (b) => b & 31);
    }
    lastTime = t;
    lastRand = rand;
    let time = '';
    let v = t;
    for (let i = 0; i < 10; i++) {
      time = CROCKFORD[v % 32]! + time;
      v = Math.floor(v / 32);
    }
    return `${prefix}_${time}${rand.map((r) => CROCKFORD[r]).join('')}`;
  };
}
export type IdGenerator = ReturnType<typeof createIds>;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform base62 string by rejection sampling (62 × 4 = 248 ≤ 256). */
export function randomBase62(random: Random, length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of random.bytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}
