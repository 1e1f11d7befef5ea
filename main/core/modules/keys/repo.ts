import type { Database as Db } from 'better-sqlite3';
import type { Environment } from '../../../../shared/schemas/common.ts';

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  name: string;
  key_hash: string;
  prefix: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export type AuthRow = Pick<
  ApiKeyRow,
  'id' | 'workspace_id' | 'environment' | 'prefix' | 'last_used_at' | 'revoked_at'
>;

export function keysRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO api_keys (id, workspace_id, environment, name, key_hash, prefix, created_at)
     VALUES (@id, @workspace_id, @environment, @name, @key_hash, @prefix, @created_at)`,
  );
  const byHash = db.prepare(
    `SELECT id, workspace_id, environment, prefix, last_used_at, revoked_at
     FROM api_keys WHERE key_hash = ?`,
  );
  const list = db.prepare(
    `SELECT * FROM api_keys WHERE workspace_id = @workspace_id AND (@cursor IS NULL OR id < @cursor)
     ORDER BY id DESC LIMIT @limit`,
  );
  const get = db.prepare('SELECT * FROM api_keys WHERE workspace_id = ? AND id = ?');
  const revoke = db.prepare(
    'UPDATE api_keys SET revoked_at = ? WHERE workspace_id = ? AND id = ? AND revoked_at IS NULL',
  );
  const workspaceOf = db.prepare('SELECT workspace_id FROM api_keys WHERE id = ?').pluck();
  const touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  return {
    insert: (row: Omit<ApiKeyRow, 'last_used_at' | 'revoked_at'>) => insert.run(row),
    byHash: (hash: string) => byHash.get(hash) as AuthRow | undefined,
    list: (workspaceId: string, cursor: string | null, limit: number) =>
      list.all({ workspace_id: workspaceId, cursor, limit }) as ApiKeyRow[],
    get: (workspaceId: string, id: string) => get.get(workspaceId, id) as ApiKeyRow | undefined,
    revoke: (at: number, workspaceId: string, id: string) =>
      revoke.run(at, workspaceId, id).changes,
    touch: (at: number, id: string) => touch.run(at, id),
    workspaceOf: (id: string) => workspaceOf.get(id) as string | undefined,
  };
}
