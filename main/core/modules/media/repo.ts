import type { Database as Db } from 'better-sqlite3';
import type { MediaStatus, MediaType } from '../../../../shared/schemas/media.ts';

export interface MediaRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  kind: MediaType;
  origin: 'cloud_api' | 'simulator' | 'upload';
  status: MediaStatus;
  mime_type: string | null;
  size: number | null;
  sha256: string | null;
  file_name: string | null;
  voice: number;
  /** How long the audio or video plays (ms), from its file once stored. */
  duration_ms: number | null;
  error: string | null;
  provider_media_id: string | null;
  provider_uploaded_at: number | null;
  business_account_id: string | null;
  declared_mime_type: string | null;
  declared_sha256: string | null;
  sample: string | null;
  created_at: number;
  updated_at: number;
}

export function mediaRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO media (id, workspace_id, environment, kind, origin, status, mime_type, size, sha256,
       file_name, voice, duration_ms, error, provider_media_id, provider_uploaded_at, business_account_id,
       declared_mime_type, declared_sha256, sample, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @kind, @origin, @status, @mime_type, @size, @sha256,
       @file_name, @voice, @duration_ms, @error, @provider_media_id, @provider_uploaded_at, @business_account_id,
       @declared_mime_type, @declared_sha256, @sample, @created_at, @updated_at)`,
  );
  const byId = db.prepare('SELECT * FROM media WHERE id = ?');
  const inScope = db.prepare(
    'SELECT * FROM media WHERE id = ? AND workspace_id = ? AND environment = ?',
  );
  const ready = db.prepare(
    `UPDATE media SET status = 'ready', mime_type = @mime_type, size = @size, sha256 = @sha256,
       duration_ms = @duration_ms, error = NULL, updated_at = @now
     WHERE id = @id AND status = 'pending'`,
  );
  const failed = db.prepare(
    `UPDATE media SET status = 'failed', error = @error, updated_at = @now
     WHERE id = @id AND status = 'pending'`,
  );
  const pending = db.prepare(
    `UPDATE media SET status = 'pending', error = NULL, updated_at = ? WHERE id = ? AND status = 'failed'`,
  );
  const uploaded = db.prepare(
    'UPDATE media SET provider_media_id = ?, provider_uploaded_at = ?, updated_at = ? WHERE id = ?',
  );
  // Retention: the oldest records not yet expired, past the cutoff.
  const aged = db
    .prepare(
      `SELECT id, sha256 FROM media WHERE status != 'expired' AND created_at < ?
       ORDER BY created_at LIMIT ?`,
    )
    .raw();
  // An upload no message uses, past its shorter period.
  const unused = db
    .prepare(
      `SELECT md.id, md.sha256 FROM media md WHERE md.origin = 'upload' AND md.status != 'expired'
         AND md.created_at < ? AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.media_id = md.id)
       ORDER BY md.created_at LIMIT ?`,
    )
    .raw();
  const expire = db.prepare(
    `UPDATE media SET status = 'expired', error = NULL, updated_at = ? WHERE id = ?`,
  );
  const stillNeeded = db
    .prepare(`SELECT 1 FROM media WHERE sha256 = ? AND status != 'expired' LIMIT 1`)
    .pluck();
  const allFiles = db
    .prepare(`SELECT DISTINCT sha256 FROM media WHERE sha256 IS NOT NULL AND status = 'ready'`)
    .pluck();

  return {
    insert: (r: MediaRow) => insert.run(r),
    byId: (id: string) => byId.get(id) as MediaRow | undefined,
    inScope: (id: string, workspaceId: string, environment: string) =>
      inScope.get(id, workspaceId, environment) as MediaRow | undefined,
    markReady: (
      id: string,
      f: { mime_type: string; size: number; sha256: string; duration_ms: number | null },
      now: number,
    ) => ready.run({ id, ...f, now }).changes > 0,
    markFailed: (id: string, error: string, now: number) =>
      failed.run({ id, error, now }).changes > 0,
    markPending: (id: string, now: number) => pending.run(now, id).changes > 0,
    setUploaded: (id: string, providerId: string, now: number) =>
      uploaded.run(providerId, now, now, id),
    aged: (cutoff: number, limit: number) => aged.all(cutoff, limit) as [string, string | null][],
    unusedUploads: (cutoff: number, limit: number) =>
      unused.all(cutoff, limit) as [string, string | null][],
    expire: (id: string, now: number) => expire.run(now, id),
    /** Whether a record that is not expired still holds this file. */
    stillNeeded: (sha256: string) => stillNeeded.get(sha256) === 1,
    /** Every file a ready record holds (a backup copies them). */
    allFiles: () => allFiles.all() as string[],
  };
}
export type MediaRepo = ReturnType<typeof mediaRepo>;
