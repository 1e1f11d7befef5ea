import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { formatFileSize } from '../../../shared/media-rules.ts';
import { privateDir, privateFile } from '../files.ts';
import type { PinnedGet } from '../net/outbound.ts';
import { OutboundError } from '../net/outbound.ts';
import { SNIFF_HEAD_BYTES } from './sniff.ts';
import type { FetchMessage, TransferAnswer, TransferMessage } from './transfer-thread.ts';
import { POOL, transferThread } from './transfer-thread.ts';

/**
 * Media files, content-addressed in the data dir: `media/<sha256 hex>` (the folder 0700, each
 * file 0600). A file arrives as a stream into a temporary file beside its final place, counted
 * as it comes: a chunk that would take it past its limit is refused before it is written. Once
 * complete it is renamed to its hash; a file already there (the same bytes sent twice) is kept
 * and the copy dropped.
 *
 * The writing and hashing happen on one worker thread (transfer-thread.ts). A received file is
 * downloaded there too, start to end (`fetch`): its bytes, their buffers and their garbage never
 * reach the event loop that serves the API. Bytes that arrive here (an upload's request body)
 * are counted and handed over 256 KB at a time.
 */

/** The file would be larger than its limit: nothing of it is kept. */
export class MediaTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than ${formatFileSize(limit)}`);
    this.name = 'MediaTooLarge';
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** How much an upload hands the thread at once (fewer messages; memory stays bounded). */
const BATCH_BYTES = 256 * 1024;

export interface StoredFile {
  sha256: string;
  size: number;
}

/** A file written but not yet in place: sniff it, then `commit()` or `discard()`. */
export interface PendingFile extends StoredFile {
  /** Where its bytes are now (a temporary name until committed). */
  path: string;
  /** Its first bytes (up to SNIFF_HEAD_BYTES), kept in memory for the sniffer. */
  head: Buffer;
  commit(): StoredFile;
  discard(): void;
}

/** The store was stopped (the core is shutting down): it takes no more files. */
export class MediaStoreStopped extends Error {
  constructor() {
    super('the media store is stopped: the core is shutting down');
    this.name = 'MediaStoreStopped';
  }
}

const THREAD = `(${transferThread.toString()})(require, ${JSON.stringify(POOL)})`;

/**
 * The one transfer thread of a store (transfer-thread.ts), started on first use and again after
 * it failed; never after `stop()`: a transfer is then refused (MediaStoreStopped) and an abort
 * removes the temporary file here, on the main thread.
 */
function transfers() {
  let worker: Worker | null = null;
  let stopped = false;
  let nextId = 1;
  const waiting = new Map<
    number,
    { resolve: (a: TransferAnswer) => void; reject: (e: Error) => void }
  >();
  const start = (): Worker => {
    const w = new Worker(THREAD, { eval: true });
    const failAll = (e: Error) => {
      if (worker === w) worker = null;
      for (const p of waiting.values()) p.reject(e);
      waiting.clear();
    };
    w.on('message', (a: TransferAnswer) => {
      const p = waiting.get(a.id);
      if (!p) return;
      waiting.delete(a.id);
      // Idle, it holds no process open; while it has work, it does (as a file write would).
      if (waiting.size === 0) w.unref();
      p.resolve(a);
    });
    w.on('error', failAll);
    w.on('exit', (code) => failAll(new Error(`the media transfer thread stopped (${code})`)));
    // After the listeners: a process whose core was never stopped still exits.
    w.unref();
    return w;
  };
  /** One message to the thread, answered when it has been carried out. */
  const ask = async (message: TransferMessage, transfer: ArrayBuffer[] = []) => {
    const w = (worker ??= start());
    const answer = await new Promise<TransferAnswer>((resolve, reject) => {
      if (waiting.size === 0) w.ref();
      waiting.set(message.id, { resolve, reject });
      w.postMessage(message, transfer);
    });
    if (!answer.ok) {
      throw Object.assign(new Error(answer.message), { code: answer.code });
    }
    return answer;
  };
  return {
    id: () => nextId++,
    /** A batch of bytes (or an abort) for a file written from this thread. */
    async send(
      message: { id: number; path: string; dir: string } & (
        { op: 'write'; bytes: Buffer; end: boolean } | { op: 'abort' }
      ),
    ): Promise<{ sha256?: string }> {
      if (stopped) {
        if (message.op === 'write') throw new MediaStoreStopped();
        fs.rmSync(message.path, { force: true });
        return {};
      }
      // A batch that owns its whole memory moves to the thread without a copy.
      const b = message.op === 'write' ? message.bytes : undefined;
      const own = b !== undefined && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
      return ask(message, own ? [b.buffer as ArrayBuffer] : []);
    },
    /** A download made by the thread; `signal` cancels it (the temporary file goes). */
    async fetch(message: Omit<FetchMessage, 'op'>, signal?: AbortSignal) {
      if (stopped) throw new MediaStoreStopped();
      const cancel = () => worker?.postMessage({ op: 'cancel', id: message.id });
      if (signal?.aborted) throw new OutboundError('network', 'aborted: the core is shutting down');
      signal?.addEventListener('abort', cancel, { once: true });
      try {
        return await ask({ op: 'fetch', ...message });
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
    },
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}

export function mediaStore(dataDir: string) {
  const dir = path.join(dataDir, 'media');
  const fileOf = (sha256: string) => {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
    return path.join(dir, sha256);
  };
  const thread = transfers();
  let dirReady = false;
  /** A new temporary file's name, in the folder (made first if need be). */
  const incoming = () => {
    if (!dirReady) {
      privateDir.ensure(dir);
      dirReady = true;
    }
    return path.join(dir, `.incoming-${process.pid}-${randomBytes(8).toString('hex')}`);
  };
  /** A file written to `tmp`, to sniff and then commit or discard. */
  const pending = (tmp: string, sha256: string, size: number, head: Buffer): PendingFile => {
    let settled = false;
    return {
      sha256,
      size,
      path: tmp,
      head,
      commit() {
        if (settled) throw new Error('already settled');
        settled = true;
        const final = fileOf(sha256);
        // Created 0600 by the thread: renamed into place, or dropped for the copy already there.
        if (fs.existsSync(final)) {
          fs.rmSync(tmp, { force: true });
          privateFile.tighten(final);
        } else {
          fs.renameSync(tmp, final);
        }
        return { sha256, size };
      },
      discard() {
        if (settled) return;
        settled = true;
        fs.rmSync(tmp, { force: true });
      },
    };
  };

  return {
    dir,
    path: fileOf,
    has: (sha256: string) => fs.existsSync(fileOf(sha256)),

    /**
     * Writes the chunks to a temporary file (0600), hashing and counting them; throws
     * MediaTooLarge before writing the chunk that would pass `limit` (the partial file goes).
     * `limitFor` may tighten the limit from the file's first bytes (an upload's type, sniffed
     * from them, has its own limit) before more than those are written.
     */
    async receive(
      chunks: AsyncIterable<Buffer | Uint8Array>,
      limit: number,
      limitFor?: (head: Buffer) => Promise<number>,
    ): Promise<PendingFile> {
      if (thread.stopped) throw new MediaStoreStopped();
      const tmp = incoming();
      const id = thread.id();
      let started = false;
      let size = 0;
      let sha256: string;
      // A copy: the batches' memory moves to the thread.
      const head = Buffer.allocUnsafe(SNIFF_HEAD_BYTES);
      let headSize = 0;
      // Counted but not yet handed to the thread.
      let batch: Buffer[] = [];
      let batchSize = 0;
      let limitKnown = !limitFor;
      const flush = async (end: boolean) => {
        const bytes = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batchSize);
        batch = [];
        batchSize = 0;
        started = true;
        return thread.send({ id, op: 'write', path: tmp, dir, bytes, end });
      };
      /** Bytes taken: refused when they would pass the limit, before the thread sees them. */
      const take = async (bytes: Buffer) => {
        if (size + bytes.length > limit) throw new MediaTooLarge(limit);
        size += bytes.length;
        batch.push(bytes);
        batchSize += bytes.length;
        if (batchSize >= BATCH_BYTES) await flush(false);
      };
      const learnLimit = async () => {
        limitKnown = true;
        limit = Math.min(limit, await limitFor!(head.subarray(0, headSize)));
        const held = batch;
        batch = [];
        batchSize = 0;
        for (const bytes of held) await take(bytes);
      };
      try {
        for await (const chunk of chunks) {
          const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
          if (headSize < SNIFF_HEAD_BYTES) headSize += bytes.copy(head, headSize);
          if (!limitKnown) {
            // Held (not written) until the first bytes tell the limit.
            batch.push(bytes);
            batchSize += bytes.length;
            if (headSize >= SNIFF_HEAD_BYTES) await learnLimit();
            continue;
          }
          await take(bytes);
        }
        if (!limitKnown) await learnLimit();
        sha256 = (await flush(true)).sha256!;
      } catch (e) {
        if (started) await thread.send({ id, op: 'abort', path: tmp, dir }).catch(() => {});
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') dirReady = false;
        throw e;
      }
      return pending(tmp, sha256, size, head.subarray(0, headSize));
    },

    /**
     * Downloads a file on the transfer thread (a GET to the pinned address, written, hashed and
     * counted there; its first `headBytes` kept): `file` when it answered 200, else only the
     * status. Throws MediaTooLarge past `bytes` (the partial file goes), OutboundError on a timeout, a network failure or
     * `signal` (the core stopping), MediaStoreStopped after `stop()`.
     */
    async fetch(
      get: PinnedGet,
      limits: { bytes: number; headBytes: number },
      signal?: AbortSignal,
    ): Promise<{ status: number; file?: PendingFile }> {
      const limit = limits.bytes;
      if (thread.stopped) throw new MediaStoreStopped();
      const tmp = incoming();
      let got: TransferAnswer & { ok: true };
      try {
        got = await thread.fetch(
          { id: thread.id(), path: tmp, dir, ...get, limit, headBytes: limits.headBytes },
          signal,
        );
      } catch (e) {
        // Removed by the thread, unless it ended first (stopped): then here.
        fs.rmSync(tmp, { force: true });
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'too_large') throw new MediaTooLarge(limit);
        if (code === 'timeout' || code === 'network' || code === 'aborted') {
          throw new OutboundError(code === 'timeout' ? 'timeout' : 'network', (e as Error).message);
        }
        if (code === 'ENOENT') dirReady = false;
        if (thread.stopped) throw new MediaStoreStopped();
        throw e;
      }
      if (got.status !== 200) return { status: got.status ?? 0 };
      const head = Buffer.from(got.head!.buffer, got.head!.byteOffset, got.head!.byteLength);
      return { status: 200, file: pending(tmp, got.sha256!, got.size!, head) };
    },

    /**
     * Ends the transfer thread (the core stopping). A transfer still in flight fails and its
     * temporary file goes; later ones are refused (MediaStoreStopped).
     */
    stop: () => thread.stop(),

    /** Removes a stored file (retention, once no record needs it). */
    remove(sha256: string): boolean {
      try {
        fs.rmSync(fileOf(sha256));
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw e;
      }
    },

    /** Temporary files a crash left behind (older than an hour): removed at start. */
    sweepIncoming(now = Date.now()): number {
      if (!fs.existsSync(dir)) return 0;
      let removed = 0;
      for (const name of fs.readdirSync(dir)) {
        if (!name.startsWith('.incoming-')) continue;
        const file = path.join(dir, name);
        try {
          if (now - fs.statSync(file).mtimeMs > 3600_000) {
            fs.rmSync(file, { force: true });
            removed++;
          }
        } catch {
          // Gone meanwhile (another process swept it).
        }
      }
      return removed;
    },
  };
}
export type MediaStore = ReturnType<typeof mediaStore>;
