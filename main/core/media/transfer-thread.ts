/**
 * The media store's one thread. Its source is this file's function, run in a worker from
 * `eval` (so it works the same from the TypeScript sources under test and from the bundle): it
 * uses nothing but Node's own modules and takes everything else from its messages.
 *
 * Two kinds of work, one temporary file each, named by the sender:
 * - `write`: bytes that arrived on the main thread (an upload's request body, a simulator
 *   sample) in batches: written and hashed as they come; the last batch digests, syncs and
 *   closes. `abort` closes and removes.
 * - `fetch`: a received file downloaded here, start to end: an HTTP GET to the address the main
 *   thread resolved and checked (the connection is made to exactly that address), written,
 *   hashed and counted against its limit as it streams, its first bytes kept for the sniffer.
 *   The file's bytes never cross to the main thread, nor does their garbage: the thread that
 *   serves the API and runs the jobs sees only the answer. `cancel` ends one (the core
 *   stopping). Pooled keep-alive connections, one pool per scheme and private-target policy (a
 *   connection opened under one policy never carries a request of the other); as net/outbound
 *   does, a request given an idle pooled connection lets pending I/O run before it is written,
 *   and one that meets a connection the server had closed meanwhile (nothing of it written) is
 *   made once more on a new connection. A failure after that is the caller's to retry (the
 *   download's durable job).
 *
 * Every message is answered with its id: `{id, ok: true, …}` or `{id, ok: false, code, message}`.
 */

import type * as Crypto from 'node:crypto';
import type * as Fs from 'node:fs';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type { LookupFunction } from 'node:net';
import type * as Path from 'node:path';
import type * as WorkerThreads from 'node:worker_threads';
import type { PinnedGet } from '../net/outbound.ts';

export interface WriteMessage {
  op: 'write';
  id: number;
  path: string;
  dir: string;
  bytes: Buffer;
  end: boolean;
}
export interface AbortMessage {
  op: 'abort';
  id: number;
  path: string;
}
/** A GET pinned to the address the main thread resolved and checked (net/outbound `pin`). */
export interface FetchMessage extends PinnedGet {
  op: 'fetch';
  id: number;
  /** The temporary file to create (0600, `wx`) and the folder its final name would be in. */
  path: string;
  dir: string;
  /** More bytes than this end the transfer (`too_large`); nothing of it is kept. */
  limit: number;
  /** How many first bytes to keep for the sniffer. */
  headBytes: number;
}
export interface CancelMessage {
  op: 'cancel';
  id: number;
}
export type TransferMessage = WriteMessage | AbortMessage | FetchMessage | CancelMessage;

export type TransferAnswer =
  | {
      id: number;
      ok: true;
      /** A finished write or a fetched file (status 200): its SHA-256 (hex). */
      sha256?: string;
      /** A fetch: the HTTP status (anything but 200 leaves no file). */
      status?: number;
      size?: number;
      /** A fetch's first bytes (up to headBytes). */
      head?: Uint8Array;
    }
  | {
      id: number;
      ok: false;
      /** 'too_large', 'timeout', 'network', 'aborted', or a file system error's code. */
      code: string;
      message: string;
    };

/** Connections a pool holds, in use and idle, and how long an idle one stays (as net/outbound). */
export const POOL = { maxSockets: 64, maxFreeSockets: 8, idleMs: 4_000 } as const;

/**
 * The thread's code: `(${transferThread})(require, ${JSON.stringify(POOL)})` is what the worker
 * runs (`require` handed in: a bundler rewrites the name where it stands free).
 */
