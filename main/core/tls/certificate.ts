/**
 * The team desk's TLS certificate (design.md §6 "Serving a team"): a self-signed ECDSA P-256
 * certificate made on first start, kept in the data dir (`team-cert.pem`, `team-key.pem`, 0600),
 * valid a year and renewed on start when it ends within 30 days. A renewal keeps the key: the
 * SPKI hash a browser was told to trust stays the same, only the certificate's own fingerprint
 * (what an invite link pins) changes. A new key is made only when the key file is missing.
 *
 * Certificates are made with @peculiar/x509 (loaded only when one is made) and read with
 * node:crypto's X509Certificate: no ASN.1 is written here by hand.
 */
import type { KeyObject } from 'node:crypto';
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  webcrypto,
  X509Certificate,
} from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { privateFile } from '../files.ts';
import type { Clock, Random } from '../runtime.ts';

export const CERT_FILE = 'team-cert.pem';
export const KEY_FILE = 'team-key.pem';
const DAY_MS = 24 * 3600 * 1000;
/** How long a certificate made here is valid. */
export const CERT_VALIDITY_MS = 365 * DAY_MS;
/** A certificate that ends sooner than this is renewed when the desk is shared. */
export const RENEW_BEFORE_MS = 30 * DAY_MS;
/** notBefore is set this far back, so a client whose clock is a little behind accepts it. */
const BACKDATE_MS = 3600 * 1000;

/** What a client needs to know of a certificate to trust it. */
export interface CertificateInfo {
  /** SHA-256 of the certificate's DER: `sha256:<64 hex>` (what an invite link pins). */
  fingerprint: string;
  /** Base64 SHA-256 of its SubjectPublicKeyInfo (Chromium's `--ignore-certificate-errors-spki-list`). */
  spki: string;
  notBefore: number;
  notAfter: number;
  /** Its subject alternative names: DNS names and IP addresses (IPv6 compressed, no brackets). */
  names: string[];
}

export interface TeamCertificate extends CertificateInfo {
  certPem: string;
  keyPem: string;
  /** Made by Parley (renewed by it), or given with --tls-cert / --tls-key. */
  selfSigned: boolean;
}

/** `sha256:<64 hex>` of a certificate's DER. */
export const fingerprintOf = (der: Buffer | Uint8Array): string =>
  `sha256:${createHash('sha256').update(der).digest('hex')}`;

/** Base64 SHA-256 of a SubjectPublicKeyInfo DER (HPKP / Chromium SPKI list format). */
export const spkiHashOf = (spkiDer: Buffer | Uint8Array): string =>
  createHash('sha256').update(spkiDer).digest('base64');

/** An IP address as a certificate or URL names it: compressed IPv6, plain IPv4. */
export function canonicalIp(ip: string): string {
  return ipaddr.parse(ip).toString();
}

/** Reads a PEM certificate: fingerprints, validity and names. */
export function describeCertificate(certPem: string | Buffer): CertificateInfo {
  const x = new X509Certificate(certPem);
  const spki = x.publicKey.export({ type: 'spki', format: 'der' });
  return {
    fingerprint: fingerprintOf(x.raw),
    spki: spkiHashOf(spki),
    notBefore: Date.parse(x.validFrom),
    notAfter: Date.parse(x.validTo),
    names: parseSubjectAltName(x.subjectAltName ?? ''),
  };
}

/** node:crypto's `subjectAltName` text (`DNS:a, IP Address:1.2.3.4`) → the names. */
function parseSubjectAltName(text: string): string[] {
  const names: string[] = [];
  for (const part of text.split(', ')) {
    const m = /^(DNS|IP Address):(.+)$/.exec(part.trim());
    if (!m) continue;
    if (m[1] === 'DNS') names.push(m[2]!.toLowerCase());
    else if (net.isIP(m[2]!)) names.push(canonicalIp(m[2]!));
  }
  return names;
}

/** The names a certificate of this desk should carry: DNS names and IP addresses, deduplicated. */
export function certificateNames(opts: {
  hostname: string;
  addresses: readonly string[];
  port: number;
}): string[] {
  const names = new Set<string>();
  const host = opts.hostname.trim().toLowerCase().replace(/\.$/, '');
  const dns = (n: string) => {
    if (
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(
        n,
      )
    )
      names.add(n);
  };
  if (host && !net.isIP(host)) {
    dns(host);
    // mDNS answers for the machine's first label: `desk.lan` is `desk.local` on the LAN.
    dns(`${host.split('.')[0]}.local`);
  }
  for (const a of opts.addresses) if (net.isIP(a)) names.add(canonicalIp(a));
  for (const n of ['localhost', '127.0.0.1', '::1']) names.add(n);
  // The UI's own loopback host name on this port (session.ts).
  if (opts.port > 0) dns(`p${opts.port}.localhost`);
  return [...names];
}

