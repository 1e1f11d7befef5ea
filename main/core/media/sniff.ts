import fs from 'node:fs';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import type { MediaType } from '../../../shared/schemas/media.ts';
import { MEDIA_LIMITS, SENDABLE_MIME_TYPES } from '../../../shared/schemas/media.ts';

/**
 * What a file is, by its bytes (magic numbers, with `file-type`), never by what its sender
 * declared: a "photo" that is an HTML page is not a photo. The declared type only chooses
 * between formats the bytes cannot tell apart (Office 97–2003 files, plain text).
 */

/** file-type's names for formats the Cloud API and browsers call otherwise. */
const NORMAL: Record<string, string> = {
  'audio/ogg; codecs=opus': 'audio/ogg',
  'audio/opus': 'audio/ogg',
  'audio/x-m4a': 'audio/mp4',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-wav': 'audio/wav',
  'video/3gpp2': 'video/3gpp',
  'video/x-m4v': 'video/mp4',
};
export const normalizeMime = (mime: string): string => {
  const m = mime.trim().toLowerCase();
  return NORMAL[m] ?? m.split(';')[0]!.trim();
};

/** Raster images a browser shows safely in an <img>: served inline. */
export const INLINE_IMAGES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);
const INLINE_AV = new Set([
  'audio/ogg',
  'audio/mpeg',
  'audio/mp4',
  'audio/aac',
  'audio/wav',
  'audio/webm',
  'audio/flac',
  'audio/amr',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/3gpp',
  'video/quicktime',
]);
/** Served inline (shown or played in the page): raster images, audio and video only. */
export const isInline = (mime: string | null): boolean =>
  mime !== null && (INLINE_IMAGES.has(mime) || INLINE_AV.has(mime));

/** Types a download keeps as its Content-Type; anything else goes as application/octet-stream. */
const ATTACHMENT_TYPES = new Set([
  ...INLINE_IMAGES,
  ...INLINE_AV,
  ...SENDABLE_MIME_TYPES.document,
  'text/csv',
  'application/zip',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
]);
export const servedType = (mime: string | null): string =>
  mime !== null && ATTACHMENT_TYPES.has(mime) ? mime : 'application/octet-stream';

/** Office 97–2003 formats share one container (CFB): the name or declared type tells which. */
const CFB_BY_EXTENSION: Record<string, string> = {
  doc: 'application/msword',
  dot: 'application/msword',
  xls: 'application/vnd.ms-excel',
  xlt: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  pps: 'application/vnd.ms-powerpoint',
};
const CFB_TYPES = new Set(Object.values(CFB_BY_EXTENSION));

const extensionOf = (name: string | null) =>
  name && /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase();

/**
 * What the sniffer looks at first: a file's first 64 KB, which the store keeps in memory as the
 * file streams in (every magic number file-type knows sits there, bar a ZIP's inner names or
 * what follows a large ID3 tag: for those the file itself is read).
 */
export const SNIFF_HEAD_BYTES = 64 * 1024;

/**
 * How much of a received file's start the store keeps for the sniffer, by the kind it was sent
 * as: an image's, a sound's or a video's magic number sits in the first 4,100 bytes (file-type's
 * own detection size; else the file is read), a document's first 64 KB also tell text from
 * binary. Fewer bytes held per download while many run at once.
 */
export const sniffHeadBytes = (kind: MediaType): number =>
  kind === 'document' ? SNIFF_HEAD_BYTES : 4100;

/** A file to sniff: where it is, its size and its first bytes (up to SNIFF_HEAD_BYTES). */
export interface Sniffable {
  path: string;
  size: number;
  head: Buffer;
}

/** A path's first bytes and size (read through the thread pool), for a file given by name. */
async function sniffable(file: string | Sniffable): Promise<Sniffable> {
  if (typeof file !== 'string') return file;
  const f = await fs.promises.open(file, 'r');
  try {
    const { size } = await f.stat();
    const head = Buffer.alloc(Math.min(size, SNIFF_HEAD_BYTES));
    const { bytesRead } = await f.read(head, 0, head.length, 0);
    return { path: file, size, head: head.subarray(0, bytesRead) };
  } finally {
    await f.close();
  }
}

/** Plain text: no NUL byte and valid UTF-8 in its first 64 KB (no magic number says so). */
function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  // A multi-byte character cut at the end of the window is not an error.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  const bad = text.indexOf('\uFFFD');
  return bad === -1 || bad >= text.length - 2;
}

/** A textual format the browser might run (markup, scripts, vector images): never text/plain. */
const looksLikeMarkup = (head: Buffer): boolean => {
  const start = head.subarray(0, 1024).toString('utf8').trimStart().slice(0, 200).toLowerCase();
  return /^(<\?xml|<!doctype|<html|<svg|<script|<head|<body|<!--)/.test(start);
};

/** Formats whose kind the head may not tell (a ZIP's names: Word, Excel, PowerPoint, EPUB). */
const DEEPER = new Set(['application/zip']);

/**
 * The sniffed MIME type (normalised), or null when the bytes name no known format: from the
 * first bytes in memory; the file is read only when they do not settle it.
 */
export async function sniff(file: string | Sniffable): Promise<string | null> {
  const f = await sniffable(file);
  let found = await fileTypeFromBuffer(f.head);
  if ((!found || DEEPER.has(found.mime)) && f.size > f.head.length) {
    found = (await fileTypeFromFile(f.path)) ?? found;
  }
  return found ? normalizeMime(found.mime) : null;
}

export type Verdict = { ok: true; mimeType: string } | { ok: false; reason: string };

