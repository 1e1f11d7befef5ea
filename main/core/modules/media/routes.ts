import Busboy from '@fastify/busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../../shared/errors.ts';
import { idParams } from '../../../../shared/schemas/common.ts';
import type { MediaType } from '../../../../shared/schemas/media.ts';
import {
  MEDIA_MAX_BYTES,
  MEDIA_TYPES,
  mediaLinkSchema,
  mediaQuery,
  mediaSchema,
  signedMediaQuery,
} from '../../../../shared/schemas/media.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import { sendStored } from '../../http/idempotency.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { withZod } from '../../http/types.ts';
import { isInline, servedType } from '../../media/sniff.ts';
import type { PendingFile } from '../../media/store.ts';
import type { MediaRow } from './repo.ts';
import type { MediaService } from './service.ts';
import { contentDisposition, downloadName, LINK_TTL_MS } from './service.ts';

const tags = ['Media'];

/** A multipart body: read by the route as it arrives (never buffered whole). */
class MultipartUpload {
  readonly streamed = true as const;
  constructor(
    readonly headers: FastifyRequest['headers'],
    readonly stream: Readable,
  ) {}
}

const FILE_RESPONSE: OperationDocs['responseMedia'] = {
  '*/*': {
    schema: {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description:
        'The file. Raster images (JPEG, PNG, WebP, GIF), audio and video are served inline with their type; anything else as an attachment (`application/octet-stream` unless a known document type). Always `X-Content-Type-Options: nosniff`; `Range: bytes=…` is honoured (206).',
    },
  },
};

const UPLOAD_DOCS: OperationDocs = {
  requestMedia: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        properties: {
          file: {
            type: 'string',
            contentMediaType: 'application/octet-stream',
            description: `the file (at most ${MEDIA_MAX_BYTES / (1024 * 1024)} MB; each type has WhatsApp's own limit)`,
          },
          type: {
            type: 'string',
            enum: [...MEDIA_TYPES],
            description:
              'send it as this kind (optional: by default the kind its bytes are — a PNG or JPEG is an image, a WebP a sticker)',
          },
          fileName: {
            type: 'string',
            maxLength: 240,
            description: 'overrides the part’s filename',
          },
        },
        required: ['file'],
      },
    },
  },
  responseExample: {
    id: 'med_7Gh2kQ9xZr',
    type: 'image',
    mimeType: 'image/png',
    size: 20480,
    sha256: 'c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a',
    fileName: 'label.png',
    durationMs: null,
    status: 'ready',
    error: null,
    createdAt: '2026-01-05T10:00:00.000Z',
  },
};

/** `bytes=a-b` (one range), inside the file; null when absent or not one we serve. */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start <= end && start < size ? { start, end } : null;
}

/**
 * Serves a ready record's file with safe headers (design.md §5): inline only for raster images,
 * audio and video; everything else (SVG, HTML, executables, documents) as a download, never
 * sniffed, sandboxed if opened; cached privately (the bytes behind an id never change).
 */
function serve(
  media: MediaService,
  req: FastifyRequest,
  reply: FastifyReply,
  row: MediaRow,
  opts: { download: boolean; maxAgeSeconds: number },
) {
  const file = media.fileOf(row);
  const size = fs.statSync(file).size;
  const inline = !opts.download && isInline(row.mime_type);
  const etag = `"${row.sha256}"`;
  reply.headers({
    'content-type': inline ? row.mime_type! : servedType(row.mime_type),
    'content-disposition': contentDisposition(inline ? 'inline' : 'attachment', downloadName(row)),
    'cache-control': `private, max-age=${Math.max(0, opts.maxAgeSeconds)}, immutable`,
    etag,
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
    'cross-origin-resource-policy': 'same-origin',
  });
  if (req.headers['if-none-match'] === etag) return reply.code(304).send();
  if (req.method === 'HEAD') return reply.header('content-length', String(size)).send();
  const range = rangeOf(req.headers.range, size);
  if (range) {
    reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', String(range.end - range.start + 1));
    return reply.send(fs.createReadStream(file, range));
  }
  reply.header('content-length', String(size));
  return reply.send(fs.createReadStream(file));
}

