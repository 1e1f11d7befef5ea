import fs from 'node:fs';
import { parseFile } from 'music-metadata';
import type { MediaType } from '../../../shared/schemas/media.ts';

/**
 * How long a stored voice note, audio file or video plays, in whole milliseconds, or null when
 * its file does not say. `music-metadata` reads it from the container's headers (Opus/OGG,
 * MP3's frame or Xing header, M4A/MP4's audio track, AMR) with a few small reads through the
 * libuv thread pool, not the whole file (ADTS AAC, whose length only its frames tell, has their
 * headers counted); a video without a sound track gets its
 * length from the movie header (`mvhd`), which music-metadata reads but does not report.
 */
export async function mediaDurationMs(
  file: string,
  kind: MediaType,
  mimeType: string,
): Promise<number | null> {
  if (kind !== 'audio' && kind !== 'video') return null;
  let seconds: number | undefined;
  try {
    const meta = await parseFile(file, {
      // ADTS AAC says its length nowhere but in its frames: they are counted (headers only).
      duration: mimeType === 'audio/aac',
      skipCovers: true,
      skipPostHeaders: true,
    });
    seconds = meta.format.duration;
  } catch {
    // A format it does not parse, or a damaged header: the length stays unknown.
  }
  if (seconds === undefined && /^(video|audio)\/(mp4|3gpp)$/.test(mimeType)) {
    seconds = (await movieHeaderSeconds(file)) ?? undefined;
  }
  return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0
    ? Math.round(seconds * 1000)
    : null;
}

/** An ISO BMFF box's header at `at`: its type and where it ends (null past the end). */
async function boxAt(f: fs.promises.FileHandle, at: number, end: number) {
  const head = Buffer.alloc(16);
  const { bytesRead } = await f.read(head, 0, 16, at);
  if (bytesRead < 8) return null;
  let size = head.readUInt32BE(0);
  let header = 8;
  if (size === 1) {
    if (bytesRead < 16) return null;
    size = Number(head.readBigUInt64BE(8));
    header = 16;
  } else if (size === 0) {
    size = end - at;
  }
  if (size < header || at + size > end) return null;
  return { type: head.toString('latin1', 4, 8), body: at + header, end: at + size };
}

/** `moov/mvhd`'s duration ÷ time scale (ISO/IEC 14496-12 §8.2.2), or null. */
async function movieHeaderSeconds(file: string): Promise<number | null> {
  const f = await fs.promises.open(file, 'r');
  try {
    const { size } = await f.stat();
    let at = 0;
    let end = size;
    // At most 64 boxes looked at: a file made of countless tiny boxes is not worth the reads.
    for (let n = 0; n < 64; n++) {
      const box = await boxAt(f, at, end);
      if (!box) return null;
      if (box.type === 'moov') {
        at = box.body;
        end = box.end;
        continue;
      }
      if (box.type === 'mvhd') {
        const b = Buffer.alloc(32);
        const { bytesRead } = await f.read(b, 0, 32, box.body);
        const v1 = b[0] === 1;
        if (bytesRead < (v1 ? 32 : 20)) return null;
        const scale = v1 ? b.readUInt32BE(20) : b.readUInt32BE(12);
        const units = v1 ? Number(b.readBigUInt64BE(24)) : b.readUInt32BE(16);
        return scale > 0 && units !== 0xffffffff ? units / scale : null;
      }
      at = box.end;
    }
    return null;
  } finally {
    await f.close();
  }
}
