import ipaddr from 'ipaddr.js';
import net from 'node:net';

/**
 * Whether an outbound connection may go to an address when the workspace forbids private
 * targets. Only globally routable unicast is allowed; `reason` reads as an appositive for error
 * messages ("127.0.0.1, a loopback address").
 */
export type AddressVerdict = { allowed: true; reason: null } | { allowed: false; reason: string };

const ALLOWED: AddressVerdict = { allowed: true, reason: null };
const refuse = (reason: string): AddressVerdict => ({ allowed: false, reason });

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  rfc6052: 'a local-use NAT64 address',
  teredo: 'a Teredo tunnel address',
  amt: 'an AMT relay address',
  as112: 'an AS112 sink address',
  as112v6: 'an AS112 sink address',
  segmentRouting: 'a segment-routing address',
};
const rangeName = (range: string) => RANGE_NAMES[range] ?? `a special-purpose address (${range})`;

// ipaddr.js files 198.18.0.0/15 under "reserved"; RFC 2544 names it, and so do our messages.
const BENCHMARKING_V4 = ipaddr.IPv4.parseCIDR('198.18.0.0/15');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');
const IPV4_TRANSLATED = ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
// Everything outside 2000::/3 is either special-purpose or not yet allocated by IANA.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

function ipv4Refusal(ip: ipaddr.IPv4): string | null {
  if (ip.match(BENCHMARKING_V4)) return RANGE_NAMES.benchmarking!;
  const range = ip.range();
  return range === 'unicast' ? null : rangeName(range);
}

const v4FromHextets = (hi: number, lo: number) =>
  new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/**
 * The IPv4 address an IPv6 one carries, where the network would deliver to it (mapped,
 * translated, NAT64, 6to4) or an old stack might (IPv4-compatible, deprecated by RFC 4291 and
 * therefore never allowed itself).
 */
function embeddedIPv4(ip: ipaddr.IPv6): { via: string; v4: ipaddr.IPv4; routable: boolean } | null {
  const p = ip.parts;
  if (ip.isIPv4MappedAddress())
    return { via: 'IPv4-mapped', v4: ip.toIPv4Address(), routable: true };
  if (ip.match(IPV4_TRANSLATED))
    return { via: 'IPv4-translated', v4: v4FromHextets(p[6]!, p[7]!), routable: true };
  if (ip.match(NAT64_WELL_KNOWN))
    return { via: 'NAT64 for', v4: v4FromHextets(p[6]!, p[7]!), routable: true };
  if (ip.match(SIX_TO_FOUR))
    return { via: '6to4 for', v4: v4FromHextets(p[1]!, p[2]!), routable: true };
  if (ip.match(IPV4_COMPATIBLE))
    return { via: 'IPv4-compatible', v4: v4FromHextets(p[6]!, p[7]!), routable: false };
  return null;
}

/**
 * ipaddr.js reads any IPv6 address with a dotted IPv4 tail as IPv4-mapped (`::127.0.0.1`
 * becomes `::ffff:127.0.0.1`), so the tail is rewritten as two hextets first.
 */
const hexTail = (address: string) =>
  address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_: string, a: string, b: string, c: string, d: string) =>
      [
        ((Number(a) << 8) | Number(b)).toString(16),
        ((Number(c) << 8) | Number(d)).toString(16),
      ].join(':'),
  );

/** Classifies one IP address (IPv4 or IPv6, as a resolver or a URL literal gives it). */
export function classifyAddress(address: string): AddressVerdict {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(net.isIPv6(address) ? hexTail(address) : address);
  } catch {
    return refuse(`${address}, which is not an IP address`);
  }
  if (ip.kind() === 'ipv4') {
    const why = ipv4Refusal(ip as ipaddr.IPv4);
    return why ? refuse(`${address}, ${why}`) : ALLOWED;
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  // :: and ::1 sit inside the IPv4-compatible block but mean themselves.
  if (range === 'unspecified' || range === 'loopback')
    return refuse(`${address}, ${rangeName(range)}`);
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const why = ipv4Refusal(embedded.v4);
    if (why) return refuse(`${address} (${embedded.via} ${embedded.v4.toString()}), ${why}`);
    return embedded.routable ? ALLOWED : refuse(`${address}, a deprecated IPv4-compatible address`);
  }
  if (range !== 'unicast') return refuse(`${address}, ${rangeName(range)}`);
  if (!v6.match(GLOBAL_UNICAST_V6)) return refuse(`${address}, an unallocated IPv6 address`);
  return ALLOWED;
}

/** Names that only ever mean this machine or the local network, whatever a resolver says. */
export function localNameRefusal(hostname: string): string | null {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return `${hostname}, a loopback name`;
  if (h.endsWith('.local')) return `${hostname}, a local-network (mDNS) name`;
  if (h === 'home.arpa' || h.endsWith('.home.arpa') || h.endsWith('.internal'))
    return `${hostname}, a private-use name`;
  return null;
}

/** A URL's hostname without the brackets of an IPv6 literal. */
export const bareHostname = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');
