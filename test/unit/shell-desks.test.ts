import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOfDer } from '../../main/core/net/pin.ts';
import { makeSelfSigned, newKeyPem } from '../../main/core/tls/certificate.ts';
import { certificateVerdict, deskStore, parseInvite } from '../../main/shell/desks.ts';
import { configFor } from '../../main/shell/policy.ts';
import { tempDir } from '../helpers.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const FP = `sha256:${'ab'.repeat(32)}`;

describe('joining a team desk (the desktop shell)', () => {
  it('reads an invite link: origin, token and the pinned fingerprint', () => {
    const invite = parseInvite(
      `https://shop-pc.local:4780/join#token=abc123&fp=${FP.toUpperCase()}`,
    );
    expect(invite).toEqual({
      origin: 'https://shop-pc.local:4780',
      token: 'abc123',
      fingerprint: FP,
      joinUrl: 'https://shop-pc.local:4780/join#token=abc123',
    });
  });

  it('refuses what is not a team invite, in words a person can act on', () => {
    expect(() => parseInvite('hello')).toThrow(/not a link/);
    expect(() => parseInvite('https://x.local:4780/inbox')).toThrow(/not a Parley invite/);
    expect(() => parseInvite('http://p4780.localhost:4780/join#token=abc')).toThrow(
      /not shared on the network/,
    );
    expect(() => parseInvite('https://x.local:4780/join#token=abc&fp=sha256:12')).toThrow(
      /cut short/,
    );
  });

  it('trusts exactly the pinned certificate of a joined desk and leaves other sites alone', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = deskStore(dir);
    const keyPem = newKeyPem();
    const certificate = (serial: number) =>
      makeSelfSigned({
        keyPem,
        names: ['shop-pc.local', '127.0.0.1'],
        notBefore: Date.now(),
        notAfter: Date.now() + 86_400_000,
        serial: Buffer.from([serial]),
        commonName: 'shop-pc.local',
      });
    const first = { cert: await certificate(1) };
    const renewed = { cert: await certificate(2) };
    const der = (pem: string) => new X509Certificate(pem).raw;
    const pin = fingerprintOfDer(der(first.cert));
    store.save(
      parseInvite(`https://shop-pc.local:4780/join#token=t&fp=${pin}`),
      'Shop',
      new Date(),
    );
    expect(fs.statSync(`${dir}/desks.json`).mode & 0o777).toBe(0o600);
    const desks = store.list();
    expect(certificateVerdict(desks, 'shop-pc.local', '4780', der(first.cert))).toBe('trust');
    expect(certificateVerdict(desks, 'shop-pc.local', '4780', der(renewed.cert))).toBe('refuse');
    expect(certificateVerdict(desks, 'example.com', '443', der(renewed.cert))).toBe('default');
    // Pasting the admin's new invite re-pins the desk.
    const repin = fingerprintOfDer(der(renewed.cert));
    store.save(
      parseInvite(`https://shop-pc.local:4780/join#token=u&fp=${repin}`),
      'Shop',
      new Date(),
    );
    expect(store.list()).toHaveLength(1);
    expect(certificateVerdict(store.list(), 'shop-pc.local', '4780', der(renewed.cert))).toBe(
      'trust',
    );
    store.remove('https://shop-pc.local:4780');
    expect(store.list()).toEqual([]);
  });

  it('hands the per-launch token to this computer’s desk only', () => {
    const base = 'http://127.0.0.1:4780';
    expect(configFor(`${base}/#/inbox`, base, 'tok')).toEqual({
      baseUrl: base,
      sessionToken: 'tok',
    });
    expect(configFor('https://shop-pc.local:4780/', base, 'tok')).toEqual({
      baseUrl: 'https://shop-pc.local:4780',
      sessionToken: '',
    });
    expect(configFor('', base, 'tok').sessionToken).toBe('');
  });
});
