/**
 * Trust by a pinned fingerprint (design.md §6 "Serving a team"): a team desk's certificate is
 * self-signed, and an invite link carries its SHA-256 (`…/join#token=…&fp=sha256:…`). A client
 * that joined pins that fingerprint for the desk's origin and accepts exactly that certificate —
 * no certificate authority, no trust store change, no "accept the risk" — and refuses any other,
 * saying that the desk's certificate changed (renewed by its admin, or someone in between).
 *
 * Shared by the desktop shell (its certificate-verify hook calls `checkPin`) and Node clients
 * (`pinnedAgent`, `connectPinned`, `pinnedTlsOptions`). The check runs when the handshake ends,
 * before the client sends a byte of its request: a refused server never sees a cookie.
 */
import { createHash, X509Certificate } from 'node:crypto';
import https from 'node:https';
import net from 'node:net';
import type { ConnectionOptions, PeerCertificate, TLSSocket } from 'node:tls';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';

export type PinCheck = 'ok' | 'mismatch';

const PIN = /^sha256:([0-9a-f]{64})$/;

/** A pin as Parley writes it: `sha256:` and 64 lowercase hex digits (colons and case forgiven). */
export function normalizePin(pin: string): string {
  const hex = pin
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '')
    .replace(/:/g, '');
  const normal = `sha256:${hex}`;
  if (!PIN.test(normal)) {
    throw new TypeError(`"${pin}" is not a certificate fingerprint (sha256: and 64 hex digits)`);
  }
  return normal;
}

/** `sha256:<64 hex>` of a certificate's DER. */
export const fingerprintOfDer = (der: Uint8Array): string =>
  `sha256:${createHash('sha256').update(der).digest('hex')}`;

/** Whether a peer's certificate (DER) is the pinned one. */
export function checkPin(peerCertDer: Uint8Array, pin: string): PinCheck {
  return fingerprintOfDer(peerCertDer) === normalizePin(pin) ? 'ok' : 'mismatch';
}

/** The refusal of a certificate that is not the pinned one. */
export class PinMismatchError extends Error {
  readonly code = 'ERR_PARLEY_PIN_MISMATCH';
  constructor(
    readonly origin: string,
    readonly expected: string,
    readonly actual: string | null,
  ) {
    super(
      actual === null
        ? `The desk at ${origin} showed no certificate: it is not the desk you joined.`
        : `The desk's certificate changed: ${origin} now shows ${actual}, not the pinned ${expected}. ` +
            'If its admin renewed the certificate, paste the new invite link they give you; ' +
            'otherwise someone may be between you and the desk, and nothing was sent.',
    );
    this.name = 'PinMismatchError';
  }
}

const originOf = (host: string | undefined, port: number | string | undefined): string => {
  const h = host ?? 'localhost';
  return `https://${h.includes(':') ? `[${h}]` : h}:${port ?? 443}`;
};

/** The check, on a socket whose handshake just ended: null when it is the pinned certificate. */
export function verifyPinnedSocket(
  socket: TLSSocket,
  pin: string,
  origin: string,
): PinMismatchError | null {
  const expected = normalizePin(pin);
  const cert: PeerCertificate | undefined = socket.getPeerCertificate();
  if (!cert?.raw) return new PinMismatchError(origin, expected, null);
  const actual = fingerprintOfDer(cert.raw);
  return actual === expected ? null : new PinMismatchError(origin, expected, actual);
}

/**
 * The TLS options of a pinned connection. Chain verification is off (`rejectUnauthorized:
 * false`: a self-signed certificate has no chain) and the pin is the whole check:
 * `checkServerIdentity` checks it where Node calls it (a certificate that also passes chain
 * verification), and `pinnedAgent` / `connectPinned` check it on every handshake before any
 * data goes out. For `https.request` the options carry such an agent, so they are complete as
 * they are; raw TLS connections take `connectPinned`.
 */
