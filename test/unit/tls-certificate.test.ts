import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../main/core/runtime.ts';
import {
  CERT_FILE,
  CertificateError,
  certificateNames,
  describeCertificate,
  ensureSelfSigned,
  KEY_FILE,
  loadCertificate,
} from '../../main/core/tls/certificate.ts';
import { manualClock, tempDir } from '../helpers.ts';

/**
 * The team desk's own certificate (design.md §6): ECDSA P-256, self-signed, with the machine's
 * names, kept 0600 in the data dir, renewed within 30 days of its end with the same key.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const dir = () => {
  const d = tempDir('parley-cert-');
  dirs.push(d);
  return d;
};
const DAY = 24 * 3600 * 1000;
const NAMES = certificateNames({
  hostname: 'DeskHost.lan',
  addresses: ['192.0.2.10', '2001:0db8:0:0:0:0:0:5'],
  port: 4780,
});

const make = (dataDir: string, clock = manualClock()) =>
  ensureSelfSigned({
    dataDir,
    clock,
    random: cryptoRandom,
    names: NAMES,
    commonName: 'Parley desk on deskhost',
  });

/** openssl's own view: Chromium's documented recipe for the SPKI hash. */
function opensslSpki(certFile: string): string {
  const pub = execFileSync('openssl', ['x509', '-in', certFile, '-pubkey', '-noout']);
  const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: pub });
  return createHash('sha256').update(der).digest('base64');
}

describe('the team certificate', () => {
  it('names the machine, its .local name, its LAN addresses, loopback and the UI host', () => {
    expect(NAMES).toEqual([
      'deskhost.lan',
      'deskhost.local',
      '192.0.2.10',
      '2001:db8::5',
      'localhost',
      '127.0.0.1',
      '::1',
      'p4780.localhost',
    ]);
  });

  it('is made on first start: ECDSA P-256, self-signed, a year, those SANs, files 0600', async () => {
    const d = dir();
    const clock = manualClock();
    const made = await make(d, clock);
    expect(made.created).toBe(true);
    expect(made.renewed).toBeNull();
    const pem = fs.readFileSync(path.join(d, CERT_FILE), 'utf8');
    const x = new X509Certificate(pem);
    expect(x.publicKey.asymmetricKeyType).toBe('ec');
    expect(x.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.ca).toBe(false);
    expect(x.subject).toContain('CN=Parley desk on deskhost');
    expect(x.subjectAltName).toBe(
      'DNS:deskhost.lan, DNS:deskhost.local, IP Address:192.0.2.10, IP Address:2001:DB8:0:0:0:0:0:5, ' +
        'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:p4780.localhost',
    );
    expect(x.checkHost('deskhost.local')).toBe('deskhost.local');
    expect(x.checkIP('192.0.2.10')).toBe('192.0.2.10');
    const validFor = Date.parse(x.validTo) - clock.now();
    expect(validFor).toBeGreaterThan(364 * DAY);
    expect(validFor).toBeLessThanOrEqual(365 * DAY);
    expect(Date.parse(x.validFrom)).toBeLessThanOrEqual(clock.now());
    for (const f of [CERT_FILE, KEY_FILE]) {
      if (process.platform !== 'win32') {
        expect(fs.statSync(path.join(d, f)).mode & 0o777).toBe(0o600);
      }
    }
    // The fingerprint is the SHA-256 of the DER; the SPKI hash is what openssl's recipe gives.
    const info = made.certificate;
    expect(info.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(info.fingerprint).toBe(`sha256:${createHash('sha256').update(x.raw).digest('hex')}`);
    expect(info.spki).toBe(opensslSpki(path.join(d, CERT_FILE)));
    expect(info.names).toEqual(NAMES);
  });

  it('is kept as it is while it has more than 30 days to go', async () => {
    const d = dir();
    const clock = manualClock();
    const first = await make(d, clock);
    clock.advance(300 * DAY);
    const again = await make(d, clock);
    expect(again.created).toBe(false);
    expect(again.renewed).toBeNull();
    expect(again.certificate.fingerprint).toBe(first.certificate.fingerprint);
  });

  it('is renewed within 30 days of its end: same key (same SPKI), new fingerprint', async () => {
    const d = dir();
    const clock = manualClock();
    const first = await make(d, clock);
    const key = fs.readFileSync(path.join(d, KEY_FILE), 'utf8');
    clock.set(first.certificate.notAfter - 29 * DAY);
    const renewed = await make(d, clock);
    expect(renewed.renewed).toEqual({
      from: first.certificate.fingerprint,
      to: renewed.certificate.fingerprint,
    });
    expect(renewed.certificate.fingerprint).not.toBe(first.certificate.fingerprint);
    expect(renewed.certificate.spki).toBe(first.certificate.spki);
    expect(fs.readFileSync(path.join(d, KEY_FILE), 'utf8')).toBe(key);
    expect(renewed.certificate.notAfter).toBeGreaterThan(clock.now() + 364 * DAY);
    expect(describeCertificate(fs.readFileSync(path.join(d, CERT_FILE))).fingerprint).toBe(
      renewed.certificate.fingerprint,
    );
  });

  it('is made anew with a new key when the key file is gone', async () => {
    const d = dir();
    const first = await make(d);
    fs.rmSync(path.join(d, KEY_FILE));
    const next = await make(d);
    expect(next.renewed?.from).toBe(first.certificate.fingerprint);
    expect(next.certificate.spki).not.toBe(first.certificate.spki);
  });

  it('takes a certificate of your own, refusing a key that is not its key', async () => {
    const a = dir();
    const b = dir();
    const mine = await make(a);
    await make(b);
    const loaded = loadCertificate(path.join(a, CERT_FILE), path.join(a, KEY_FILE));
    expect(loaded.fingerprint).toBe(mine.certificate.fingerprint);
    expect(loaded.selfSigned).toBe(false);
    expect(() => loadCertificate(path.join(a, CERT_FILE), path.join(b, KEY_FILE))).toThrow(
      CertificateError,
    );
    expect(() => loadCertificate(path.join(a, 'nope.pem'), path.join(a, KEY_FILE))).toThrow(
      /cannot read the certificate/,
    );
  });
});