/** Reads a multipart upload: one `file` part (streamed to the store), `type` and `fileName`. */
function readUpload(
  media: MediaService,
  body: MultipartUpload,
): Promise<{
  fields: { type: MediaType | null; fileName: string | null };
  part: { fileName: string | null; mimeType: string | null } | null;
  file: PendingFile | null;
}> {
  return new Promise((resolve, reject) => {
    const fields: { type: MediaType | null; fileName: string | null } = {
      type: null,
      fileName: null,
    };
    let part: { fileName: string | null; mimeType: string | null } | null = null;
    let upload: Promise<PendingFile> | null = null;
    let failed: unknown = null;
    const unreadable = (e: unknown) =>
      new ApiError(
        'validation_error',
        `the multipart body cannot be read: ${e instanceof Error ? e.message : String(e)}`,
        { param: 'file' },
      );
    let bb: ReturnType<typeof Busboy>;
    try {
      bb = Busboy({
        headers: body.headers as { 'content-type': string },
        limits: {
          files: 1,
          fields: 5,
          parts: 6,
          fieldSize: 1024,
          // The store counts and refuses past the type's limit; this only stops a runaway part.
          fileSize: MEDIA_MAX_BYTES + 1,
        },
      });
    } catch (e) {
      body.stream.resume();
      reject(unreadable(e));
      return;
    }
    const fail = (e: unknown) => {
      failed ??= e;
      // The rest of the body is read and dropped, so the answer goes out on a clean connection.
      body.stream.unpipe(bb);
      body.stream.resume();
      settle();
    };
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      void (async () => {
        let file: PendingFile | null = null;
        try {
          file = upload ? await upload : null;
        } catch (e) {
          failed ??= e;
        }
        if (failed) {
          file?.discard();
          reject(failed);
        } else resolve({ fields, part, file });
      })();
    };
    bb.on('field', (name, value) => {
      if (name === 'type') {
        if (!(MEDIA_TYPES as readonly string[]).includes(value)) {
          fail(
            new ApiError('validation_error', `type must be one of ${MEDIA_TYPES.join(', ')}`, {
              param: 'type',
            }),
          );
          return;
        }
        fields.type = value as MediaType;
      } else if (name === 'fileName') fields.fileName = value.trim().slice(0, 240) || null;
    });
    bb.on('file', (name, stream, fileName, _encoding, mimeType) => {
      if (name !== 'file' || upload) {
        stream.resume();
        return;
      }
      part = {
        fileName: fileName ? fileName.slice(0, 240) : null,
        mimeType: mimeType && mimeType !== 'application/octet-stream' ? mimeType : null,
      };
      upload = media.receiveUpload(stream);
      upload.catch((e: unknown) => {
        stream.resume();
        fail(e);
      });
    });
    bb.on('error', (e: unknown) => fail(unreadable(e)));
    bb.on('finish', settle);
    body.stream.on('error', (e) => fail(e));
    body.stream.pipe(bb);
  });
}

/**
 * Media (design.md §5): uploads to send, files served to their scope, signed links for the
 * desktop window, a failed download tried again.
 */
