import { describe, expect, it } from 'vitest';
import { classifyAddress, localNameRefusal } from '../../main/core/net/address.ts';

describe('classifyAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700::1',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8', // IPv4-mapped public
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '2002:808:808::1', // 6to4 of 8.8.8.8
  ])('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true, reason: null });
  });

  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['10.255.255.255', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.254', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.127.255.254', 'a carrier-grade NAT address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['255.255.255.255', 'the broadcast address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['198.19.255.254', 'a benchmarking address'],
    ['192.0.2.1', 'a reserved address'],
    ['240.0.0.1', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fc00::1', 'a unique-local address'],
    ['fd12:3456::1', 'a unique-local address'],
    ['fe80::1', 'a link-local address'],
    ['febf::1', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['ff05::2', 'a multicast address'],
    ['::ffff:127.0.0.1', '(IPv4-mapped 127.0.0.1), a loopback address'],
    ['::ffff:7f00:1', '(IPv4-mapped 127.0.0.1), a loopback address'],
    ['::ffff:10.0.0.1', '(IPv4-mapped 10.0.0.1), a private address'],
    ['::ffff:169.254.169.254', '(IPv4-mapped 169.254.169.254), a link-local address'],
    ['::ffff:0:7f00:1', '(IPv4-translated 127.0.0.1), a loopback address'],
    ['::127.0.0.1', '(IPv4-compatible 127.0.0.1), a loopback address'],
    ['::8.8.8.8', 'a deprecated IPv4-compatible address'],
    ['64:ff9b::7f00:1', '(NAT64 for 127.0.0.1), a loopback address'],
    ['64:ff9b::a00:1', '(NAT64 for 10.0.0.1), a private address'],
    ['64:ff9b:1::808:808', 'a local-use NAT64 address'],
    ['2002:7f00:1::', '(6to4 for 127.0.0.1), a loopback address'],
    ['2002:c0a8:101::', '(6to4 for 192.168.1.1), a private address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo tunnel address'],
    ['2001:db8::1', 'a reserved address'],
    ['100::1', 'a discard-only address'],
    ['4000::1', 'an unallocated IPv6 address'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s as %s', (address, why) => {
    const verdict = classifyAddress(address);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain(why);
    expect(verdict.reason!.startsWith(address)).toBe(true);
  });
});

describe('localNameRefusal', () => {
  it('refuses names that only mean this machine or the local network', () => {
    for (const name of [
      'localhost',
      'LOCALHOST.',
      'api.localhost',
      'printer.local',
      'nas.home.arpa',
      'db.internal',
    ])
      expect(localNameRefusal(name), name).not.toBeNull();
    for (const name of ['example.com', 'localhost.example.com', 'local.dev'])
      expect(localNameRefusal(name), name).toBeNull();
  });
});
