import type { Database as Db } from 'better-sqlite3';
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../../shared/errors.ts';
import type { Media, MediaType } from '../../../../shared/schemas/media.ts';
import { MEDIA_LIMITS, MEDIA_MAX_BYTES } from '../../../../shared/schemas/media.ts';
import { GraphError, GraphUnreachable, NotGraph } from '../../channel/cloud-api.ts';
import { privateDir, privateFile } from '../../files.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import { mediaDurationMs } from '../../media/duration.ts';
import { readSample, sampleFor, sampleName } from '../../media/samples.ts';
import {
  checkReceived,
  checkUpload,
  sniffHeadBytes,
  uploadLimitFromHead,
} from '../../media/sniff.ts';
import type { MediaStore, PendingFile } from '../../media/store.ts';
import { formatFileSize } from '../../../../shared/media-rules.ts';
import { MediaTooLarge } from '../../media/store.ts';
import type { Clock, IdGenerator, Random, Scope } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import type { ChannelService } from '../channel/service.ts';
import type { MediaRow } from './repo.ts';
import { mediaRepo } from './repo.ts';

const DAY_MS = 24 * 3600_000;
/** A kind of file in a sentence ("over the 5 MB an image may have"). */
const A: Record<MediaType, string> = {
  image: 'an image',
  audio: 'an audio file',
  video: 'a video',
  document: 'a document',
  sticker: 'a sticker',
};
/** How long a signed link (`GET /media/:id/content?exp=…&sig=…`) opens its file. */
export const LINK_TTL_MS = 12 * 3600_000;
/** An upload no message used is kept this long (Meta keeps uploads 30 days; we need it once). */
export const UNUSED_UPLOAD_MS = DAY_MS;
export const DOWNLOAD_ATTEMPTS = 6;

/** A media record's status changed to ready or failed (the messages module tells its messages). */
export type MediaListener = (row: MediaRow) => void;

/** What a received media message names: Meta's id (live) or one of the simulator's samples. */
export type InboundMedia = {
  kind: MediaType;
  declaredMimeType: string | null;
  fileName: string | null;
  voice: boolean;
} & (
  | {
      origin: 'cloud_api';
      providerId: string;
      businessAccountId: string;
      declaredSha256: string | null;
    }
  | { origin: 'simulator' }
);

/** A failure that retrying will not mend (the file is gone at Meta, too large, not what it says). */
class Final extends Error {}

/** `a1b2…` (hex) or base64 of the same 32 bytes: Meta's webhooks give base64, others hex. */
function sameSha(declared: string, hex: string): boolean {
  const d = declared.trim();
  if (/^[0-9a-f]{64}$/i.test(d)) return d.toLowerCase() === hex;
  const bytes = Buffer.from(d, 'base64');
  return bytes.length !== 32 || bytes.toString('hex') === hex;
}

/** `Content-Disposition` with an ASCII fallback and the name itself (RFC 6266 / RFC 8187). */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_') || 'file';
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'audio/wav': 'wav',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};
/** A file's name for a download: its own, or `<kind>-<id>.<ext>`. */
export const downloadName = (row: Pick<MediaRow, 'id' | 'kind' | 'mime_type' | 'file_name'>) =>
  row.file_name ?? `${row.kind}-${row.id}.${EXTENSIONS[row.mime_type ?? ''] ?? 'bin'}`;

/**
 * Media records and their files (design.md §5): received files fetched by a durable job (the
 * Graph media endpoint, or the simulator's samples), uploads checked by their bytes, files
 * served to their scope only, signed links for the desktop window's <img>, retention.
 */
