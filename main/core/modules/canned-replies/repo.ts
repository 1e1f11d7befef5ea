import type { Database as Db } from 'better-sqlite3';
import type { Scope } from '../../runtime.ts';
import { escapeLike } from '../../db/sql.ts';

export interface CannedReplyRow {
  id: string;
  workspace_id: string;
  environment: string;
  shortcut: string;
  text: string;
  created_at: number;
  updated_at: number;
}

/** The only SQL of canned replies. Every statement is scoped by workspace and environment. */
export function cannedRepliesRepo(db: Db) {
  const get = db.prepare(
    'SELECT * FROM canned_replies WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const byShortcut = db.prepare(
    'SELECT * FROM canned_replies WHERE workspace_id = ? AND environment = ? AND shortcut = ?',
  );
  // Alphabetical by shortcut (unique in the scope, so it is the cursor too). `q` matches part of
  // the shortcut or the text; LIKE ignores ASCII case, which is what a search box means.
  const list = db.prepare(
    `SELECT * FROM canned_replies
     WHERE workspace_id = @workspaceId AND environment = @environment
       AND (@like IS NULL OR shortcut LIKE @like ESCAPE '\\' OR text LIKE @like ESCAPE '\\')
       AND (@after IS NULL OR shortcut > @after)
     ORDER BY shortcut LIMIT @limit`,
  );
  const insert = db.prepare(
    `INSERT INTO canned_replies (id, workspace_id, environment, shortcut, text, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @shortcut, @text, @created_at, @updated_at)`,
  );
  const update = db.prepare(
    'UPDATE canned_replies SET shortcut = @shortcut, text = @text, updated_at = @updated_at WHERE id = @id',
  );
  const remove = db.prepare('DELETE FROM canned_replies WHERE id = ?');

  return {
    get: (scope: Scope, id: string) =>
      get.get(scope.workspaceId, scope.environment, id) as CannedReplyRow | undefined,
    byShortcut: (scope: Scope, shortcut: string) =>
      byShortcut.get(scope.workspaceId, scope.environment, shortcut) as CannedReplyRow | undefined,
    list: (scope: Scope, q: string | null, after: string | null, limit: number) =>
      list.all({
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        like: q ? `%${escapeLike(q)}%` : null,
        after,
        limit,
      }) as CannedReplyRow[],
    insert: (row: CannedReplyRow) => insert.run(row),
    update: (row: CannedReplyRow) => update.run(row),
    remove: (id: string) => remove.run(id),
  };
}
export type CannedRepliesRepo = ReturnType<typeof cannedRepliesRepo>;