export function pinnedTlsOptions(pin: string): ConnectionOptions & { agent: https.Agent } {
  const expected = normalizePin(pin);
  return {
    rejectUnauthorized: false,
    checkServerIdentity: (host, cert) => {
      if (!cert?.raw) return new PinMismatchError(originOf(host, undefined), expected, null);
      const actual = fingerprintOfDer(cert.raw);
      return actual === expected
        ? undefined
        : new PinMismatchError(originOf(host, undefined), expected, actual);
    },
    agent: pinnedAgent(expected),
  };
}

/** A TLS connection that resolves only once the peer showed the pinned certificate. */
export function connectPinned(options: ConnectionOptions, pin: string): Promise<TLSSocket> {
  const expected = normalizePin(pin);
  const origin = originOf(options.host, options.port);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ ...options, rejectUnauthorized: false });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const refused = verifyPinnedSocket(socket, expected, origin);
      if (refused) {
        // Synchronously, inside the handshake's callback: anything written meanwhile is dropped.
        socket.destroy();
        reject(refused);
        return;
      }
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/**
 * An `https.Agent` that hands a connection to a request only after its peer showed the pinned
 * certificate (a refused one fails the request with `PinMismatchError`). It keeps no TLS
 * sessions: every connection shows its certificate again.
 */
export function pinnedAgent(pin: string, options: https.AgentOptions = {}): https.Agent {
  const expected = normalizePin(pin);
  class PinnedAgent extends https.Agent {
    override createConnection(
      opts: https.RequestOptions,
      callback?: (err: Error | null, stream: Duplex) => void,
    ): Duplex | null | undefined {
      const origin = originOf(opts.host ?? opts.hostname ?? undefined, opts.port ?? undefined);
      const socket = tls.connect({
        ...(opts as ConnectionOptions),
        rejectUnauthorized: false,
      });
      let done = false;
      const finish = (err: Error | null) => {
        if (done) return;
        done = true;
        socket.off('error', onError);
        callback?.(err, socket);
      };
      const onError = (e: Error) => finish(e);
      socket.once('error', onError);
      socket.once('secureConnect', () => {
        const refused = verifyPinnedSocket(socket, expected, origin);
        if (refused) socket.destroy();
        finish(refused);
      });
      return undefined;
    }
  }
  return new PinnedAgent({ ...options, maxCachedSessions: 0 });
}

export interface ServerCertificate {
  fingerprint: string;
  /** Base64 SHA-256 of its public key (Chromium's `--ignore-certificate-errors-spki-list`). */
  spki: string;
  notAfter: string;
  /** Subject alternative names, as node:crypto writes them. */
  subjectAltName: string | null;
}

/**
 * What certificate a server shows now: a handshake and nothing else (no request is sent). For
 * showing "the desk now shows sha256:…" beside a refusal, never for deciding to trust it.
 */
export function fetchServerCertificate(
  origin: string,
  opts: { timeoutMs?: number } = {},
): Promise<ServerCertificate> {
  const url = new URL(origin);
  if (url.protocol !== 'https:') throw new TypeError(`${origin} is not an https:// origin`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 443);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      rejectUnauthorized: false,
      ...(net.isIP(host) ? {} : { servername: host }),
    });
    socket.setTimeout(opts.timeoutMs ?? 5_000, () =>
      socket.destroy(new Error(`${origin} did not answer the TLS handshake in time`)),
    );
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const raw = socket.getPeerCertificate()?.raw;
      socket.destroy();
      if (!raw) return reject(new Error(`${origin} showed no certificate`));
      const x = new X509Certificate(raw);
      resolve({
        fingerprint: fingerprintOfDer(x.raw),
        spki: createHash('sha256')
          .update(x.publicKey.export({ type: 'spki', format: 'der' }))
          .digest('base64'),
        notAfter: new Date(x.validTo).toISOString(),
        subjectAltName: x.subjectAltName ?? null,
      });
    });
  });
}

/** The fingerprint a server shows now (`sha256:…`). */
export async function fetchFingerprint(origin: string, opts: { timeoutMs?: number } = {}) {
  return (await fetchServerCertificate(origin, opts)).fingerprint;
}
