import type { Database as Db } from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { buildApp } from './http/app.ts';
import type { RateLimitConfig } from './http/rate-limit.ts';
import {
  DEFAULT_ANONYMOUS_RATE_LIMIT,
  DEFAULT_RATE_LIMIT,
  DEFAULT_SESSION_RATE_LIMIT,
} from './http/rate-limit.ts';
import { loginUrl, removeLegacySecret } from './http/session.ts';
import type { ScryptCost } from './modules/members/passwords.ts';
import { listen } from './http/server.ts';
import type { MigrateResult } from './db/migrate.ts';
import { migrate } from './db/migrate.ts';
import type { Checkpointer } from './db/checkpointer.ts';
import { startCheckpointer } from './db/checkpointer.ts';
import { databasePath, openDatabase } from './db/open.ts';
import { sealPlaintextSecrets } from './db/seal-secrets.ts';
import { privateDir, tightenDataDir } from './files.ts';
import type { TeamDesk, TeamEnvironment } from './modules/team/service.ts';
import { teamDesk } from './modules/team/service.ts';
import type { KeyProvider } from './secrets.ts';
import { createSealer, DataKeyUnavailable, fileKeyProvider } from './secrets.ts';
import type { Channel } from './channel/types.ts';
import type { Retention } from './jobs/retention.ts';
import type { Resolver } from './net/outbound.ts';
import type { Clock, Random } from './runtime.ts';
import { cryptoRandom, randomBase62, systemClock } from './runtime.ts';
import type { Services } from './services.ts';
import { createServices } from './services.ts';

export const VERSION: string = pkg.version;
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface StoreOptions {
  dataDir: string;
  clock?: Clock;
  random?: Random;
  /** Electron-ABI build of better-sqlite3's addon, when running inside Electron unpackaged. */
  nativeBinding?: string;
  /** The chat channel; the simulated one by default. */
  channel?: Channel;
  log?: (message: string, error?: unknown) => void;
  /** How long events, deliveries and dead jobs are kept (README "Retention"). */
  retention?: Retention;
  /** How outbound HTTP (webhooks) resolves host names; the system resolver by default. */
  resolveHost?: Resolver;
  /** SMTP against a local test peer (self-signed certificates, short timeouts). */
  smtpOptions?: { allowInvalidCerts?: boolean; timeoutMs?: number };
  /** Password hashing cost (design.md §6's by default; tests lower it). */
  scrypt?: ScryptCost;
  /**
   * Where the data key that seals provider secrets lives: the desktop passes its OS keychain;
   * `data-dir/secret.key` (0600) otherwise.
   */
  keyProvider?: KeyProvider;
}

export interface Store {
  db: Db;
  services: Services;
  migrations: MigrateResult;
  dataDir: string;
  close(): void;
}

/**
 * Opens the data dir's database, migrates it (with a backup copy first when it holds data) and
 * wires the services. The CLI uses this directly; createCore adds the HTTP app on top.
 */
export function openStore(opts: StoreOptions): Store {
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? cryptoRandom;
  const log = opts.log ?? ((m: string, e?: unknown) => console.error(`parley: ${m}`, e ?? ''));
  privateDir.ensure(opts.dataDir);
  const loosened = tightenDataDir(opts.dataDir);
  if (loosened > 0) {
    log(
      `the data dir ${opts.dataDir} was readable by others: ${loosened} entries set to owner-only (0700 folders, 0600 files)`,
    );
  }
  const db = openDatabase(
    databasePath(opts.dataDir),
    opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {},
  );
  try {
    const sealer = createSealer(opts.keyProvider ?? fileKeyProvider(opts.dataDir));
    // Before the migrations (their backup copy then holds no plaintext) and after them.
    const seal = () => {
      try {
        const sealed = sealPlaintextSecrets(db, sealer);
        if (sealed > 0) {
          log(
            `sealed ${sealed} secrets stored in plain text by an older Parley (key: ${sealer.where})`,
          );
        }
      } catch (e) {
        // The desktop's keychain-wrapped key, opened by the CLI: the desktop app seals them.
        if (!(e instanceof DataKeyUnavailable)) throw e;
        log(`secrets stored in plain text left as they are: ${e.message}`);
      }
    };
    seal();
    const migrations = migrate(db, {
      backupDir: path.join(opts.dataDir, 'backups'),
      now: () => clock.now(),
    });
    if (migrations.applied.length > 0) seal();
    const services = createServices(db, clock, random, {
      dataDir: opts.dataDir,
      sealer,
      ...(opts.channel ? { channel: opts.channel } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.retention ? { retention: opts.retention } : {}),
      ...(opts.resolveHost ? { resolveHost: opts.resolveHost } : {}),
      ...(opts.smtpOptions ? { smtpOptions: opts.smtpOptions } : {}),
      ...(opts.scrypt ? { scrypt: opts.scrypt } : {}),
    });
    services.workspaces.ensureDefault();
    return {
      db,
      services,
      migrations,
      dataDir: opts.dataDir,
      close: () => {
        if (db.open) db.close();
      },
    };
  } catch (e) {
    db.close();
    throw e;
  }
}

