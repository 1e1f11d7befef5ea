import type { Database as Db } from 'better-sqlite3';
import type { Scope } from '../../runtime.ts';

export interface TemplateRow {
  id: string;
  workspace_id: string;
  environment: string;
  name: string;
  category: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
  language: string;
  components: string;
  variable_count: number;
  status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'PAUSED' | 'DISABLED';
  rejection_reason: string | null;
  approved_at: number | null;
  usable_at: number | null;
  created_at: number;
  updated_at: number;
}

export function templatesRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO templates (id, workspace_id, environment, name, category, language, components, variable_count,
       status, rejection_reason, approved_at, usable_at, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @name, @category, @language, @components, @variable_count,
       @status, @rejection_reason, @approved_at, @usable_at, @created_at, @updated_at)`,
  );
  const update = db.prepare(
    `UPDATE templates SET category = @category, language = @language, components = @components,
       variable_count = @variable_count, status = @status, rejection_reason = @rejection_reason,
       approved_at = @approved_at, usable_at = @usable_at, updated_at = @updated_at WHERE id = @id`,
  );
  const get = db.prepare(
    'SELECT * FROM templates WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const byId = db.prepare('SELECT * FROM templates WHERE id = ?');
  const byName = db.prepare(
    'SELECT * FROM templates WHERE workspace_id = ? AND environment = ? AND name = ?',
  );
  const list = db.prepare(
    `SELECT * FROM templates WHERE workspace_id = @workspaceId AND environment = @environment
       AND (@status IS NULL OR status = @status) AND (@name IS NULL OR name = @name)
       AND (@cursor IS NULL OR id < @cursor)
     ORDER BY id DESC LIMIT @limit`,
  );
  const pending = db.prepare(
    "SELECT * FROM templates WHERE workspace_id = ? AND environment = ? AND status = 'PENDING'",
  );
  const remove = db.prepare('DELETE FROM templates WHERE id = ?');
  const setProviderId = db.prepare('UPDATE templates SET provider_template_id = ? WHERE id = ?');
  const providerIdOf = db
    .prepare('SELECT provider_template_id FROM templates WHERE id = ?')
    .pluck();
  return {
    /** The provider's id for a template (Meta's), once it took it. */
    setProviderId: (id: string, providerId: string) => setProviderId.run(providerId, id),
    providerIdOf: (id: string) => providerIdOf.get(id) as string | null,
    insert: (r: TemplateRow) => insert.run(r),
    update: (r: TemplateRow) => update.run(r),
    get: (s: Scope, id: string) =>
      get.get(s.workspaceId, s.environment, id) as TemplateRow | undefined,
    byId: (id: string) => byId.get(id) as TemplateRow | undefined,
    byName: (s: Scope, name: string) =>
      byName.get(s.workspaceId, s.environment, name) as TemplateRow | undefined,
    list: (
      s: Scope,
      f: { status: string | null; name: string | null },
      cursor: string | null,
      limit: number,
    ) =>
      list.all({
        workspaceId: s.workspaceId,
        environment: s.environment,
        ...f,
        cursor,
        limit,
      }) as TemplateRow[],
    pending: (s: Scope) => pending.all(s.workspaceId, s.environment) as TemplateRow[],
    remove: (id: string) => remove.run(id),
  };
}