export function mediaService(d: {
  db: Db;
  clock: Clock;
  random: Random;
  ids: IdGenerator;
  scheduler: Scheduler;
  store: MediaStore;
  channels: Pick<ChannelService, 'clientForAccount'>;
  log: (message: string, error?: unknown) => void;
  /** Days a file is kept (README "Retention"). */
  retentionDays: number;
}) {
  const { db, clock, scheduler, store } = d;
  const repo = mediaRepo(db);
  // What a killed process left half-received (an hour old: never a transfer in flight).
  store.sweepIncoming();
  const listeners = new Set<MediaListener>();
  // Signed links die with the process (the desktop's session token does too).
  const linkKey = d.random.bytes(32);

  const view = (r: MediaRow): Media => ({
    id: r.id,
    type: r.kind,
    mimeType: r.mime_type,
    size: r.size,
    sha256: r.sha256,
    fileName: r.file_name,
    durationMs: r.duration_ms,
    status: r.status,
    error: r.error,
    createdAt: iso(r.created_at),
  });

  function find(scope: Scope, id: string): MediaRow {
    const row = repo.inScope(id, scope.workspaceId, scope.environment);
    if (!row) throw new ApiError('not_found', `no media ${id}`);
    return row;
  }

  /** Ready or failed, with its listeners told, in the caller's transaction. */
  function settle(
    id: string,
    outcome: { ok: true; file: PendingFile; mimeType: string; durationMs: number | null } | string,
  ) {
    const now = clock.now();
    let changed: boolean;
    if (typeof outcome === 'string') {
      changed = repo.markFailed(id, outcome.slice(0, 500), now);
    } else {
      // In place inside the transaction: retention removes a file in its own, so one
      // being removed while this one arrives cannot both happen.
      const stored = outcome.file.commit();
      changed = repo.markReady(
        id,
        {
          mime_type: outcome.mimeType,
          size: stored.size,
          sha256: stored.sha256,
          duration_ms: outcome.durationMs,
        },
        now,
      );
    }
    if (!changed) return;
    const row = repo.byId(id)!;
    for (const l of listeners) l(row);
  }

  /** Why a Graph call failed, as the message shows it; RetryLater when another try may work. */
  function graphFailure(e: unknown, what: string): Error {
    if (e instanceof GraphError) {
      if (e.httpStatus === 404 || e.code === 100) {
        return new Final(
          `WhatsApp no longer has the file (a received file can be fetched for 7 days): ${e.message}`,
        );
      }
      if (e.code === 190 || e.httpStatus === 401 || e.httpStatus === 403) {
        return new Final(
          `WhatsApp refused the access token (${e.code ?? e.httpStatus}): renew it under Settings → Channel, then retry`,
        );
      }
      if (e.httpStatus >= 500 || e.httpStatus === 429 || e.code === 4 || e.code === 80007) {
        return new RetryLater(`${what}: WhatsApp answered HTTP ${e.httpStatus} (${e.message})`);
      }
      return new Final(`${what}: ${e.message}`);
    }
    if (e instanceof GraphUnreachable) return new RetryLater(`${what}: ${e.message}`);
    if (e instanceof NotGraph) return new RetryLater(`${what}: ${e.message}`);
    return e instanceof Error ? e : new Error(String(e));
  }

  /**
   * A received file, fetched: the simulator's sample (written here), or Meta's two-step
   * download (the media store's thread makes the second step).
   */
  async function fetchFile(
    row: MediaRow,
    signal: AbortSignal,
  ): Promise<{ file: PendingFile; declaredSha256: string | null; declaredMime: string | null }> {
    const limit = MEDIA_LIMITS[row.kind];
    const failure = (e: unknown) =>
      e instanceof MediaTooLarge
        ? new Final(`the file is larger than the ${formatFileSize(limit)} ${A[row.kind]} may have`)
        : new RetryLater(`downloading the file: ${(e as Error).message}`);
    if (row.origin === 'simulator') {
      const chunks = readSample(row.sample!);
      try {
        const file = await store.receive(chunks, limit);
        return { file, declaredSha256: null, declaredMime: row.declared_mime_type };
      } catch (e) {
        chunks.destroy();
        throw failure(e);
      }
    }
    const client = row.business_account_id
      ? d.channels.clientForAccount(row.business_account_id)
      : null;
    if (!client) {
      throw new Final('the WhatsApp channel is not connected any more: connect it, then retry');
    }
    let info;
    try {
      info = await client.mediaInfo(row.provider_media_id!, signal);
    } catch (e) {
      throw graphFailure(e, 'asking WhatsApp for the file');
    }
    if (info.size !== null && info.size > limit) {
      throw new Final(
        `the file is ${formatFileSize(info.size)}, over the ${formatFileSize(limit)} ${A[row.kind]} may have`,
      );
    }
    let got;
    try {
      const target = await client.downloadTarget(info.url);
      got = await store.fetch(
        target,
        { bytes: limit, headBytes: sniffHeadBytes(row.kind) },
        signal,
      );
    } catch (e) {
      if (e instanceof GraphError || e instanceof GraphUnreachable) {
        throw graphFailure(e, 'downloading the file');
      }
      throw failure(e);
    }
    if (!got.file) {
      const e = new GraphError(got.status, null, `HTTP ${got.status}`, null);
      throw graphFailure(e, 'downloading the file');
    }
    return {
      file: got.file,
      declaredSha256: info.sha256 ?? row.declared_sha256,
      declaredMime: row.declared_mime_type ?? info.mimeType,
    };
  }

  function registerJobs() {
    scheduler.register(
      'media.download',
      async ({ mediaId }, ctx) => {
        const row = repo.byId(mediaId);
        if (!row || row.status !== 'pending' || row.origin === 'upload') return;
        const fail = (reason: string) =>
          db
            .transaction(() => {
              settle(row.id, reason);
              ctx.complete();
            })
            .immediate();
        let file: PendingFile | null = null;
        try {
          const from = await fetchFile(row, ctx.signal);
          file = from.file;
          const verdict = await checkReceived(file, row.kind, from.declaredMime);
          if (!verdict.ok) throw new Final(verdict.reason);
          if (from.declaredSha256 && !sameSha(from.declaredSha256, file.sha256)) {
            throw new RetryLater(
              'the file’s SHA-256 is not the one WhatsApp gave (a damaged download)',
            );
          }
          const durationMs = await mediaDurationMs(file.path, row.kind, verdict.mimeType);
          const ready = file;
          db.transaction(() => {
            settle(row.id, { ok: true, file: ready, mimeType: verdict.mimeType, durationMs });
            ctx.complete();
          }).immediate();
        } catch (e) {
          file?.discard();
          if (ctx.signal.aborted) throw e;
          if (e instanceof Final) return fail(e.message);
          throw e;
        }
      },
      {
        sync: false,
        concurrency: 8,
        maxAttempts: DOWNLOAD_ATTEMPTS,
        baseDelayMs: 5000,
        onDead: ({ mediaId }, error) => settle(mediaId, error),
      },
    );
  }
  registerJobs();

  const sign = (id: string, workspaceId: string, environment: string, exp: number) =>
    createHmac('sha256', linkKey)
      .update(`${id}\n${workspaceId}\n${environment}\n${exp}`)
      .digest('base64url');

  return {
    repo,
    view,
    find,
    /** Told (in the transaction) when a record becomes ready or failed. */
    onSettled: (l: MediaListener) => listeners.add(l),
    /** Ends the file writer's thread (the core stopping, after the scheduler's runs). */
    stopFiles: () => store.stop(),

    /**
     * A received media message's record, pending, with the job that fetches it; inside the
     * caller's transaction (the message's).
     */
    recordInbound(scope: Scope, m: InboundMedia): MediaRow {
      const now = clock.now();
      const row: MediaRow = {
        id: d.ids('med'),
        workspace_id: scope.workspaceId,
        environment: scope.environment,
        kind: m.kind,
        origin: m.origin,
        status: 'pending',
        mime_type: m.declaredMimeType,
        size: null,
        sha256: null,
        file_name: m.fileName,
        voice: m.voice ? 1 : 0,
        duration_ms: null,
        error: null,
        provider_media_id: m.origin === 'cloud_api' ? m.providerId : null,
        provider_uploaded_at: null,
        business_account_id: m.origin === 'cloud_api' ? m.businessAccountId : null,
        declared_mime_type: m.declaredMimeType,
        declared_sha256: m.origin === 'cloud_api' ? m.declaredSha256 : null,
        sample: m.origin === 'simulator' ? sampleName(m.kind) : null,
        created_at: now,
        updated_at: now,
      };
      repo.insert(row);
      scheduler.enqueue(
        'media.download',
        { mediaId: row.id },
        { dedupeKey: `media.download:${row.id}` },
      );
      return row;
    },

    /** The simulator's sample for a kind (its declared type and name). */
    sample: (kind: MediaType) => sampleFor(kind),

    /** A failed download tried again (the button beside "couldn't fetch"). */
    retry(scope: Scope, id: string): Media {
      return db
        .transaction(() => {
          const row = find(scope, id);
          if (row.origin === 'upload' || row.status !== 'failed') {
            throw new ApiError(
              'invalid_state',
              row.origin === 'upload'
                ? `media ${id} was uploaded here: there is nothing to fetch`
                : `media ${id} is ${row.status}: only a failed download is tried again`,
              { details: { status: row.status } },
            );
          }
          repo.markPending(id, clock.now());
          scheduler.enqueue(
            'media.download',
            { mediaId: id },
            { dedupeKey: `media.download:${id}` },
          );
          return view(repo.byId(id)!);
        })
        .immediate();
    },

    /**
     * An upload to send (`POST /media`), received to a temporary file with the limit its first
     * bytes allow (refused before more than that is written).
     */
    async receiveUpload(file: Readable): Promise<PendingFile> {
      try {
        return await store.receive(file, MEDIA_MAX_BYTES, uploadLimitFromHead);
      } catch (e) {
        if (e instanceof MediaTooLarge) {
          throw new ApiError(
            'payload_too_large',
            `the file is larger than ${formatFileSize(e.limit)}, the most WhatsApp takes for its type`,
            { param: 'file', details: { limitBytes: e.limit } },
          );
        }
        throw e;
      }
    },

    /**
     * A received upload checked by its bytes (a type Meta accepts, within its size); `commit`
     * keeps the file and its record (in the caller's transaction). The file goes on refusal.
     */
    async acceptUpload(
      pending: PendingFile,
      opts: { declared: string | null; fileName: string | null; wanted: MediaType | null },
    ) {
      try {
        if (pending.size === 0) {
          throw new ApiError('validation_error', 'the file is empty', { param: 'file' });
        }
        const verdict = await checkUpload(pending, opts);
        if (!verdict.ok) {
          throw new ApiError('unsupported_media_type', verdict.reason, { param: 'file' });
        }
        const limit = MEDIA_LIMITS[verdict.kind];
        if (pending.size > limit) {
          throw new ApiError(
            'payload_too_large',
            `the file is ${formatFileSize(pending.size)}; ${A[verdict.kind]} may have ${formatFileSize(limit)}`,
            { param: 'file', details: { limitBytes: limit } },
          );
        }
        const durationMs = await mediaDurationMs(pending.path, verdict.kind, verdict.mimeType);
        return {
          kind: verdict.kind,
          mimeType: verdict.mimeType,
          commit: (scope: Scope): Media => {
            const now = clock.now();
            const stored = pending.commit();
            const row: MediaRow = {
              id: d.ids('med'),
              workspace_id: scope.workspaceId,
              environment: scope.environment,
              kind: verdict.kind,
              origin: 'upload',
              status: 'ready',
              mime_type: verdict.mimeType,
              size: stored.size,
              sha256: stored.sha256,
              file_name: opts.fileName,
              voice: 0,
              duration_ms: durationMs,
              error: null,
              provider_media_id: null,
              provider_uploaded_at: null,
              business_account_id: null,
              declared_mime_type: opts.declared,
              declared_sha256: null,
              sample: null,
              created_at: now,
              updated_at: now,
            };
            repo.insert(row);
            return view(row);
          },
        };
      } catch (e) {
        pending.discard();
        throw e;
      }
    },

    /** Meta's id for an uploaded file (sent by id; valid 30 days). */
    setUploaded: (id: string, providerId: string) => repo.setUploaded(id, providerId, clock.now()),

    /** A link the desktop window's <img>/<audio> can use without a header: 12 hours, this process. */
    link(scope: Scope, id: string): { url: string; expiresAt: string } {
      const row = find(scope, id);
      const exp = Math.floor((clock.now() + LINK_TTL_MS) / 1000);
      const sig = sign(row.id, row.workspace_id, row.environment, exp);
      return {
        url: `/media/${encodeURIComponent(row.id)}/content?exp=${exp}&sig=${sig}`,
        expiresAt: iso(exp * 1000),
      };
    },

    /** The record a signed link opens, or undefined (unknown, expired or forged). */
    verifyLink(id: string, exp: string, sig: string): MediaRow | undefined {
      const at = Number(exp) * 1000;
      if (!Number.isFinite(at) || at <= clock.now()) return undefined;
      const row = repo.byId(id);
      if (!row) return undefined;
      const expected = Buffer.from(sign(row.id, row.workspace_id, row.environment, Number(exp)));
      const given = Buffer.from(sig);
      return given.length === expected.length && timingSafeEqual(given, expected) ? row : undefined;
    },

    /** Where a ready record's file is, or why it cannot be served (404). */
    fileOf(row: MediaRow): string {
      if (row.status !== 'ready' || !row.sha256) {
        throw new ApiError(
          'not_found',
          row.status === 'pending'
            ? `media ${row.id} is still being fetched`
            : row.status === 'failed'
              ? `media ${row.id} could not be fetched: ${row.error ?? 'unknown reason'}`
              : `media ${row.id} expired: its file was removed after the retention period`,
          { details: { status: row.status } },
        );
      }
      const file = store.path(row.sha256);
      if (!fs.existsSync(file)) {
        throw new ApiError(
          'not_found',
          `the file of media ${row.id} is missing from the data dir`,
          {
            details: { status: 'missing' },
          },
        );
      }
      return file;
    },

    /**
     * Retention's sweep (README "Retention"): records past the period expire and their files go
     * once no record that is not expired needs them; uploads no message used go after a day.
     */
    prune(limit: number): number {
      const now = clock.now();
      const aged = repo.aged(now - d.retentionDays * DAY_MS, limit);
      const unused = repo.unusedUploads(now - UNUSED_UPLOAD_MS, limit);
      const seen = new Set<string>();
      let n = 0;
      for (const [id, sha256] of [...aged, ...unused]) {
        if (seen.has(id)) continue;
        seen.add(id);
        db.transaction(() => {
          repo.expire(id, now);
          // Inside the transaction: a download committing the same bytes waits for it.
          if (sha256 && !repo.stillNeeded(sha256)) store.remove(sha256);
        }).immediate();
        n++;
      }
      return Math.min(n, limit);
    },

    /**
     * A backup's media (`parley backup FILE` → `FILE.media/`): every file a ready record holds,
     * the folder 0700 and each file 0600. Returns how many files and bytes.
     */
    copyFiles(target: string): { files: number; bytes: number } {
      privateDir.ensure(target);
      let files = 0;
      let bytes = 0;
      for (const sha256 of repo.allFiles()) {
        const from = store.path(sha256);
        if (!fs.existsSync(from)) continue;
        const to = path.join(target, sha256);
        privateFile.create(to);
        fs.copyFileSync(from, to);
        privateFile.tighten(to);
        files++;
        bytes += fs.statSync(to).size;
      }
      return { files, bytes };
    },
  };
}
export type MediaService = ReturnType<typeof mediaService>;
