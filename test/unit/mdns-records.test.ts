import { describe, expect, it } from 'vitest';
import {
  announcement,
  announcementRecords,
  multicastForbidden,
  startAnnouncer,
} from '../../main/core/mdns/announcer.ts';

/**
 * The desk's mDNS announcement (`_parley._tcp`, TXT fp and name), read from the records the
 * library would publish — no packet is ever sent from a test.
 */
const FP = `sha256:${'ab'.repeat(32)}`;

describe('the mDNS announcement', () => {
  it('announces _parley._tcp on the TLS port with the fingerprint and the workspace', async () => {
    const a = announcement({
      workspace: 'Acme Support',
      hostname: 'deskhost.lan',
      port: 4780,
      fingerprint: FP,
    });
    expect(a).toEqual({
      name: 'Acme Support on deskhost',
      type: 'parley',
      protocol: 'tcp',
      port: 4780,
      txt: { fp: FP, name: 'Acme Support' },
    });
    const records = await announcementRecords(a);
    const byType = (t: string) => records.filter((r) => r.type === t);
    expect(byType('PTR').map((r) => r.name)).toContain('_parley._tcp.local');
    expect(byType('PTR').map((r) => r.data)).toContain(
      'Acme Support on deskhost._parley._tcp.local',
    );
    const srv = byType('SRV')[0]!;
    expect(srv.name).toBe('Acme Support on deskhost._parley._tcp.local');
    expect(srv.data).toMatchObject({ port: 4780 });
    const txt = byType('TXT')[0]!;
    const strings = (txt.data as Buffer[]).map((b) => b.toString('utf8'));
    expect(strings).toEqual(expect.arrayContaining([`fp=${FP}`, 'name=Acme Support']));
  });

  it('keeps names within DNS limits (a label ≤ 63 bytes, never inside a character)', () => {
    const a = announcement({
      workspace: 'Ünïcödé '.repeat(20),
      hostname: 'host',
      port: 1,
      fingerprint: FP,
    });
    expect(Buffer.byteLength(a.name)).toBeLessThanOrEqual(63);
    expect(a.name).not.toContain('\uFFFD');
    expect(Buffer.byteLength(`name=${a.txt.name}`)).toBeLessThanOrEqual(255);
  });

  it('is never started under tests or CI', async () => {
    expect(multicastForbidden()).toBe(true);
    expect(multicastForbidden({ CI: 'true' })).toBe(true);
    expect(multicastForbidden({})).toBe(false);
    await expect(
      startAnnouncer(
        announcement({ workspace: 'x', hostname: 'h', port: 1, fingerprint: FP }),
        () => {},
      ),
    ).rejects.toThrow(/off under tests and CI/);
  });
});
