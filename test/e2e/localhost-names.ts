/**
 * Node resolves `*.localhost` names only through the system resolver, which on many machines
 * (this CI's included) does not know them; browsers and curl resolve every `*.localhost` to
 * loopback (RFC 6761), and Parley's UI lives on `p<PORT>.localhost` (README "Sessions and
 * sign-in"). Playwright's API requests run in Node: this makes them resolve those names as the
 * browser does, for the test process only.
 */
import dns from 'node:dns';

const LOCALHOST_NAME = /\.localhost\.?$/i;
const LOOPBACK = { address: '127.0.0.1', family: 4 } as const;

type Callback = (err: Error | null, address: unknown, family?: number) => void;

const lookup = dns.lookup;
dns.lookup = function (hostname: string, options: unknown, callback?: unknown) {
  if (LOCALHOST_NAME.test(hostname)) {
    const cb = (typeof options === 'function' ? options : callback) as Callback;
    const all = typeof options === 'object' && options !== null && 'all' in options && options.all;
    process.nextTick(() =>
      all ? cb(null, [LOOPBACK]) : cb(null, LOOPBACK.address, LOOPBACK.family),
    );
    return;
  }
  return (lookup as (...args: unknown[]) => void).call(dns, hostname, options, callback);
} as typeof dns.lookup;

const lookupAsync = dns.promises.lookup;
dns.promises.lookup = async function (hostname: string, options?: unknown) {
  if (LOCALHOST_NAME.test(hostname)) {
    const all = typeof options === 'object' && options !== null && 'all' in options && options.all;
    return all ? [LOOPBACK] : LOOPBACK;
  }
  return (lookupAsync as (...args: unknown[]) => Promise<unknown>).call(
    dns.promises,
    hostname,
    options,
  );
} as typeof dns.promises.lookup;
