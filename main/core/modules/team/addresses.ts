/**
 * Where a team desk is reached: the machine's LAN addresses and names, as URLs and as the Host
 * names the guard accepts. Pure functions of what the OS reports (tests pass their own).
 */
import type os from 'node:os';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export type Interfaces = NodeJS.Dict<os.NetworkInterfaceInfo[]>;

const WILDCARDS = new Set(['0.0.0.0', '::', '']);
export const isWildcard = (host: string): boolean => WILDCARDS.has(host);

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  return net.isIP(h) !== 0 && ipaddr.process(h).range() === 'loopback';
}

/**
 * The machine's LAN addresses: not internal, IPv4 first; IPv6 link-local ones (fe80::/10) are
 * left out, since a URL or a certificate cannot name their interface.
 */
export function lanAddresses(interfaces: Interfaces): string[] {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const list of Object.values(interfaces)) {
    for (const i of list ?? []) {
      if (i.internal) continue;
      const ip = ipaddr.parse(i.address);
      if (ip.kind() === 'ipv4') v4.push(ip.toString());
      else if (ip.range() !== 'linkLocal') v6.push(ip.toString());
    }
  }
  return [...new Set([...v4, ...v6])];
}

/** `desk` for `desk.lan`: the label mDNS answers for as `desk.local`. */
export const shortHostname = (hostname: string): string =>
  hostname.trim().toLowerCase().replace(/\.$/, '').split('.')[0] ?? '';

/** A host as a URL names it: IPv6 in brackets. */
export const urlHost = (host: string): string => (net.isIP(host) === 6 ? `[${host}]` : host);

/**
 * The https:// URLs of a desk listening on `bindHost`: on a wildcard, every LAN address then
 * `HOST.local`; on one address, that address.
 */
export function teamUrls(opts: {
  bindHost: string;
  port: number;
  hostname: string;
  interfaces: Interfaces;
}): string[] {
  const hosts: string[] = [];
  if (isWildcard(opts.bindHost)) {
    hosts.push(...lanAddresses(opts.interfaces));
    const short = shortHostname(opts.hostname);
    if (short && net.isIP(short) === 0) hosts.push(`${short}.local`);
    if (hosts.length === 0) hosts.push('127.0.0.1');
  } else {
    hosts.push(net.isIP(opts.bindHost) ? ipaddr.parse(opts.bindHost).toString() : opts.bindHost);
  }
  return hosts.map((h) => `https://${urlHost(h)}:${opts.port}`);
}

/**
 * The Host names the guard accepts on the TLS listener, as `splitHost` (guards.ts) gives them:
 * lower case, IPv6 in brackets.
 */
export function acceptedHostNames(opts: {
  certificateNames: readonly string[];
  hostname: string;
  interfaces: Interfaces;
  bindHost: string;
}): Set<string> {
  const names = new Set<string>();
  const add = (n: string) => {
    const h = n.trim().toLowerCase();
    if (h) names.add(net.isIP(h) === 6 ? `[${ipaddr.parse(h).toString()}]` : h);
  };
  opts.certificateNames.forEach(add);
  lanAddresses(opts.interfaces).forEach(add);
  const host = opts.hostname.trim().toLowerCase().replace(/\.$/, '');
  if (host) add(host);
  const short = shortHostname(opts.hostname);
  if (short && net.isIP(short) === 0) add(`${short}.local`);
  if (!isWildcard(opts.bindHost)) add(opts.bindHost);
  return names;
}
