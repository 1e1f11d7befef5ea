import type { Database as Db } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { ApiError } from '../../../../shared/errors.ts';
import type { Environment } from '../../../../shared/schemas/common.ts';
import type { ApiKey, CreatedKey } from '../../../../shared/schemas/keys.ts';
import { API_KEY_PATTERN } from '../../../../shared/schemas/keys.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Clock, IdGenerator, Random, Scope } from '../../runtime.ts';
import { iso, isoOrNull, randomBase62 } from '../../runtime.ts';
import type { ApiKeyRow } from './repo.ts';
import { keysRepo } from './repo.ts';

/** last_used_at is written at most this often per key, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  environment: r.environment,
  workspaceId: r.workspace_id,
  createdAt: iso(r.created_at),
  lastUsedAt: isoOrNull(r.last_used_at),
  revokedAt: isoOrNull(r.revoked_at),
});

export interface KeyPrincipal extends Scope {
  keyId: string;
  keyPrefix: string;
}

export function keysService(db: Db, clock: Clock, random: Random, ids: IdGenerator) {
  const repo = keysRepo(db);
  return {
    create(workspaceId: string, environment: Environment, name: string): CreatedKey {
      const secret = randomBase62(random, 40);
      const key = `svc_${environment}_${secret}`;
      const row = {
        id: ids('key'),
        workspace_id: workspaceId,
        environment,
        name: name.trim(),
        key_hash: hashKey(key),
        prefix: `svc_${environment}_${secret.slice(0, 8)}`,
        created_at: clock.now(),
      };
      repo.insert(row);
      return { ...toApiKey({ ...row, last_used_at: null, revoked_at: null }), key };
    },

    list(workspaceId: string, limit: number, cursor?: string) {
      const after = cursor ? decodeCursor(cursor) : null;
      return toPage(repo.list(workspaceId, after, limit + 1), limit, toApiKey, (r) => r.id);
    },

    revoke(workspaceId: string, id: string): ApiKey {
      const row = repo.get(workspaceId, id);
      if (!row) throw new ApiError('not_found', `no API key ${id}`);
      if (row.revoked_at !== null)
        throw new ApiError('invalid_state', 'this key is already revoked');
      const at = clock.now();
      repo.revoke(at, workspaceId, id);
      return toApiKey({ ...row, revoked_at: at });
    },

    /** The workspace a key belongs to (the CLI revokes by id alone). */
    workspaceOf(id: string): string {
      const ws = repo.workspaceOf(id);
      if (!ws) throw new ApiError('not_found', `no API key ${id}`);
      return ws;
    },

    /**
     * Resolves an `X-API-Key` value to its scope, or null. Reads the database on every call
     * (one indexed lookup), so a key revoked by another process is refused on its next request.
     */
    authenticate(key: string): KeyPrincipal | null {
      if (!API_KEY_PATTERN.test(key)) return null;
      const row = repo.byHash(hashKey(key));
      if (!row || row.revoked_at !== null) return null;
      const now = clock.now();
      if (row.last_used_at === null || now - row.last_used_at >= TOUCH_INTERVAL_MS) {
        repo.touch(now, row.id);
      }
      return {
        workspaceId: row.workspace_id,
        environment: row.environment,
        keyId: row.id,
        keyPrefix: row.prefix,
      };
    },
  };
}
export type KeysService = ReturnType<typeof keysService>;