/** A new ECDSA P-256 key, PKCS#8 PEM. */
export function newKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** Makes a self-signed server certificate for `names` with the given key (PKCS#8 PEM). */
export async function makeSelfSigned(opts: {
  keyPem: string;
  names: readonly string[];
  notBefore: number;
  notAfter: number;
  serial: Buffer;
  commonName: string;
}): Promise<string> {
  // reflect-metadata first: @peculiar/x509 2.x resolves its parsers through tsyringe, which
  // needs the Reflect metadata API. Loaded here only: a desk that is never shared never loads it.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const crypto = webcrypto as unknown as Crypto;
  const priv: KeyObject = createPrivateKey(opts.keyPem);
  const pub = createPublicKey(priv);
  const keys = {
    privateKey: await webcrypto.subtle.importKey(
      'pkcs8',
      priv.export({ type: 'pkcs8', format: 'der' }),
      ALG,
      true,
      ['sign'],
    ),
    publicKey: await webcrypto.subtle.importKey(
      'spki',
      pub.export({ type: 'spki', format: 'der' }),
      ALG,
      true,
      ['verify'],
    ),
  };
  const san = opts.names.map((n) =>
    net.isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n },
  );
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: opts.serial.toString('hex'),
      name: [{ CN: [opts.commonName] }, { O: ['Parley'] }],
      notBefore: new Date(opts.notBefore),
      notAfter: new Date(opts.notAfter),
      keys: keys as CryptoKeyPair,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
        new x509.SubjectAlternativeNameExtension(san, false),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return cert.toString('pem');
}

/** A positive, non-zero 128-bit serial number (RFC 5280: at most 20 octets, positive). */
function serialOf(random: Random): Buffer {
  const b = random.bytes(16);
  b[0] = (b[0]! & 0x7f) | 0x40;
  return b;
}

/** Writes a file 0600 in one step: readers see the old file or the new one, never half of one. */
function replaceFile(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  privateFile.write(tmp, data);
  fs.renameSync(tmp, file);
}

export interface EnsuredCertificate {
  certificate: TeamCertificate;
  /** Set when this call made a certificate that replaced an older one. */
  renewed: { from: string; to: string } | null;
  /** Set when this call made the desk's first certificate. */
  created: boolean;
}

/**
 * The desk's own certificate from the data dir: made when missing, renewed when it ends within
 * 30 days (or is not readable, or its key is not the key file's), kept otherwise — a change of
 * names (a new LAN address) does not renew it, since clients pin it, not its names.
 */
export async function ensureSelfSigned(opts: {
  dataDir: string;
  clock: Clock;
  random: Random;
  names: readonly string[];
  commonName: string;
}): Promise<EnsuredCertificate> {
  const certFile = path.join(opts.dataDir, CERT_FILE);
  const keyFile = path.join(opts.dataDir, KEY_FILE);
  const now = opts.clock.now();
  let keyPem = readP256Key(keyFile);
  const existing = readPem(certFile);
  const old = existing?.info ?? null;
  const oldPem = existing?.pem ?? null;
  if (keyPem && old && oldPem && sameKey(oldPem, keyPem) && old.notAfter - now > RENEW_BEFORE_MS) {
    privateFile.tighten(certFile);
    privateFile.tighten(keyFile);
    return {
      certificate: { ...old, certPem: oldPem, keyPem, selfSigned: true },
      renewed: null,
      created: false,
    };
  }
  if (!keyPem) {
    keyPem = newKeyPem();
    replaceFile(keyFile, keyPem);
  }
  const certPem = await makeSelfSigned({
    keyPem,
    names: opts.names,
    notBefore: now - BACKDATE_MS,
    notAfter: now + CERT_VALIDITY_MS,
    serial: serialOf(opts.random),
    commonName: opts.commonName,
  });
  replaceFile(certFile, certPem);
  const info = describeCertificate(certPem);
  return {
    certificate: { ...info, certPem, keyPem, selfSigned: true },
    renewed: old ? { from: old.fingerprint, to: info.fingerprint } : null,
    created: !old,
  };
}

/** An ECDSA P-256 private key file's PEM, or null (missing, unreadable, another kind of key). */
function readP256Key(file: string): string | null {
  try {
    const pem = fs.readFileSync(file, 'utf8');
    const key = createPrivateKey(pem);
    const p256 =
      key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
    return p256 ? pem : null;
  } catch {
    return null;
  }
}

/** A certificate file and what it says, or null (missing, not a certificate). */
function readPem(file: string): { pem: string; info: CertificateInfo } | null {
  try {
    const pem = fs.readFileSync(file, 'utf8');
    return { pem, info: describeCertificate(pem) };
  } catch {
    return null;
  }
}

function sameKey(certPem: string, keyPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** A certificate and key given with --tls-cert / --tls-key: read, checked, never renewed. */
export function loadCertificate(certFile: string, keyFile: string): TeamCertificate {
  let certPem: string;
  let keyPem: string;
  try {
    certPem = fs.readFileSync(certFile, 'utf8');
  } catch (e) {
    throw new CertificateError(`cannot read the certificate ${certFile}: ${(e as Error).message}`);
  }
  try {
    keyPem = fs.readFileSync(keyFile, 'utf8');
  } catch (e) {
    throw new CertificateError(`cannot read the key ${keyFile}: ${(e as Error).message}`);
  }
  let info: CertificateInfo;
  try {
    info = describeCertificate(certPem);
  } catch {
    throw new CertificateError(`${certFile} is not a PEM certificate`);
  }
  if (!sameKey(certPem, keyPem)) {
    throw new CertificateError(`the key ${keyFile} does not belong to the certificate ${certFile}`);
  }
  return { ...info, certPem, keyPem, selfSigned: false };
}

/** The certificate on disk, if the desk has one (for `parley team status`). */
export function readCertificate(dataDir: string): CertificateInfo | null {
  try {
    return describeCertificate(fs.readFileSync(path.join(dataDir, CERT_FILE)));
  } catch {
    return null;
  }
}

export class CertificateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateError';
  }
}
