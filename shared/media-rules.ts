/**
 * What the desk may attach to a reply (README "Media, reactions and quotes"): a file's kind from
 * its declared type or its name, whether WhatsApp takes it, and whether it is within the kind's
 * limit — said in plain words. The composer checks a file with these before uploading it; the
 * core checks the bytes themselves again (`POST /media` sniffs them). No zod, no Node, no DOM.
 */
import { MEDIA_LIMITS, SENDABLE_MIME_TYPES, type MediaType } from './schemas/media.ts';

/** What a browser (or an OS) knows of a file before it is read. */
export interface FileFacts {
  name: string;
  /** The declared MIME type ('' when the system does not know it). */
  type: string;
  size: number;
}

export type AttachmentCheck =
  | { ok: true; kind: MediaType; mimeType: string }
  | { ok: false; kind: MediaType | null; reason: string };

/** How many files one reply may carry (each is sent as its own message). */
export const MAX_ATTACHMENTS = 10;

/** WhatsApp's caption limit (the reply's `caption`). */
export const CAPTION_MAX = 1024;

/** The longest document name a reply's `fileName` takes. */
export const FILE_NAME_MAX = 240;

/** The extensions of the file types the Cloud API takes (for files whose type the system left out). */
const EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  'image/jpeg': ['jpg', 'jpeg', 'jpe'],
  'image/png': ['png'],
  'image/webp': ['webp'],
  'audio/aac': ['aac'],
  'audio/amr': ['amr'],
  'audio/mpeg': ['mp3'],
  'audio/mp4': ['m4a'],
  'audio/ogg': ['ogg', 'oga', 'opus'],
  'video/mp4': ['mp4', 'm4v'],
  'video/3gpp': ['3gp', '3gpp'],
  'application/pdf': ['pdf'],
  'text/plain': ['txt'],
  'application/msword': ['doc', 'dot'],
  'application/vnd.ms-excel': ['xls', 'xlt'],
  'application/vnd.ms-powerpoint': ['ppt', 'pps'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['xlsx'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['pptx'],
};
const BY_EXTENSION: ReadonlyMap<string, string> = new Map(
  Object.entries(EXTENSIONS).flatMap(([mime, exts]) => exts.map((ext) => [ext, mime] as const)),
);

/** The sendable MIME type a file name's extension stands for, or null ("invoice.PDF" → PDF). */
export const mimeOfExtension = (name: string): string | null =>
  BY_EXTENSION.get(extensionOf(name)) ?? null;

/** Browsers' and systems' other names for the types WhatsApp lists. */
const MIME_ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-aac': 'audio/aac',
  'audio/aacp': 'audio/aac',
  'audio/opus': 'audio/ogg',
  'audio/x-amr': 'audio/amr',
  'video/3gpp2': 'video/3gpp',
  'video/x-m4v': 'video/mp4',
};

/** An attachment input's `accept`: every type and extension WhatsApp takes. */
export const ATTACH_ACCEPT = [
  ...Object.values(SENDABLE_MIME_TYPES).flat(),
  ...[...BY_EXTENSION.keys()].map((ext) => `.${ext}`),
].join(',');

/** What WhatsApp takes, in words (a refusal says it after its reason). */
export const SENDABLE_IN_WORDS =
  'WhatsApp takes JPEG or PNG photos, WebP stickers, MP3, M4A, AAC, AMR or OGG audio, MP4 or 3GP videos, and PDF, Word, Excel, PowerPoint or text documents.';

/** Who a limit is for, in a sentence ("Photos can be up to 5 MB"). */
const LIMIT_NOUN: Readonly<Record<MediaType, string>> = {
  image: 'Photos',
  sticker: 'Stickers (WebP images)',
  audio: 'Audio files',
  video: 'Videos',
  document: 'Documents',
};

/** A file's extension, lower case, without the dot ('' for none). */
export function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(name.trim());
  return match ? match[1]!.toLowerCase() : '';
}

const normalMime = (type: string): string => {
  const mime = type.split(';', 1)[0]!.trim().toLowerCase();
  return MIME_ALIASES[mime] ?? mime;
};

