import { lookup } from 'node:dns/promises';
import net from 'node:net';

/** Loopback, private, link-local, CGNAT, unique-local and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const v = net.isIP(address);
  if (v === 4) {
    const [a, b] = address.split('.').map(Number) as [number, number];
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (v === 6) {
    const x = address.toLowerCase();
    if (x === '::1' || x === '::') return true;
    if (x.startsWith('::ffff:')) return isPrivateAddress(x.slice(7));
    return /^f[cd]/.test(x) || /^fe[89ab]/.test(x);
  }
  return false;
}

/**
 * Whether a webhook URL points into a private network: its host is a private address, a local
 * name, or resolves to one (checked again at delivery time against DNS rebinding).
 */
export async function targetsPrivateNetwork(url: string, resolve = true): Promise<boolean> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  if (net.isIP(host)) return isPrivateAddress(host);
  if (!resolve) return false;
  try {
    const addresses = await lookup(host, { all: true });
    return addresses.some((a) => isPrivateAddress(a.address));
  } catch {
    return false; // unresolvable now: delivery will fail and retry
  }
}