const KIND_WORDS: Record<MediaType, string> = {
  image: 'an image (JPEG, PNG, WebP or GIF)',
  sticker: 'a WebP sticker',
  audio: 'an audio file',
  video: 'a video',
  document: 'a document',
};

/**
 * A received file of a declared kind: what its bytes must be. Images, stickers, audio and video
 * must be what they claim; a document may be any file (customers send photos as documents too),
 * and what the bytes do not name is served as a download of application/octet-stream (or plain
 * text when it is text and was declared so).
 */
export async function checkReceived(
  given: string | Sniffable,
  kind: MediaType,
  declared: string | null,
): Promise<Verdict> {
  const file = await sniffable(given);
  const sniffed = await sniff(file);
  const said = declared ? normalizeMime(declared) : null;
  const mismatch = (): Verdict => ({
    ok: false,
    reason: `declared ${KIND_WORDS[kind]}${said ? ` (${said})` : ''}, but the file is ${sniffed ? sniffed : 'not a format we recognise'}`,
  });
  switch (kind) {
    case 'image':
      return sniffed && INLINE_IMAGES.has(sniffed) ? { ok: true, mimeType: sniffed } : mismatch();
    case 'sticker':
      return sniffed === 'image/webp' || sniffed === 'image/png'
        ? { ok: true, mimeType: sniffed }
        : mismatch();
    case 'audio':
      // Some phones record voice notes in an MP4 container that names no audio brand.
      return sniffed &&
        (sniffed.startsWith('audio/') || sniffed === 'video/mp4' || sniffed === 'video/3gpp')
        ? { ok: true, mimeType: sniffed.startsWith('audio/') ? sniffed : 'audio/mp4' }
        : mismatch();
    case 'video':
      return sniffed && sniffed.startsWith('video/') ? { ok: true, mimeType: sniffed } : mismatch();
    case 'document': {
      if (sniffed === 'application/x-cfb') {
        return { ok: true, mimeType: said && CFB_TYPES.has(said) ? said : sniffed };
      }
      if (sniffed) return { ok: true, mimeType: sniffed };
      const text =
        said !== null && /^text\/(plain|csv)$/.test(said) && !looksLikeMarkup(file.head)
          ? looksLikeText(file.head)
          : false;
      return { ok: true, mimeType: text ? said! : 'application/octet-stream' };
    }
  }
}

/**
 * An upload to send: the type Meta accepts that its bytes are, and so its kind (a PNG or JPEG
 * is an image, a WebP a sticker, …); `wanted` asks for a kind (one of Meta's lists for it: a
 * type the kind does not take is refused). Office 97–2003 and text files are told apart by name
 * or declared type.
 */
export async function checkUpload(
  given: string | Sniffable,
  opts: { declared: string | null; fileName: string | null; wanted: MediaType | null },
): Promise<{ ok: true; kind: MediaType; mimeType: string } | { ok: false; reason: string }> {
  const file = await sniffable(given);
  let mime = await sniff(file);
  const said = opts.declared ? normalizeMime(opts.declared) : null;
  if (mime === 'application/x-cfb') {
    const byName = CFB_BY_EXTENSION[extensionOf(opts.fileName) ?? ''];
    mime = byName ?? (said && CFB_TYPES.has(said) ? said : null);
    if (!mime) {
      return {
        ok: false,
        reason: 'an Office 97–2003 file needs its name (.doc, .xls or .ppt) or its type to be sent',
      };
    }
  }
  if (mime === null) {
    const textual =
      (said === 'text/plain' || extensionOf(opts.fileName) === 'txt') &&
      !looksLikeMarkup(file.head) &&
      looksLikeText(file.head);
    if (!textual) {
      return {
        ok: false,
        reason:
          'the file is not a type WhatsApp takes: JPEG or PNG images, WebP stickers, AAC, AMR, MP3, M4A or Opus (OGG) audio, MP4 or 3GP video, and PDF, Word, Excel, PowerPoint or plain-text documents',
      };
    }
    mime = 'text/plain';
  }
  const kinds = (Object.keys(SENDABLE_MIME_TYPES) as MediaType[]).filter((k) =>
    SENDABLE_MIME_TYPES[k].includes(mime!),
  );
  if (kinds.length === 0) {
    return {
      ok: false,
      reason: `the file is ${mime}, which WhatsApp does not take: JPEG or PNG images, WebP stickers, AAC, AMR, MP3, M4A or Opus (OGG) audio, MP4 or 3GP video, and PDF, Word, Excel, PowerPoint or plain-text documents`,
    };
  }
  if (opts.wanted && !kinds.includes(opts.wanted)) {
    return { ok: false, reason: `the file is ${mime}, not ${KIND_WORDS[opts.wanted]}` };
  }
  return { ok: true, kind: opts.wanted ?? kinds[0]!, mimeType: mime };
}

/**
 * The limit an upload's first bytes allow (the type they begin is the type it is): a PNG may
 * not grow past an image's 5 MB while it streams in. Unknown beginnings get the largest limit
 * (plain text is a document); the whole file is checked once it is in.
 */
export async function uploadLimitFromHead(head: Buffer): Promise<number> {
  const found = await fileTypeFromBuffer(head);
  const mime = found ? normalizeMime(found.mime) : null;
  const kinds = (Object.keys(SENDABLE_MIME_TYPES) as MediaType[]).filter(
    (k) => mime !== null && SENDABLE_MIME_TYPES[k].includes(mime),
  );
  return kinds.length === 0
    ? MEDIA_LIMITS.document
    : Math.max(...kinds.map((k) => MEDIA_LIMITS[k]));
}
