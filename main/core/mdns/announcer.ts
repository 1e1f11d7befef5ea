/**
 * The team desk's announcement on the LAN (design.md §6): mDNS / DNS-SD, service type
 * `_parley._tcp`, with TXT records `fp` (the certificate's fingerprint, so a desk found on the
 * LAN is pinned like one joined by link) and `name` (the workspace). Only when asked
 * (`--announce`, or the app's toggle); never under tests or CI, where `startAnnouncer` refuses
 * to send a packet — their tests check the records through `announcementRecords`.
 */
import type { ServiceConfig } from 'bonjour-service';

/** One DNS record of the announcement (bonjour-service's `ServiceRecord`). */
export interface ServiceRecord {
  name: string;
  type: 'PTR' | 'SRV' | 'TXT' | 'A' | 'AAAA';
  ttl: number;
  data: unknown;
}

export const SERVICE_TYPE = 'parley';

/** What the desk announces. */
export interface Announcement {
  /** The service instance name, unique enough on a LAN: the workspace on this machine. */
  name: string;
  type: typeof SERVICE_TYPE;
  protocol: 'tcp';
  port: number;
  txt: { fp: string; name: string };
}

/** Cuts a string to at most `bytes` UTF-8 bytes, never inside a character. */
function clip(s: string, bytes: number): string {
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(out + ch) > bytes) break;
    out += ch;
  }
  return out;
}

/** The announcement of a desk: pure, the same every time for the same inputs. */
export function announcement(opts: {
  workspace: string;
  hostname: string;
  port: number;
  fingerprint: string;
}): Announcement {
  const host = opts.hostname.split('.')[0] || 'this machine';
  // DNS labels are at most 63 bytes; a TXT string at most 255 (key, `=` and value).
  return {
    name: clip(`${opts.workspace} on ${host}`, 63),
    type: SERVICE_TYPE,
    protocol: 'tcp',
    port: opts.port,
    txt: { fp: opts.fingerprint, name: clip(opts.workspace, 200) },
  };
}

const config = (a: Announcement): ServiceConfig => ({
  name: a.name,
  type: a.type,
  protocol: a.protocol,
  port: a.port,
  txt: a.txt,
});

/**
 * The DNS records the announcer would publish (PTR, SRV, TXT, A/AAAA), built by the library that
 * publishes them — without a socket, so tests can read them.
 */
export async function announcementRecords(a: Announcement): Promise<ServiceRecord[]> {
  const { Service } = await import('bonjour-service');
  return new Service(
    config(a),
    () => {},
    () => {},
  ).records();
}

export interface Announcer {
  stop(): Promise<void>;
}

/** True where no multicast may be sent: under a test runner or CI. */
export const multicastForbidden = (env: NodeJS.ProcessEnv = process.env): boolean =>
  Boolean(env.VITEST || env.CI || env.PARLEY_NO_MDNS);

/** Starts announcing on the LAN; `stop()` says goodbye (TTL 0) and closes the socket. */
export async function startAnnouncer(
  a: Announcement,
  onError: (e: unknown) => void,
): Promise<Announcer> {
  if (multicastForbidden()) {
    throw new Error(
      'the mDNS announcement is off under tests and CI (VITEST, CI or PARLEY_NO_MDNS)',
    );
  }
  const { Bonjour } = await import('bonjour-service');
  const bonjour = new Bonjour({}, onError);
  bonjour.publish(config(a));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        bonjour.unpublishAll(() => bonjour.destroy(() => resolve()));
      }),
  };
}
