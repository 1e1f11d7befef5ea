import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { bareHostname, classifyAddress, localNameRefusal } from './address.ts';

/**
 * Outbound HTTP for every runner that calls a URL a user gave us (webhook deliveries, workflow
 * `webhook` steps). The address check runs inside the socket's own lookup, so the address
 * checked is the address connected to: a name that resolves to a public address when the URL
 * is saved and to 127.0.0.1 when it is called (DNS rebinding) is refused.
 *
 * A request asks for `keepAlive` only for an origin the workspace configured (the Graph API):
 * its connections are pooled, one bounded pool per scheme and private-target policy, so a
 * connection opened (and checked) under one policy never carries a request of the other. A
 * pooled connection was checked by the same lookup when it connected and is never re-pointed:
 * reusing it reaches the address that was checked. A request given a pooled connection lets
 * pending I/O run before it writes a byte: a connection the server closed while it sat idle (its
 * close already here, not yet seen) then fails with nothing of the request written, and the
 * request goes out once more on a new connection — safe, the server never had it. A pooled
 * connection that fails after the request was written is reported, not sent again here: the
 * client cannot tell "closed as it came" from "read and dropped" (it may have been acted on),
 * so the caller's retry (a durable job) or exactly-once rules decide. User-given URLs
 * (webhooks, workflow steps) connect afresh every time: they are called rarely, to any host.
 */

/** Resolves a host name to every address it has; injectable so tests can play DNS. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** A save-time check must not hold a request for as long as a stuck resolver would. */
const CHECK_RESOLVE_TIMEOUT_MS = 5_000;
/**
 * Connections a keep-alive pool holds per origin, in use and idle. The first is above what the
 * Graph API's callers run at once together (sends 16, media downloads 8, template jobs 2 + 2,
 * checks): a request never waits for a pooled connection, so a timeout still means the request
 * went out and no answer came.
 */
const POOL_MAX_SOCKETS = 64;
const POOL_MAX_IDLE = 8;
/** An idle pooled connection is closed after this long (servers commonly close at 5 s). */
const POOL_IDLE_MS = 4_000;

/** A body read from somewhere else (a file to upload): opened when the request is sent. */
export interface StreamedRequestBody {
  open(): Readable;
  length: number;
}

/**
 * A GET to make from elsewhere (the media store's thread): the URL and its headers, and the
 * address to connect to, resolved and checked here under the policy (`pin`).
 */
export interface PinnedGet {
  url: string;
  headers: Record<string, string>;
  address: string;
  family: 4 | 6;
  allowPrivate: boolean;
  timeoutMs: number;
}

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer | StreamedRequestBody;
  /** The workspace allows private and loopback targets: every address may be reached. */
  allowPrivate: boolean;
  /** For the whole exchange: lookup, connect, request and reading the answer. */
  timeoutMs?: number;
  /** The answer is read up to this many bytes, then the connection is dropped. */
  maxResponseBytes?: number;
  /** Aborts the exchange (the core is shutting down). */
  signal?: AbortSignal;
  /** Reuse connections to this origin (see above): only for an origin the workspace set. */
  keepAlive?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The answer was longer than maxResponseBytes; `body` holds its beginning. */
  truncated: boolean;
}

/** An answer whose body the caller reads as it arrives (a media download). */

export type OutboundFailure = 'invalid_url' | 'refused_target' | 'timeout' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

const notAllowed = (what: string) => `${what}, which this workspace does not allow`;

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', `${raw} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundError('invalid_url', 'the URL must be http or https');
  return url;
}

/** Refusal for what the URL itself names (an IP literal or a local-only name), before any DNS. */
function literalRefusal(host: string): string | null {
  if (net.isIP(host)) {
    const verdict = classifyAddress(host);
    return verdict.allowed ? null : notAllowed(`the URL points to ${verdict.reason}`);
  }
  const local = localNameRefusal(host);
  return local ? notAllowed(`the URL names ${local}`) : null;
}

