/**
 * Password hashes (design.md §6): scrypt from node:crypto, N=2^17, r=8, p=1, a 16-byte salt,
 * compared in constant time. Hashing runs on libuv's thread pool, so a sign-in never blocks the
 * event loop; the parameters travel with each hash, so raising them later keeps old ones valid.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptCost {
  /** log2 of N. */
  logN: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT_COST: ScryptCost = { logN: 17, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const N = 2 ** cost.logN;
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_LENGTH,
      // 128·N·r bytes, with room: N=2^17, r=8 needs 128 MiB, above Node's 32 MiB default.
      { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

/** `scrypt$logN$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string, cost: ScryptCost): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return [
    'scrypt',
    cost.logN,
    cost.r,
    cost.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** True when the password matches the stored hash; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 22) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await derive(password, salt, { logN, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of a password nobody has, verified against when an address has no member, so a
 * sign-in for an unknown address takes as long as one for a known one.
 */
export function decoyHash(cost: ScryptCost): Promise<string> {
  return hashPassword(randomBytes(24).toString('base64url'), cost);
}