const kindOfMime = (mime: string): MediaType | null =>
  (Object.keys(SENDABLE_MIME_TYPES) as MediaType[]).find((kind) =>
    SENDABLE_MIME_TYPES[kind].includes(mime),
  ) ?? null;

/**
 * The kind WhatsApp sends a file as, and its MIME type: from its declared type when WhatsApp
 * takes that, else from its name's extension; null when it takes neither. (The core decides by
 * the bytes; this is what the desk can know before uploading.)
 */
export function attachmentKind(
  file: Pick<FileFacts, 'name' | 'type'>,
): { kind: MediaType; mimeType: string } | null {
  for (const mime of [normalMime(file.type), mimeOfExtension(file.name) ?? '']) {
    const kind = mime ? kindOfMime(mime) : null;
    if (kind) return { kind, mimeType: mime };
  }
  return null;
}

const trimmed = (n: number): string => String(Number(n.toFixed(1)));

/** A size in words: "812 bytes", "500 KB", "1.5 KB", "7.2 MB" (1 KB = 1,024 bytes, as Meta counts). */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1023.95 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? String(Math.round(value)) : trimmed(value)} ${units[unit]}`;
}

/** Why a file is over its kind's limit: "Photos can be up to 5 MB; this one is 7.2 MB." */
export function tooLargeReason(kind: MediaType, size: number, limit = MEDIA_LIMITS[kind]): string {
  const said = formatFileSize(size);
  const max = formatFileSize(limit);
  const own = limit === MEDIA_LIMITS[kind];
  const noun = own ? LIMIT_NOUN[kind] : 'Files of this type';
  const sticker =
    own && kind === 'sticker'
      ? ' WhatsApp sends WebP images as stickers: save it as a JPEG or PNG.'
      : '';
  return `${noun} can be up to ${max}; this one is ${said === max ? `just over ${max}` : said}.${sticker}`;
}

/** Why WhatsApp will not take a file of this name and type. */
export function unsupportedReason(file: Pick<FileFacts, 'name' | 'type'>): string {
  const ext = extensionOf(file.name);
  const what = ext
    ? `.${ext} files`
    : file.type
      ? `this kind of file (${normalMime(file.type)})`
      : 'this kind of file';
  return `WhatsApp can’t send ${what}. ${SENDABLE_IN_WORDS}`;
}

/**
 * Why the core refused a file by its bytes (415: it sniffs them): what they really are, when
 * it said, since the name and declared type looked right here.
 */
export function contentsReason(sniffedMime: string | null): string {
  const what = sniffedMime ? `are ${sniffedMime}` : 'are not a type it takes';
  return `WhatsApp can’t send this file: its contents ${what}, whatever its name says. ${SENDABLE_IN_WORDS}`;
}

/** Whether a file may be attached: its kind, or the reason it may not, in plain words. */
export function checkAttachment(file: FileFacts): AttachmentCheck {
  const found = attachmentKind(file);
  if (!found) return { ok: false, kind: null, reason: unsupportedReason(file) };
  if (file.size === 0) return { ok: false, kind: found.kind, reason: 'This file is empty.' };
  if (file.size > MEDIA_LIMITS[found.kind]) {
    return { ok: false, kind: found.kind, reason: tooLargeReason(found.kind, file.size) };
  }
  return { ok: true, ...found };
}

/** WhatsApp sends voice notes, audio and stickers without a caption. */
export const takesCaption = (kind: MediaType): boolean => kind !== 'audio' && kind !== 'sticker';

/**
 * The name a document is sent with (only documents carry one): the file's own, shortened to
 * what the API takes and keeping its extension.
 */
export function sentFileName(kind: MediaType, name: string): string | undefined {
  if (kind !== 'document') return undefined;
  const clean = name.trim();
  if (!clean) return undefined;
  if (clean.length <= FILE_NAME_MAX) return clean;
  const ext = extensionOf(clean);
  const tail = ext ? `.${ext}` : '';
  return `${clean.slice(0, FILE_NAME_MAX - tail.length - 1).trimEnd()}…${tail}`;
}
