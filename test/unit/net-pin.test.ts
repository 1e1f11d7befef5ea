import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkPin,
  connectPinned,
  fetchFingerprint,
  fetchServerCertificate,
  normalizePin,
  pinnedAgent,
  pinnedTlsOptions,
  PinMismatchError,
} from '../../main/core/net/pin.ts';
import { cryptoRandom } from '../../main/core/runtime.ts';
import type { TeamCertificate } from '../../main/core/tls/certificate.ts';
import { CERT_FILE, ensureSelfSigned } from '../../main/core/tls/certificate.ts';
import { manualClock, tempDir } from '../helpers.ts';

/**
 * The pin check the desktop shell and Node clients share, against real TLS servers on
 * 127.0.0.1: the pinned certificate is accepted, any other refused before a byte is sent — a
 * stranger's, and the desk's own once renewed (its error says the certificate changed).
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DAY = 24 * 3600 * 1000;

async function certificate(clock = manualClock(), dataDir?: string) {
  const d = dataDir ?? tempDir('parley-pin-');
  if (!dataDir) cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  const made = await ensureSelfSigned({
    dataDir: d,
    clock,
    random: cryptoRandom,
    names: ['localhost', '127.0.0.1'],
    commonName: 'test desk',
  });
  return { ...made, dataDir: d, clock };
}

/** A real HTTPS server on 127.0.0.1 that counts the requests it was sent. */
async function server(cert: TeamCertificate) {
  let requests = 0;
  const s = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => {
    requests += 1;
    res.end('hello from the desk');
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  );
  const port = (s.address() as AddressInfo).port;
  return { origin: `https://127.0.0.1:${port}`, port, requests: () => requests };
}

function get(url: string, options: https.RequestOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
}

describe('the pin', () => {
  it('is the SHA-256 of the certificate DER: checkPin says ok or mismatch', async () => {
    const a = await certificate();
    const b = await certificate();
    const der = new X509Certificate(a.certificate.certPem).raw;
    expect(checkPin(der, a.certificate.fingerprint)).toBe('ok');
    expect(checkPin(der, b.certificate.fingerprint)).toBe('mismatch');
    // Written the way other tools write it (upper case, colons), it is the same pin.
    const hex = a.certificate.fingerprint.slice('sha256:'.length).toUpperCase();
    expect(checkPin(der, hex.match(/../g)!.join(':'))).toBe('ok');
    expect(normalizePin(`SHA256:${hex}`)).toBe(a.certificate.fingerprint);
    expect(() => normalizePin('sha1:abcd')).toThrow(/not a certificate fingerprint/);
  });

  it('accepts the pinned self-signed certificate (https.get, an agent, a raw TLS socket)', async () => {
    const a = await certificate();
    const s = await server(a.certificate);
    const pin = a.certificate.fingerprint;
    expect(await get(`${s.origin}/`, pinnedTlsOptions(pin))).toBe('hello from the desk');
    const agent = pinnedAgent(pin);
    cleanups.push(() => agent.destroy());
    expect(await get(`${s.origin}/`, { agent })).toBe('hello from the desk');
    const socket = await connectPinned({ host: '127.0.0.1', port: s.port }, pin);
    expect(socket.authorized).toBe(false); // no CA vouches for it: the pin does
    socket.destroy();
    expect(s.requests()).toBe(2);
  });

  it('refuses another certificate before sending anything, with a clear error', async () => {
    const desk = await certificate();
    const stranger = await certificate();
    const s = await server(stranger.certificate);
    const pin = desk.certificate.fingerprint;
    const refused = await get(`${s.origin}/`, pinnedTlsOptions(pin)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PinMismatchError);
    const e = refused as PinMismatchError;
    expect(e.code).toBe('ERR_PARLEY_PIN_MISMATCH');
    expect(e.expected).toBe(pin);
    expect(e.actual).toBe(stranger.certificate.fingerprint);
    expect(e.origin).toBe(s.origin);
    expect(e.message).toContain(`${s.origin} now shows ${stranger.certificate.fingerprint}`);
    expect(e.message).toContain('nothing was sent');
    await expect(connectPinned({ host: '127.0.0.1', port: s.port }, pin)).rejects.toBeInstanceOf(
      PinMismatchError,
    );
    // The request (and any cookie in it) never reached the other server.
    expect(s.requests()).toBe(0);
  });

  it('refuses the desk’s renewed certificate: the error says the certificate changed', async () => {
    const clock = manualClock();
    const first = await certificate(clock);
    const pin = first.certificate.fingerprint;
    // The admin's desk renews it (30 days before its end) and serves the new one.
    clock.set(first.certificate.notAfter - 10 * DAY);
    const renewed = await certificate(clock, first.dataDir);
    expect(renewed.renewed?.from).toBe(pin);
    const s = await server(renewed.certificate);
    const e = (await get(`${s.origin}/`, pinnedTlsOptions(pin)).catch((x: unknown) => x)) as Error;
    expect(e).toBeInstanceOf(PinMismatchError);
    expect(e.message).toMatch(/^The desk's certificate changed/);
    expect(e.message).toContain('paste the new invite link');
    expect(s.requests()).toBe(0);
    // What it shows now (for the explanation; the new invite is what the client trusts).
    expect(await fetchFingerprint(s.origin)).toBe(renewed.certificate.fingerprint);
    const shown = await fetchServerCertificate(s.origin);
    expect(shown.spki).toBe(first.certificate.spki); // same key, new certificate
    expect(s.requests()).toBe(0);
    expect(fs.existsSync(path.join(first.dataDir, CERT_FILE))).toBe(true);
  });
});