export function transferThread(load: NodeJS.Require, pool: typeof POOL): void {
  const { parentPort } = load('node:worker_threads') as typeof WorkerThreads;
  const fs = load('node:fs') as typeof Fs;
  const path = load('node:path') as typeof Path;
  const http = load('node:http') as typeof Http;
  const https = load('node:https') as typeof Https;
  const { createHash } = load('node:crypto') as typeof Crypto;
  type Hash = ReturnType<typeof createHash>;

  const port = parentPort!;
  const answer = (a: TransferAnswer, transfer: ArrayBuffer[] = []) => port.postMessage(a, transfer);
  const codeOf = (e: unknown) => (e as NodeJS.ErrnoException)?.code ?? 'io';
  const messageOf = (e: unknown) => String((e as Error)?.message ?? e);
  const failure = (id: number, e: unknown): TransferAnswer => ({
    id,
    ok: false,
    code: codeOf(e),
    message: messageOf(e),
  });
  const writeAll = (fd: number, bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at);
  };
  /** Digested: synced (unless the same bytes are stored already) and closed, then `done`. */
  const closeFile = (
    fd: number,
    file: string,
    dir: string,
    sha256: string,
    done: (e: Error | null) => void,
  ) => {
    const close = (err: Error | null) =>
      fs.close(fd, (closeErr) => {
        const e = err ?? closeErr;
        if (e) fs.rmSync(file, { force: true });
        done(e);
      });
    // On disk before a record says it is there; the sync waits in the thread pool.
    if (fs.existsSync(path.join(dir, sha256))) close(null);
    else fs.fsync(fd, close);
  };

  // --- write: batches from the main thread ---------------------------------------------------
  const writing = new Map<number, { fd: number; hash: Hash }>();
  const dropWrite = (id: number, file: string) => {
    const f = writing.get(id);
    writing.delete(id);
    if (f) {
      try {
        fs.closeSync(f.fd);
      } catch {
        // Closed already.
      }
    }
    fs.rmSync(file, { force: true });
  };
  const write = (m: WriteMessage) => {
    let f = writing.get(m.id);
    if (!f) {
      f = { fd: fs.openSync(m.path, 'wx', 0o600), hash: createHash('sha256') };
      writing.set(m.id, f);
    }
    writeAll(f.fd, m.bytes);
    f.hash.update(m.bytes);
    if (!m.end) return answer({ id: m.id, ok: true });
    const sha256 = f.hash.digest('hex');
    writing.delete(m.id);
    closeFile(f.fd, m.path, m.dir, sha256, (e) =>
      answer(e ? failure(m.id, e) : { id: m.id, ok: true, sha256 }),
    );
  };

  // --- fetch: a download made here -------------------------------------------------------------
  const agents = new Map<string, Http.Agent>();
  const agentFor = (secure: boolean, allowPrivate: boolean) => {
    const key = `${secure ? 'https' : 'http'} ${allowPrivate ? 'private' : 'public'}`;
    let agent = agents.get(key);
    if (!agent) {
      const options = {
        keepAlive: true,
        maxSockets: pool.maxSockets,
        maxFreeSockets: pool.maxFreeSockets,
        timeout: pool.idleMs,
        scheduling: 'lifo' as const,
      };
      agent = secure ? new https.Agent(options) : new http.Agent(options);
      agents.set(key, agent);
    }
    return agent;
  };
  const fetching = new Map<number, () => void>();
  const fetch = (m: FetchMessage) => {
    const url = new URL(m.url);
    const secure = url.protocol === 'https:';
    let request: Http.ClientRequest | null = null;
    let fd: number | null = null;
    let ended = false;
    const end = (a: TransferAnswer, transfer?: ArrayBuffer[]) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      fetching.delete(m.id);
      answer(a, transfer);
    };
    const fail = (code: string, message: string) => {
      if (ended) return;
      request?.destroy();
      if (fd !== null) {
        try {
          fs.closeSync(fd);
        } catch {
          // Closed already.
        }
        fd = null;
        fs.rmSync(m.path, { force: true });
      }
      end({ id: m.id, ok: false, code, message });
    };
    const timer = setTimeout(
      () => fail('timeout', `no answer within ${m.timeoutMs / 1000} s`),
      m.timeoutMs,
    );
    fetching.set(m.id, () => fail('aborted', 'aborted: the core is shutting down'));
    const tooLarge = () => fail('too_large', `more than ${m.limit} bytes`);
    /** A file system error (opening, writing, syncing the file) ends the transfer. */
    const failFrom = (e: unknown) => fail(codeOf(e), messageOf(e));
    // The connection goes to the address the main thread checked, whatever the name resolves
    // to now; the name still makes the Host header, the TLS server name and the certificate check.
    const lookup = (
      _host: string,
      options: { all?: boolean },
      callback: (...args: unknown[]) => void,
    ) =>
      options.all
        ? callback(null, [{ address: m.address, family: m.family }])
        : callback(null, m.address, m.family);

    const begin = (fresh: boolean) => {
      let written = false;
      let answered = false;
      const req = (secure ? https : http).request({
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: m.headers,
        agent: fresh ? false : agentFor(secure, m.allowPrivate),
        lookup: lookup as unknown as LookupFunction,
      });
      request = req;
      req.on('error', (e) => {
        if (ended || req !== request) return;
        // A pooled connection the server closed while it sat idle: once more, on a new one.
        if (!fresh && !written && !answered && req.reusedSocket) begin(true);
        else fail('network', e.message);
      });
      req.on('response', (res) => {
        if (!written) {
          // An answer to nothing sent (a 408 as the server closes an idle connection).
          res.resume();
          req.destroy();
          if (!ended && req === request) begin(true);
          return;
        }
        answered = true;
        if (res.statusCode !== 200) {
          res.resume();
          end({ id: m.id, ok: true, status: res.statusCode ?? 0 });
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > m.limit) return tooLarge();
        const head = Buffer.allocUnsafeSlow(
          Number.isFinite(declared) ? Math.min(declared, m.headBytes) : m.headBytes,
        );
        let headSize = 0;
        let size = 0;
        const hash = createHash('sha256');
        try {
          fd = fs.openSync(m.path, 'wx', 0o600);
        } catch (e) {
          return failFrom(e);
        }
        res.on('data', (chunk: Buffer) => {
          if (ended) return;
          size += chunk.length;
          if (size > m.limit) return tooLarge();
          if (headSize < head.length) headSize += chunk.copy(head, headSize);
          try {
            writeAll(fd!, chunk);
          } catch (e) {
            return failFrom(e);
          }
          hash.update(chunk);
        });
        res.on('error', (e) => fail('network', e.message));
        res.on('close', () => {
          if (!res.complete) fail('network', 'the answer was cut short');
        });
        res.on('end', () => {
          if (ended) return;
          const sha256 = hash.digest('hex');
          const open = fd!;
          fd = null;
          closeFile(open, m.path, m.dir, sha256, (e) => {
            // Timed out or cancelled while it synced: nothing of it is kept.
            if (ended) return fs.rmSync(m.path, { force: true });
            if (e) {
              return failFrom(e);
            }
            const bytes = new Uint8Array(head.buffer, 0, headSize);
            end({ id: m.id, ok: true, status: 200, sha256, size, head: bytes }, [
              head.buffer as ArrayBuffer,
            ]);
          });
        });
      });
      const send = () => {
        if (ended || req !== request) return;
        written = true;
        req.end();
      };
      // Given an idle pooled connection, pending I/O runs first (two turns of the loop): one
      // the server closed meanwhile then fails before a byte of the request was written.
      if (req.reusedSocket) setImmediate(() => setImmediate(send));
      else send();
    };
    begin(false);
  };

  port.on('message', (m: TransferMessage) => {
    try {
      switch (m.op) {
        case 'write':
          return write(m);
        case 'abort':
          dropWrite(m.id, m.path);
          return answer({ id: m.id, ok: true });
        case 'fetch':
          return fetch(m);
        case 'cancel':
          return fetching.get(m.id)?.();
      }
    } catch (e) {
      if (m.op === 'write') {
        try {
          dropWrite(m.id, m.path);
        } catch {
          // Nothing left to remove.
        }
      }
      answer(failure(m.id, e));
    }
  });
}