export interface CoreOptions extends StoreOptions {
  /** Per-launch secret of the desktop UI (X-Parley-Session); generated when absent, null disables it. */
  sessionToken?: string | null;
  /**
   * The one-click browser sign-in link (`GET /login?token=…`, single use, 10 minutes); false
   * turns it off (the desktop window signs in through its preload). Members sign in with their
   * password either way.
   */
  browserLogin?: boolean;
  rendererDir?: string | null;
  /** Per API key. */
  rateLimit?: RateLimitConfig;
  /** The UI session, one bucket. */
  sessionRateLimit?: RateLimitConfig;
  /** Requests without a valid credential, per client address. */
  anonymousRateLimit?: RateLimitConfig;
  bodyLimit?: number;
  /** Host names accepted besides loopback ones (e.g. the bind address). */
  extraHosts?: string[];
  /** SSE heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** What the team desk asks the OS (interfaces, host name) and how it announces (tests fake them). */
  team?: TeamEnvironment;
}

export interface Core extends Store {
  app: FastifyInstance;
  sessionToken: string | null;
  /** Changes on every start of the core; `GET /health` reports it. */
  bootId: string;
  /** A fresh one-click sign-in link for a base URL (null when the link is off). */
  loginUrl(baseUrl: string): string | null;
  /** Listens on host:port (0 = a free port) and starts the job runners. */
  start(opts?: { host?: string; port?: number }): Promise<{ url: string; port: number }>;
  /** Starts the job runners without listening (tests drive HTTP through inject()). */
  startRunners(): void;
  /** Stops accepting, lets in-flight requests and jobs finish, then closes the database. */
  stop(): Promise<void>;
  /** The team desk: sharing this desk on the network over TLS (design.md §6). */
  team: TeamDesk;
}

export async function createCore(opts: CoreOptions): Promise<Core> {
  const store = openStore(opts);
  const random = opts.random ?? cryptoRandom;
  const sessionToken =
    opts.sessionToken === undefined ? randomBase62(random, 43) : opts.sessionToken;
  const bootId = randomBase62(random, 16);
  let port: number | null = null;
  let app: FastifyInstance;
  const browserLogin = opts.browserLogin !== false;
  const log = opts.log ?? ((m: string, e?: unknown) => console.error(`parley: ${m}`, e ?? ''));
  const team = teamDesk({
    ...opts.team,
    dataDir: opts.dataDir,
    clock: opts.clock ?? systemClock,
    random,
    log,
    workspaceName: () => store.services.workspaces.resolve().name,
    // The TLS listener's requests go to the same app as the loopback listener's.
    handler: async () => {
      await app.ready();
      return (req, res) => app.routing(req, res);
    },
  });
  try {
    // Earlier versions kept a permanent sign-in secret: it signs nobody in any more.
    removeLegacySecret(opts.dataDir);
    app = await buildApp({
      services: store.services,
      sessionToken,
      browserLogin,
      bootId,
      rendererDir: opts.rendererDir ?? null,
      rateLimit: opts.rateLimit ?? DEFAULT_RATE_LIMIT,
      sessionRateLimit: opts.sessionRateLimit ?? DEFAULT_SESSION_RATE_LIMIT,
      anonymousRateLimit: opts.anonymousRateLimit ?? DEFAULT_ANONYMOUS_RATE_LIMIT,
      bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
      extraHosts: opts.extraHosts ?? [],
      heartbeatMs: opts.heartbeatMs ?? 15_000,
      port: () => port,
      team,
      version: VERSION,
      log,
    });
  } catch (e) {
    store.close();
    throw e;
  }
  let stopping: Promise<void> | null = null;
  let checkpointer: Checkpointer | null = null;
  return {
    ...store,
    app,
    team,
    sessionToken,
    bootId,
    loginUrl: (baseUrl) =>
      browserLogin ? loginUrl(baseUrl, store.services.members.mintLoginLink()) : null,
    async start({ host = '127.0.0.1', port: wanted = 0 } = {}) {
      const bound = await listen(app, host, wanted);
      port = bound.port;
      store.services.email.setBaseUrl(`http://127.0.0.1:${bound.port}`);
      store.services.retention.ensureScheduled();
      store.services.scheduler.start();
      checkpointer ??= startCheckpointer(
        store.db,
        opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {},
      );
      return bound;
    },
    startRunners() {
      store.services.retention.ensureScheduled();
      store.services.scheduler.start();
    },
    stop() {
      stopping ??= (async () => {
        store.services.hub.closeAll();
        store.services.presence.stop();
        await team.stop();
        await app.close();
        await store.services.scheduler.stop();
        await store.services.media.stopFiles();
        store.services.outbound.close();
        store.services.email.closeTransports();
        await checkpointer?.stop();
        store.close();
      })();
      return stopping;
    },
  };
}
