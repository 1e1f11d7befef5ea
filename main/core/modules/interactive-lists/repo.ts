import type { Database as Db } from 'better-sqlite3';
import type { Scope } from '../../runtime.ts';

export interface ListRowRecord {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  name: string;
  header: string | null;
  body: string;
  footer: string | null;
  button_text: string;
  sections: string;
  created_at: number;
  updated_at: number;
}

export function listsRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO interactive_lists (id, workspace_id, environment, name, header, body, footer, button_text,
       sections, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @name, @header, @body, @footer, @button_text, @sections,
       @created_at, @updated_at)`,
  );
  const update = db.prepare(
    `UPDATE interactive_lists SET name = @name, header = @header, body = @body, footer = @footer,
       button_text = @button_text, sections = @sections, updated_at = @updated_at WHERE id = @id`,
  );
  const get = db.prepare(
    'SELECT * FROM interactive_lists WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const remove = db.prepare('DELETE FROM interactive_lists WHERE id = ?');
  const page = db.prepare(
    `SELECT * FROM interactive_lists WHERE workspace_id = @workspaceId AND environment = @environment
       AND (@cursor IS NULL OR id < @cursor) ORDER BY id DESC LIMIT @limit`,
  );
  return {
    insert: (r: ListRowRecord) => insert.run(r),
    update: (r: ListRowRecord) => update.run(r),
    get: (s: Scope, id: string) =>
      get.get(s.workspaceId, s.environment, id) as ListRowRecord | undefined,
    remove: (id: string) => remove.run(id),
    page: (p: { workspaceId: string; environment: string; cursor: string | null; limit: number }) =>
      page.all(p) as ListRowRecord[],
  };
}
