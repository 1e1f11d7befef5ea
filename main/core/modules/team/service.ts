/**
 * The team desk (design.md §6 "Serving a team"): the same core serving every agent's desktop
 * over the LAN, TLS only, beside the loopback listener the desktop and the owner's browser use.
 * Started by `parley serve --team` or Settings → Team → "Share this desk on my network"; stopped
 * the same ways. It owns the TLS listener, the certificate (made, renewed, or given), the names
 * the Host guard accepts on that listener, the invite links' origin and pin, and the optional
 * mDNS announcement. `team.json` in the data dir says what it does, for `parley team status`.
 */
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { TeamStatus } from '../../../../shared/schemas/team.ts';
import { privateFile } from '../../files.ts';
import type { TlsListener } from '../../http/tls-listener.ts';
import { listenTls } from '../../http/tls-listener.ts';
import type { Announcement, Announcer } from '../../mdns/announcer.ts';
import { announcement, startAnnouncer } from '../../mdns/announcer.ts';
import type { Clock, Random } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import type { TeamCertificate } from '../../tls/certificate.ts';
import {
  certificateNames,
  ensureSelfSigned,
  loadCertificate,
  readCertificate,
} from '../../tls/certificate.ts';
import type { Interfaces } from './addresses.ts';
import { acceptedHostNames, isLoopback, lanAddresses, teamUrls } from './addresses.ts';

export const DEFAULT_TEAM_PORT = 4780;
export const TEAM_STATE_FILE = 'team.json';

/** How to share the desk. */
export interface ShareOptions {
  enabled: boolean;
  announce?: boolean | undefined;
  /** The bind address (default 0.0.0.0: every interface). */
  host?: string | undefined;
  /** The TLS port (default 4780, or the one used last; 0 picks a free one). */
  port?: number | undefined;
  /** A certificate and key of your own (PEM files) instead of the self-signed one. */
  certFile?: string | undefined;
  keyFile?: string | undefined;
}

/** What the OS tells about the machine, injectable so tests name no real LAN address. */
export interface TeamEnvironment {
  interfaces?: () => Interfaces;
  hostname?: () => string;
  /** Starts the mDNS announcement (bonjour-service by default; refused under tests and CI). */
  announce?: (a: Announcement, onError: (e: unknown) => void) => Promise<Announcer>;
}

export interface TeamDeskDeps extends TeamEnvironment {
  dataDir: string;
  clock: Clock;
  random: Random;
  log: (message: string, error?: unknown) => void;
  /** The workspace the announcement names: the desk's first. */
  workspaceName: () => string;
  /** The HTTP app's request handler (Fastify's `routing`), once the app is ready. */
  handler: () => Promise<(req: IncomingMessage, res: ServerResponse) => void>;
}

/** What `parley team status` reads: written on every change, by the process that serves. */
export interface TeamState {
  sharing: boolean;
  pid: number;
  host: string | null;
  port: number | null;
  addresses: string[];
  fingerprint: string | null;
  announce: boolean;
  updatedAt: string;
}

export interface ShareResult {
  status: TeamStatus;
  /** This start renewed the certificate: its fingerprint changed (joined desktops must re-pin). */
  renewed: { from: string; to: string } | null;
  /** This start made the desk's first certificate. */
  created: boolean;
}

interface Serving {
  listener: TlsListener;
  certificate: TeamCertificate;
  renewedFrom: string | null;
  host: string;
  addresses: string[];
  names: ReadonlySet<string>;
  announcer: Announcer | null;
  /** What --tls-cert / --tls-key gave, kept for a change of port. */
  files: { certFile: string; keyFile: string } | null;
}

