import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { formatFileSize } from '../../../shared/media-rules.ts';
import { privateDir, privateFile } from '../files.ts';
import { SNIFF_HEAD_BYTES } from './sniff.ts';

/**
 * Media files, content-addressed in the data dir: `media/<sha256 hex>` (the folder 0700, each
 * file 0600). A file arrives as a stream into a temporary file beside its final place, counted
 * as it comes: a chunk that would take it past its limit is refused before it is written. Once
 * complete it is renamed to its hash; a file already there (the same bytes sent twice) is kept
 * and the copy dropped.
 *
 * The writing and hashing happen on a worker thread (the event loop only counts the bytes and
 * hands them over, 256 KB at a time): many downloads run at once while the API answers, and
 * their SHA-256, their writes, syncs and closes would otherwise share the loop with requests.
 */

/** The file would be larger than its limit: nothing of it is kept. */
export class MediaTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than ${formatFileSize(limit)}`);
    this.name = 'MediaTooLarge';
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** How much a download hands the writer at once (fewer messages; memory stays bounded). */
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

/**
 * The writer thread: one temporary file per transfer id, opened on its first batch (`wx`,
 * 0600), written and hashed batch by batch; the last batch digests, syncs (unless the same
 * bytes are stored already) and closes. `abort` closes and removes. Each message is answered
 * with `{id, ok, sha256?}` or `{id, ok: false, message, code}`.
 */
const WRITER = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');
const open = new Map();
const answer = (m) => parentPort.postMessage(m);
const drop = (id, file) => {
  const f = open.get(id);
  open.delete(id);
  if (f) { try { fs.closeSync(f.fd); } catch {} }
  if (file) fs.rmSync(file, { force: true });
};
parentPort.on('message', (m) => {
  try {
    if (m.op === 'abort') { drop(m.id, m.path); answer({ id: m.id, ok: true }); return; }
    let f = open.get(m.id);
    if (!f) {
      f = { fd: fs.openSync(m.path, 'wx', 0o600), hash: createHash('sha256') };
      open.set(m.id, f);
    }
    const bytes = m.bytes;
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(f.fd, bytes, at, bytes.length - at);
    f.hash.update(bytes);
    if (!m.end) { answer({ id: m.id, ok: true }); return; }
    const sha256 = f.hash.digest('hex');
    open.delete(m.id);
    const close = (err) => {
      fs.close(f.fd, (closeErr) => {
        const e = err || closeErr;
        if (e) { fs.rmSync(m.path, { force: true }); answer({ id: m.id, ok: false, message: e.message, code: e.code }); }
        else answer({ id: m.id, ok: true, sha256 });
      });
    };
    // On disk before a record says it is there; the sync waits in the thread pool, not here.
    if (fs.existsSync(path.join(m.dir, sha256))) close(null);
    else fs.fsync(f.fd, close);
  } catch (e) {
    try { drop(m.id, m.path); } catch {}
    answer({ id: m.id, ok: false, message: String((e && e.message) || e), code: e && e.code });
  }
});
`;

type WriterAnswer = { id: number; ok: boolean; sha256?: string; message?: string; code?: string };

/** The store was stopped (the core is shutting down): it takes no more files. */
export class MediaStoreStopped extends Error {
  constructor() {
    super('the media store is stopped: the core is shutting down');
    this.name = 'MediaStoreStopped';
  }
}

/**
 * The one writer thread of a store, started on first use and again after it failed; never
 * after `stop()`: a write is then refused (MediaStoreStopped) and an abort removes the
 * temporary file here, on the main thread.
 */
function fileWriter() {
  let worker: Worker | null = null;
  let stopped = false;
  let nextId = 1;
  const waiting = new Map<
    number,
    { resolve: (a: WriterAnswer) => void; reject: (e: Error) => void }
  >();
  const start = (): Worker => {
    const w = new Worker(WRITER, { eval: true });
    const failAll = (e: Error) => {
      if (worker === w) worker = null;
      for (const p of waiting.values()) p.reject(e);
      waiting.clear();
    };
    w.on('message', (a: WriterAnswer) => {
      const p = waiting.get(a.id);
      if (!p) return;
      waiting.delete(a.id);
      // Idle, it holds no process open; while it has work, it does (as a file write would).
      if (waiting.size === 0) w.unref();
      p.resolve(a);
    });
    w.on('error', failAll);
    w.on('exit', (code) => failAll(new Error(`the media writer thread stopped (${code})`)));
    // After the listeners: a process whose core was never stopped still exits.
    w.unref();
    return w;
  };
  return {
    id: () => nextId++,
    /** One message to the writer, answered when it has been carried out. */
    async send(message: {
      id: number;
      op: 'write' | 'abort';
      path: string;
      dir: string;
      bytes?: Buffer;
      end?: boolean;
    }): Promise<{ sha256?: string }> {
      if (stopped) {
        if (message.op === 'write') throw new MediaStoreStopped();
        fs.rmSync(message.path, { force: true });
        return {};
      }
      const w = (worker ??= start());
      const answer = await new Promise<WriterAnswer>((resolve, reject) => {
        if (waiting.size === 0) w.ref();
        waiting.set(message.id, { resolve, reject });
        // A batch that owns its whole memory moves to the writer without a copy.
        const b = message.bytes;
        const own = b !== undefined && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
        w.postMessage(message, own ? [b.buffer as ArrayBuffer] : []);
      });
      if (!answer.ok) {
        throw Object.assign(new Error(answer.message ?? 'the file could not be written'), {
          code: answer.code,
        });
      }
      return answer;
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
  const writer = fileWriter();
  let dirReady = false;

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
      if (writer.stopped) throw new MediaStoreStopped();
      if (!dirReady) {
        privateDir.ensure(dir);
        dirReady = true;
      }
      const tmp = path.join(dir, `.incoming-${process.pid}-${randomBytes(8).toString('hex')}`);
      const id = writer.id();
      let started = false;
      let size = 0;
      let sha256 = '';
      // A copy: the batches' memory moves to the writer thread.
      const head = Buffer.allocUnsafe(SNIFF_HEAD_BYTES);
      let headSize = 0;
      // Counted but not yet handed to the writer.
      let batch: Buffer[] = [];
      let batchSize = 0;
      let limitKnown = !limitFor;
      const flush = async (end: boolean) => {
        const bytes = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batchSize);
        batch = [];
        batchSize = 0;
        started = true;
        return writer.send({ id, op: 'write', path: tmp, dir, bytes, end });
      };
      /** Bytes taken: refused when they would pass the limit, before the writer sees them. */
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
        if (started) await writer.send({ id, op: 'abort', path: tmp, dir }).catch(() => {});
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') dirReady = false;
        throw e;
      }
      let settled = false;
      return {
        sha256,
        size,
        path: tmp,
        head: head.subarray(0, headSize),
        commit() {
          if (settled) throw new Error('already settled');
          settled = true;
          const final = fileOf(sha256);
          // Created 0600 by the writer: renamed into place, or dropped for the copy already there.
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
    },

    /**
     * Ends the writer thread (the core stopping). A transfer still in flight fails and its
     * temporary file goes; later ones are refused (MediaStoreStopped).
     */
    stop: () => writer.stop(),

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