export const mediaRoutes: RegisterRoutes = (app, { media }) => {
  // Multipart bodies are taken by this route only: everywhere else they stay 415.
  app.register(async (scoped) => {
    scoped.addContentTypeParser('multipart/form-data', (req, payload, done) =>
      done(null, new MultipartUpload(req.headers, payload)),
    );
    const upload = withZod(scoped);
    upload.post(
      '/media',
      {
        config: { right: 'send', docs: UPLOAD_DOCS },
        schema: {
          operationId: 'uploadMedia',
          tags,
          summary: 'Upload a file to send (multipart): checked by its bytes and WhatsApp’s limits',
          description:
            'One `file` part. Its bytes decide its type (never its name or declared type): JPEG or PNG images (5 MB), WebP stickers (500 KB), AAC, AMR, MP3, M4A or Opus/OGG audio (16 MB), MP4 or 3GP video (16 MB), PDF, Word, Excel, PowerPoint or plain-text documents (100 MB). Anything else answers 415 `unsupported_media_type`; a file over its limit 413 `payload_too_large`, refused before more of it is written. Send it with `POST /api/send-media` or a conversation reply with `mediaId`; an upload no message uses is removed after a day.',
          response: { 201: mediaSchema },
        },
      },
      async (req, reply) => {
        const body = req.body as unknown;
        if (!(body instanceof MultipartUpload)) {
          throw new ApiError(
            'unsupported_media_type',
            'send the file as multipart/form-data with a `file` part',
          );
        }
        const { fields, part, file } = await readUpload(media, body);
        if (!file || !part) {
          throw new ApiError('validation_error', 'the body has no `file` part', { param: 'file' });
        }
        const fileName = fields.fileName ?? part.fileName;
        // The upload's Idempotency-Key covers its bytes and fields.
        const stored = scoped.bindStreamedBody(
          req,
          createHash('sha256')
            .update(`${file.sha256}\n${fields.type ?? ''}\n${fileName ?? ''}`)
            .digest('hex'),
        );
        if (stored) {
          file.discard();
          return sendStored(reply, stored);
        }
        const accepted = await media.acceptUpload(file, {
          declared: part.mimeType,
          fileName,
          wanted: fields.type,
        });
        reply.code(201);
        const result = scoped.commitWithResponse(req, reply, () => accepted.commit(req.principal));
        if (result === reply) {
          file.discard();
          return reply;
        }
        return result;
      },
    );
  });

  app.get(
    '/media/:id',
    {
      config: {
        right: 'inbox',
        docs: { responseMedia: FILE_RESPONSE, replaceResponseMedia: true },
      },
      schema: {
        operationId: 'getMediaFile',
        tags,
        summary: 'The file of a media record of the caller’s scope',
        description:
          'Another workspace’s or environment’s id answers 404, as do files still being fetched, failed or expired (`details.status`). `?download=1` serves any type as an attachment. For an <img> in the desktop window (which authenticates by header), use `GET /media/:id/link`.',
        params: idParams,
        querystring: mediaQuery,
      },
    },
    async (req, reply) =>
      serve(media, req, reply, media.find(req.principal, req.params.id), {
        download: req.query.download !== undefined,
        maxAgeSeconds: 3600,
      }),
  );

  app.get(
    '/media/:id/link',
    {
      config: {
        right: 'inbox',
        docs: {
          responseExample: {
            url: '/media/med_7Gh2kQ9xZr/content?exp=1767650400&sig=3q2-7w9K1cR6bXy0a8Vd4mZtLpQeNn2sHuJfGk5oTwI',
            expiresAt: '2026-01-05T22:00:00.000Z',
          },
        },
      },
      schema: {
        operationId: 'getMediaLink',
        tags,
        summary: 'A short-lived link to the file that needs no credential (for <img>, <audio>)',
        description: `A path on this server, signed for this record and scope, valid ${LINK_TTL_MS / 3600_000} hours and until the core restarts; it serves the file as \`GET /media/:id\` does. Links are for the desktop window (its requests carry a header, which an <img> cannot); a browser session may use \`GET /media/:id\` directly.`,
        params: idParams,
        response: { 200: mediaLinkSchema },
      },
    },
    async (req) => media.link(req.principal, req.params.id),
  );

  app.post(
    '/media/:id/retry',
    {
      config: { right: 'inbox', docs: { errors: ['invalid_state'] } },
      schema: {
        operationId: 'retryMediaDownload',
        tags,
        summary: 'Fetch a received file again after its download failed',
        description:
          'Only a `failed` record (409 `invalid_state` otherwise). It goes back to `pending`; `message.media_ready` or `message.media_failed` follows.',
        params: idParams,
        response: { 200: mediaSchema },
      },
    },
    (req) => media.retry(req.principal, req.params.id),
  );
};

/**
 * `GET /media/:id/content?exp=…&sig=…`: a signed link's file, without a credential (its
 * signature is its proof; a wrong, expired or forged one answers 404 like an unknown id).
 * Registered outside the API's auth with its own rate limit: a thread loads many at once.
 */
export function registerMediaContent(
  app: FastifyInstance,
  media: MediaService,
  limit: (req: FastifyRequest) => void,
  clockNow: () => number,
) {
  app.addHook('onRequest', async (req) => limit(req));
  const zapp = withZod(app);
  zapp.get(
    '/media/:id/content',
    {
      config: {
        right: 'public',
        docs: { responseMedia: FILE_RESPONSE, replaceResponseMedia: true },
      },
      schema: {
        operationId: 'getMediaFileByLink',
        tags,
        summary: 'A media file by its signed link (`GET /media/:id/link`)',
        description:
          'No credential: the link’s signature is its proof. A wrong, expired or forged link answers 404.',
        security: [],
        params: idParams,
        querystring: signedMediaQuery,
      },
    },
    async (req, reply) => {
      const row = media.verifyLink(req.params.id, req.query.exp, req.query.sig);
      if (!row) throw new ApiError('not_found', 'this media link is unknown or expired');
      return serve(media, req, reply, row, {
        download: req.query.download !== undefined,
        maxAgeSeconds: Math.floor((Number(req.query.exp) * 1000 - clockNow()) / 1000),
      });
    },
  );
}
