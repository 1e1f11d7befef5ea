import { z } from 'zod';
import { isoDate } from './common.ts';

/**
 * Media (design.md §5 "Media, reactions, quotes"): what a photo, voice note, video, document or
 * sticker is in Parley, with WhatsApp's own limits. Files live content-addressed in the data dir
 * (`media/<sha256>`); a media record names one, in one workspace and environment.
 */
export const MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

const MiB = 1024 * 1024;
/** Meta's limits per type (bytes): a file over its limit is refused before it is written. */
export const MEDIA_LIMITS: Readonly<Record<MediaType, number>> = {
  image: 5 * MiB,
  audio: 16 * MiB,
  video: 16 * MiB,
  document: 100 * MiB,
  sticker: 500 * 1024,
};
/** The largest file of any type (a multipart upload's cap). */
export const MEDIA_MAX_BYTES = MEDIA_LIMITS.document;

/**
 * What the WhatsApp Cloud API accepts to send, per type (MIME types as sniffed from the bytes,
 * normalised: `audio/ogg` is Opus, `audio/mp4` includes `.m4a`).
 */
export const SENDABLE_MIME_TYPES: Readonly<Record<MediaType, readonly string[]>> = {
  image: ['image/jpeg', 'image/png'],
  sticker: ['image/webp'],
  audio: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
  video: ['video/mp4', 'video/3gpp'],
  document: [
    'application/pdf',
    'text/plain',
    'application/msword',
    'application/vnd.ms-excel',
    'application/vnd.ms-powerpoint',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
};

export const MEDIA_STATUSES = ['pending', 'ready', 'failed', 'expired'] as const;
export type MediaStatus = (typeof MEDIA_STATUSES)[number];

/** How long a voice note, audio file or video plays, read from its file once stored. */
const mediaDuration = z
  .number()
  .int()
  .nonnegative()
  .nullable()
  .describe(
    'how long the audio or video plays, in whole milliseconds (from the file once stored); null for other types, while pending, or when the file does not say',
  );

/** A stored media record (`POST /media`'s answer, `GET /media/:id/info`). */
export const mediaSchema = z.object({
  id: z.string(),
  type: z.enum(MEDIA_TYPES),
  mimeType: z.string().nullable().describe('as sniffed from the bytes once stored'),
  size: z.number().int().nullable().describe('bytes'),
  sha256: z.string().nullable().describe('hex SHA-256 of the file'),
  fileName: z.string().nullable(),
  durationMs: mediaDuration,
  status: z
    .enum(MEDIA_STATUSES)
    .describe(
      'pending: being fetched; ready: stored (GET /media/:id serves it); failed: see `error` (POST /media/:id/retry); expired: past retention, the file is gone',
    ),
  error: z.string().nullable().describe('why the file could not be fetched or kept'),
  createdAt: isoDate,
});
export type Media = z.infer<typeof mediaSchema>;

/** What a message says about its media (`message.media`). */
export const messageMediaSchema = z.object({
  id: z.string().describe('the media id: GET /media/:id serves the file'),
  type: z.enum(MEDIA_TYPES),
  mimeType: z.string().nullable(),
  size: z.number().int().nullable(),
  sha256: z.string().nullable(),
  caption: z.string().nullable(),
  fileName: z.string().nullable(),
  voice: z.boolean().describe('audio recorded as a voice note'),
  durationMs: mediaDuration,
  status: z.enum(MEDIA_STATUSES),
  error: z.string().nullable(),
});
export type MessageMedia = z.infer<typeof messageMediaSchema>;

export const locationSchema = z.object({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  name: z.string().max(1000).optional(),
  address: z.string().max(1000).optional(),
  url: z.string().max(2000).optional(),
});
export type Location = z.infer<typeof locationSchema>;

/** A contact card the customer shared (Meta's `contacts[]`, the parts a desk uses). */
export const sharedContactSchema = z.object({
  name: z.string().nullable().describe('the formatted name'),
  phones: z.array(
    z.object({
      phone: z.string(),
      waId: z.string().nullable().describe('the WhatsApp id when the number is on WhatsApp'),
      type: z.string().nullable(),
    }),
  ),
  emails: z.array(z.object({ email: z.string(), type: z.string().nullable() })),
  organization: z.string().nullable(),
});
export type SharedContact = z.infer<typeof sharedContactSchema>;

export const mediaLinkSchema = z.object({
  url: z
    .string()
    .describe('a path on this server (`/media/:id/content?exp=…&sig=…`) that needs no credential'),
  expiresAt: isoDate,
});

export const mediaQuery = z.object({
  download: z
    .enum(['1', 'true'])
    .optional()
    .describe('serve as an attachment (a download), whatever the type'),
});
export const signedMediaQuery = mediaQuery.extend({
  exp: z.string().regex(/^\d{1,13}$/, 'exp is unix seconds'),
  sig: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'sig is the signature the link came with'),
});

export const reactionBody = z.object({
  emoji: z.string().max(32).describe('one emoji; an empty string takes the reaction back'),
});
