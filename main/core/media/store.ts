import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { formatFileSize } from '../../../shared/media-rules.ts';
import { privateDir, privateFile } from '../files.ts';

/**
 * Media files, content-addressed in the data dir: `media/<sha256 hex>` (the folder 0700, each
 * file 0600). A file arrives as a stream into a temporary file beside its final place, counted
 * as it comes: a chunk that would take it past its limit is refused before it is written. Once
 * complete it is renamed to its hash; a file already there (the same bytes sent twice) is kept
 * and the copy dropped.
 */

/** The file would be larger than its limit: nothing of it is kept. */
export class MediaTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than ${formatFileSize(limit)}`);
    this.name = 'MediaTooLarge';
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** What `limitFor` sees of a file: enough for every magic number the sniffer knows. */
const HEAD_BYTES = 64 * 1024;

export interface StoredFile {
  sha256: string;
  size: number;
}

/** A file written but not yet in place: sniff it, then `commit()` or `discard()`. */
export interface PendingFile extends StoredFile {
  /** Where its bytes are now (a temporary name until committed). */
  path: string;
  commit(): StoredFile;
  discard(): void;
}

export function mediaStore(dataDir: string) {
  const dir = path.join(dataDir, 'media');
  const fileOf = (sha256: string) => {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
    return path.join(dir, sha256);
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
      privateDir.ensure(dir);
      const tmp = path.join(dir, `.incoming-${process.pid}-${randomBytes(8).toString('hex')}`);
      // Off the event loop: many downloads run at once while the API answers.
      const file = await fs.promises.open(tmp, 'wx', 0o600);
      const hash = createHash('sha256');
      let size = 0;
      let sha256 = '';
      let ok = false;
      try {
        let head: Buffer[] | null = limitFor ? [] : null;
        let headSize = 0;
        const write = async (bytes: Buffer) => {
          if (size + bytes.length > limit) throw new MediaTooLarge(limit);
          hash.update(bytes);
          await file.write(bytes);
          size += bytes.length;
        };
        const flushHead = async () => {
          const held = Buffer.concat(head!);
          head = null;
          limit = Math.min(limit, await limitFor!(held));
          await write(held);
        };
        for await (const chunk of chunks) {
          const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
          if (head) {
            head.push(bytes);
            headSize += bytes.length;
            if (headSize >= HEAD_BYTES) await flushHead();
            continue;
          }
          await write(bytes);
        }
        if (head) await flushHead();
        sha256 = hash.digest('hex');
        // On disk before a record says it is there (unless these bytes are stored already).
        if (!fs.existsSync(fileOf(sha256))) await file.sync();
        ok = true;
      } finally {
        await file.close();
        if (!ok) await fs.promises.rm(tmp, { force: true });
      }
      let settled = false;
      return {
        sha256,
        size,
        path: tmp,
        commit() {
          if (settled) throw new Error('already settled');
          settled = true;
          const final = fileOf(sha256);
          if (fs.existsSync(final)) fs.rmSync(tmp, { force: true });
          else fs.renameSync(tmp, final);
          privateFile.tighten(final);
          return { sha256, size };
        },
        discard() {
          if (settled) return;
          settled = true;
          fs.rmSync(tmp, { force: true });
        },
      };
    },

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