export function teamDesk(d: TeamDeskDeps) {
  const interfaces = d.interfaces ?? (() => os.networkInterfaces());
  const hostname = d.hostname ?? (() => os.hostname());
  const announce = d.announce ?? startAnnouncer;
  let serving: Serving | null = null;
  let lastPort = readState(d.dataDir)?.port ?? DEFAULT_TEAM_PORT;
  /** One change at a time: a second share() waits for the first. */
  let queue: Promise<unknown> = Promise.resolve();

  const status = (): TeamStatus => {
    const cert = serving?.certificate ?? readCertificate(d.dataDir);
    return {
      sharing: serving !== null,
      addresses: serving?.addresses ?? [],
      fingerprint: cert?.fingerprint ?? null,
      spki: cert?.spki ?? null,
      certificate: cert
        ? {
            notBefore: iso(cert.notBefore),
            notAfter: iso(cert.notAfter),
            names: cert.names,
            selfSigned: serving ? serving.certificate.selfSigned : true,
            renewedFrom: serving?.renewedFrom ?? null,
          }
        : null,
      announce: serving?.announcer != null,
      port: serving?.listener.port ?? null,
    };
  };

  const writeState = () => {
    const s = status();
    const state: TeamState = {
      sharing: s.sharing,
      pid: process.pid,
      host: serving?.host ?? null,
      port: s.port ?? lastPort,
      addresses: s.addresses,
      fingerprint: s.fingerprint,
      announce: s.announce,
      updatedAt: iso(d.clock.now()),
    };
    try {
      privateFile.write(path.join(d.dataDir, TEAM_STATE_FILE), `${JSON.stringify(state)}\n`);
    } catch (e) {
      d.log(`cannot note the team desk's state in ${d.dataDir}`, e);
    }
  };

  const startAnnouncing = async (s: Serving): Promise<Announcer | null> => {
    try {
      return await announce(
        announcement({
          workspace: d.workspaceName(),
          hostname: hostname(),
          port: s.listener.port,
          fingerprint: s.certificate.fingerprint,
        }),
        (e) => d.log('the mDNS announcement failed', e),
      );
    } catch (e) {
      d.log(`the desk is not announced on the LAN: ${(e as Error).message}`);
      return null;
    }
  };

  async function start(opts: ShareOptions): Promise<ShareResult> {
    const host = opts.host ?? '0.0.0.0';
    const port = opts.port ?? lastPort;
    const files =
      opts.certFile && opts.keyFile
        ? { certFile: opts.certFile, keyFile: opts.keyFile }
        : (serving?.files ?? null);
    let renewed: ShareResult['renewed'] = null;
    let created = false;
    let certificate: TeamCertificate;
    if (files) {
      certificate = loadCertificate(files.certFile, files.keyFile);
      const left = certificate.notAfter - d.clock.now();
      if (left <= 0)
        d.log(`the certificate ${files.certFile} expired on ${iso(certificate.notAfter)}`);
      else if (left < 30 * 24 * 3600 * 1000)
        d.log(
          `the certificate ${files.certFile} expires on ${iso(certificate.notAfter)}: renew it`,
        );
    } else {
      const ensured = await ensureSelfSigned({
        dataDir: d.dataDir,
        clock: d.clock,
        random: d.random,
        names: certificateNames({
          hostname: hostname(),
          addresses: lanAddresses(interfaces()),
          port,
        }),
        commonName: `Parley desk on ${hostname().split('.')[0] || 'this machine'}`,
      });
      certificate = ensured.certificate;
      renewed = ensured.renewed;
      created = ensured.created;
    }
    const handler = await d.handler();
    let urls: string[] = [];
    const listener = await listenTls({
      host,
      port,
      certPem: certificate.certPem,
      keyPem: certificate.keyPem,
      handler,
      httpsUrlFor: (asked) => {
        // Echo the name the client used when it is one of ours; otherwise the first address.
        const name = asked?.replace(/:\d+$/, '').toLowerCase() ?? '';
        return serving?.names.has(name) || (name !== '' && isLoopback(name))
          ? `https://${asked!.replace(/:\d+$/, '')}:${listener.port}/`
          : `${urls[0] ?? `https://127.0.0.1:${listener.port}`}/`;
      },
    });
    urls = teamUrls({
      bindHost: host,
      port: listener.port,
      hostname: hostname(),
      interfaces: interfaces(),
    });
    lastPort = opts.port === 0 ? lastPort : listener.port;
    const s: Serving = {
      listener,
      certificate,
      renewedFrom: renewed?.from ?? null,
      host,
      addresses: urls,
      names: acceptedHostNames({
        certificateNames: certificate.names,
        hostname: hostname(),
        interfaces: interfaces(),
        bindHost: host,
      }),
      announcer: null,
      files,
    };
    serving = s;
    if (opts.announce) s.announcer = await startAnnouncing(s);
    writeState();
    return { status: status(), renewed, created };
  }

  async function stopServing(): Promise<void> {
    const s = serving;
    if (!s) return;
    serving = null;
    await s.announcer?.stop().catch((e: unknown) => d.log('stopping the mDNS announcement', e));
    await s.listener.close();
  }

  const serialized = <T>(f: () => Promise<T>): Promise<T> => {
    const run = queue.then(f, f);
    queue = run.catch(() => {});
    return run;
  };

  return {
    status,

    /** Starts, changes or stops sharing. A change of port or address restarts the listener. */
    share(opts: ShareOptions): Promise<ShareResult> {
      return serialized(async () => {
        if (!opts.enabled) {
          await stopServing();
          writeState();
          return { status: status(), renewed: null, created: false };
        }
        const s = serving;
        const moved =
          s !== null &&
          ((opts.port !== undefined && opts.port !== 0 && opts.port !== s.listener.port) ||
            (opts.host !== undefined && opts.host !== s.host) ||
            (opts.certFile !== undefined && opts.certFile !== s.files?.certFile));
        if (s && !moved) {
          // Only the announcement changes.
          if (opts.announce === true && !s.announcer) s.announcer = await startAnnouncing(s);
          if (opts.announce === false && s.announcer) {
            await s.announcer.stop();
            s.announcer = null;
          }
          writeState();
          return { status: status(), renewed: null, created: false };
        }
        const before: ShareOptions | null = s
          ? {
              enabled: true,
              host: s.host,
              port: s.listener.port,
              announce: s.announcer !== null,
              certFile: s.files?.certFile,
              keyFile: s.files?.keyFile,
            }
          : null;
        await stopServing();
        try {
          return await start({
            ...opts,
            host: opts.host ?? before?.host,
            announce: opts.announce ?? before?.announce,
          });
        } catch (e) {
          // A move that fails (a port in use, an unreadable certificate) leaves the desk shared
          // as it was, not unshared.
          if (before) {
            await start(before).catch((again: unknown) =>
              d.log('the team desk could not be shared again as it was', again),
            );
          }
          throw e;
        }
      });
    },

    /** Stops sharing (the core's stop): the listener closes, every connection with it. */
    stop(): Promise<void> {
      return serialized(async () => {
        const was = serving !== null;
        await stopServing();
        if (was) writeState();
      });
    },

    /** For the Host guard: the TLS port and the names accepted on it, or null when not shared. */
    tls(): { port: number; names: ReadonlySet<string> } | null {
      return serving ? { port: serving.listener.port, names: serving.names } : null;
    },

    /** Where invite links point and what they pin, or null on a desk that is not shared. */
    inviteOrigin(): { baseUrl: string; fingerprint: string } | null {
      return serving && serving.addresses[0]
        ? { baseUrl: serving.addresses[0], fingerprint: serving.certificate.fingerprint }
        : null;
    },
  };
}
export type TeamDesk = ReturnType<typeof teamDesk>;

/** What the serving process last wrote in `team.json`, if anything. */
export function readState(dataDir: string): TeamState | null {
  try {
    const parsed = JSON.parse(
      fs.readFileSync(path.join(dataDir, TEAM_STATE_FILE), 'utf8'),
    ) as Partial<TeamState>;
    if (typeof parsed.sharing !== 'boolean' || typeof parsed.pid !== 'number') return null;
    return {
      sharing: parsed.sharing,
      pid: parsed.pid,
      host: parsed.host ?? null,
      port: typeof parsed.port === 'number' ? parsed.port : null,
      addresses: Array.isArray(parsed.addresses) ? parsed.addresses.map(String) : [],
      fingerprint: parsed.fingerprint ?? null,
      announce: parsed.announce === true,
      updatedAt: String(parsed.updatedAt ?? ''),
    };
  } catch {
    return null;
  }
}

/** Whether the process that wrote the state still runs (a crashed serve left `sharing: true`). */
export function stateIsLive(state: TeamState): boolean {
  if (!state.sharing) return false;
  try {
    process.kill(state.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