/**
 * The save-time check that needs no DNS: what the URL itself names (an IP literal in any
 * spelling the URL parser accepts, or a local-only name). For targets whose host name may only
 * mean something when called (a workflow step's URL filled from the run): a name is checked then.
 */
export function literalTargetRefusal(rawUrl: string, allowPrivate: boolean): string | null {
  const url = parseTarget(rawUrl);
  return allowPrivate ? null : literalRefusal(bareHostname(url));
}

/** Refusal for a resolver's answer: every address must pass, or a rebinding answer could mix them. */
function resolvedRefusal(addresses: LookupAddress[]): string | null {
  for (const a of addresses) {
    const verdict = classifyAddress(a.address);
    if (!verdict.allowed) return notAllowed(`the URL resolves to ${verdict.reason}`);
  }
  return null;
}

const familyNumber = (f: number | string | undefined) =>
  f === 4 || f === 'IPv4' ? 4 : f === 6 || f === 'IPv6' ? 6 : 0;

/** URL userinfo, percent-decoded as Node's `auth` wants it; a malformed escape stays as written. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export function createOutbound(opts: { resolve?: Resolver } = {}) {
  const resolve = opts.resolve ?? systemResolver;
  const pools = new Map<string, http.Agent>();

  /**
   * A host name's addresses under the policy, every one checked (a rebinding answer could mix
   * them); those of `family` only when it is given. Rejects with OutboundError('refused_target')
   * or the resolver's error (ENOTFOUND when none is usable).
   */
  async function checkedAddresses(
    hostname: string,
    allowPrivate: boolean,
    family: 0 | 4 | 6,
  ): Promise<LookupAddress[]> {
    const found = await resolve(hostname);
    const refusal = allowPrivate ? null : resolvedRefusal(found);
    if (refusal) throw new OutboundError('refused_target', refusal);
    const usable = family ? found.filter((a) => a.family === family) : found;
    if (usable.length === 0) {
      const e: NodeJS.ErrnoException = new Error(`${hostname} has no usable address`);
      e.code = 'ENOTFOUND';
      throw e;
    }
    return usable;
  }

  /** The connect-time guard: Node calls it for every host name it connects to. */
  const guardedLookup =
    (allowPrivate: boolean): LookupFunction =>
    (hostname, options, callback) => {
      checkedAddresses(hostname, allowPrivate, familyNumber(options.family)).then(
        (usable) => {
          if (options.all) callback(null, usable);
          else callback(null, usable[0]!.address, usable[0]!.family);
        },
        (e: NodeJS.ErrnoException) => callback(e, ''),
      );
    };

  return {
    /**
     * The save-time check of a URL: null when the workspace may call it, else why not. A name
     * that does not resolve now passes (it may exist by delivery time, which checks again).
     */
    async checkTarget(rawUrl: string, allowPrivate: boolean): Promise<string | null> {
      const url = parseTarget(rawUrl);
      if (allowPrivate) return null;
      const host = bareHostname(url);
      const literal = literalRefusal(host);
      if (literal || net.isIP(host)) return literal;
      const found = await withTimeout(
        resolve(host).catch(() => undefined),
        CHECK_RESOLVE_TIMEOUT_MS,
      );
      return found ? resolvedRefusal(found) : null;
    },

    /**
     * Where a request to `rawUrl` may connect under the policy, decided now by the same checks
     * as the connect-time guard: the address the guard would connect to. For a transfer made on
     * another thread (the media store's), which connects to exactly this address, so the
     * address checked is still the address connected to. Rejects with an OutboundError.
     */
    async pin(
      rawUrl: string,
      allowPrivate: boolean,
      timeoutMs = DEFAULT_TIMEOUT_MS,
    ): Promise<{ address: string; family: 4 | 6 }> {
      const url = parseTarget(rawUrl);
      const host = bareHostname(url);
      const refusal = allowPrivate ? null : literalRefusal(host);
      if (refusal) throw new OutboundError('refused_target', refusal);
      const literal = net.isIP(host);
      if (literal) return { address: host, family: literal as 4 | 6 };
      let found: LookupAddress[] | undefined;
      try {
        found = await withTimeout(checkedAddresses(host, allowPrivate, 0), timeoutMs);
      } catch (e) {
        throw asOutboundError(e as Error);
      }
      if (!found)
        throw new OutboundError('timeout', `no address for ${host} within ${timeoutMs / 1000} s`);
      return { address: found[0]!.address, family: found[0]!.family === 6 ? 6 : 4 };
    },

    /**
     * Opens a TCP connection to `host:port` (an SMTP server) under the same policy as `send`:
     * an IP literal or a local-only name is refused before any packet, and a name's addresses
     * are checked by the socket's own lookup. Rejects with an OutboundError.
     */
    connect(
      host: string,
      port: number,
      opts: { allowPrivate: boolean; timeoutMs?: number },
    ): Promise<net.Socket> {
      const bare = host.replace(/^\[(.*)\]$/, '$1');
      const refusal = opts.allowPrivate ? null : literalRefusal(bare);
      if (refusal) return Promise.reject(new OutboundError('refused_target', refusal));
      const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      return new Promise<net.Socket>((resolvePromise, reject) => {
        const socket = net.connect({ host: bare, port, lookup: guardedLookup(opts.allowPrivate) });
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new OutboundError('timeout', `no connection within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        const failed = (e: Error) => {
          clearTimeout(timer);
          reject(e instanceof OutboundError ? e : new OutboundError('network', e.message));
        };
        socket.once('error', failed);
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.removeListener('error', failed);
          resolvePromise(socket);
        });
      });
    },

    /**
     * Sends one request; redirects are not followed (a 3xx is the answer). Rejects with an
     * OutboundError; any HTTP status resolves.
     */
    async send(req: OutboundRequest): Promise<OutboundResponse> {
      const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const maxBytes = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      return new Promise<OutboundResponse>((resolvePromise, reject) => {
        let settled = false;
        const request = exchange(req, {
          error: (e) => settle(() => reject(asOutboundError(e))),
          close: () => req.signal?.removeEventListener('abort', abort),
          response: (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            const done = (truncated: boolean) =>
              settle(() =>
                resolvePromise({
                  status: res.statusCode ?? 0,
                  headers: res.headers,
                  body: Buffer.concat(chunks, size),
                  truncated,
                }),
              );
            res.on('data', (chunk: Buffer) => {
              if (settled) return;
              const room = maxBytes - size;
              if (chunk.length <= room) {
                chunks.push(chunk);
                size += chunk.length;
                return;
              }
              chunks.push(chunk.subarray(0, room));
              size = maxBytes;
              done(true);
              request.destroy();
            });
            res.on('end', () => done(false));
            res.on('error', (e) => settle(() => reject(new OutboundError('network', e.message))));
          },
        });
        const timer = setTimeout(() => {
          settle(() =>
            reject(new OutboundError('timeout', `no answer within ${timeoutMs / 1000} s`)),
          );
          request.destroy();
        }, timeoutMs);
        const settle = (fn: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          fn();
        };
        const abort = () => {
          settle(() => reject(new OutboundError('network', 'aborted: the core is shutting down')));
          request.destroy();
        };
        if (req.signal?.aborted) abort();
        req.signal?.addEventListener('abort', abort, { once: true });
      });
    },

    /** Closes the keep-alive pools' connections (the core is stopping). */
    close() {
      for (const agent of pools.values()) agent.destroy();
      pools.clear();
    },
  };

  /**
   * Opens the request and writes its body; the handlers hear the exchange's answer, its failure
   * and its end. On a pooled connection the body waits until pending I/O has run (two turns of
   * the loop, a full poll between them): a connection the server closed while idle then fails
   * (or answers, a 408) before a byte was written, and the request is made once more on a new
   * connection. Anything
   * else (a failure after writing, after an answer began, or of that second request) goes to
   * `error`. Returns the request in flight, for the caller to destroy (timeout, abort, truncation).
   */
  function exchange(
    req: OutboundRequest,
    on: {
      response(res: http.IncomingMessage): void;
      error(e: Error): void;
      close(): void;
    },
  ): { destroy(e?: Error): void } {
    let current: http.ClientRequest;
    let stopped = false;
    const begin = (fresh: boolean) => {
      const request = open(req, fresh);
      current = request;
      let written = false;
      let failed = false;
      let answered = false;
      request.on('error', (e) => {
        if (failed) return;
        failed = true;
        if (!stopped && !fresh && !written && !answered && request.reusedSocket) begin(true);
        else on.error(e);
      });
      request.on('response', (res) => {
        if (!written && !stopped) {
          // An answer to nothing sent (a server saying 408 as it closes an idle connection):
          // not this request's; the connection is dropped and the request made anew.
          failed = true;
          res.resume();
          request.destroy();
          begin(true);
          return;
        }
        answered = true;
        on.response(res);
      });
      request.on('close', () => {
        if (request === current) on.close();
      });
      const write = () => {
        if (failed || stopped) return;
        written = true;
        writeBody(request, req.body);
      };
      // `reusedSocket` is set as the pool hands over an idle connection, inside `request()`.
      if (request.reusedSocket) setImmediate(() => setImmediate(write));
      else write();
    };
    begin(false);
    return {
      destroy(e?: Error) {
        stopped = true;
        current.destroy(e);
      },
    };
  }

  /**
   * The keep-alive pool for a scheme under a private-target policy: a connection opened (and
   * checked) under one policy is never lent to a request of the other.
   */
  function pool(secure: boolean, allowPrivate: boolean): http.Agent {
    const key = `${secure ? 'https' : 'http'} ${allowPrivate ? 'private' : 'public'}`;
    let agent = pools.get(key);
    if (!agent) {
      const options: http.AgentOptions = {
        keepAlive: true,
        maxSockets: POOL_MAX_SOCKETS,
        maxFreeSockets: POOL_MAX_IDLE,
        timeout: POOL_IDLE_MS,
        scheduling: 'lifo',
      };
      agent = secure ? new https.Agent(options) : new http.Agent(options);
      pools.set(key, agent);
    }
    return agent;
  }

  /**
   * Opens a request under the policy (the IP-literal check here, names in the lookup, which a
   * pool's agent calls for every connection it opens).
   */
  function open(req: OutboundRequest, fresh: boolean): http.ClientRequest {
    const url = parseTarget(req.url);
    const host = bareHostname(url);
    // Node connects to IP literals without calling `lookup`, so they are checked here.
    const refusal = req.allowPrivate ? null : literalRefusal(host);
    if (refusal) throw new OutboundError('refused_target', refusal);
    const body = req.body;
    const length =
      body === undefined
        ? null
        : typeof body === 'string' || Buffer.isBuffer(body)
          ? Buffer.byteLength(body)
          : body.length;
    return (url.protocol === 'https:' ? https : http).request({
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: req.method ?? 'POST',
      headers:
        length === null ? { ...req.headers } : { ...req.headers, 'content-length': String(length) },
      ...(url.username ? { auth: `${decoded(url.username)}:${decoded(url.password)}` } : {}),
      // Without keepAlive (or `fresh`) every request connects afresh; with it, a pooled
      // connection was checked under this same policy (one pool per policy).
      agent: req.keepAlive && !fresh ? pool(url.protocol === 'https:', req.allowPrivate) : false,
      lookup: guardedLookup(req.allowPrivate),
    });
  }
}

const asOutboundError = (e: Error) =>
  e instanceof OutboundError ? e : new OutboundError('network', e.message);

function writeBody(request: http.ClientRequest, body: OutboundRequest['body']) {
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
    request.end(body);
    return;
  }
  const source = body.open();
  source.on('error', (e) => request.destroy(e));
  source.pipe(request);
}
export type Outbound = ReturnType<typeof createOutbound>;
