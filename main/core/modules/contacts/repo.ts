import type { Database as Db, Statement } from 'better-sqlite3';
import { escapeLike } from '../../db/sql.ts';
import type { Scope } from '../../runtime.ts';
import { CONTACT_FIELDS, CONTACT_JSON } from './sql.ts';

export interface ContactRow {
  id: string;
  workspace_id: string;
  environment: string;
  /** E.164; null for a customer known only by their WhatsApp user id. */
  phone: string | null;
  name: string | null;
  email: string | null;
  labels: string;
  attributes: string;
  created_at: number;
  updated_at: number;
  last_inbound_at: number | null;
  email_unsubscribed_at: number | null;
  /** Meta's business-scoped user id (BSUID), e.g. `US.13491208655302741918`, when known. */
  wa_user_id: string | null;
}

export interface GroupRow {
  id: string;
  name: string;
  created_at: number;
  member_count: number;
}

export interface ContactFilter {
  phone?: string;
  waUserId?: string;
  label?: string;
  groupId?: string;
  q?: string;
}

/** Attribute columns an export has at most (a contact has at most 100 attributes). */
export const MAX_EXPORT_ATTRIBUTES = 500;

const COLUMNS = CONTACT_FIELDS.map((f) => `c.${f}`).join(', ');

export function contactsRepo(db: Db) {
  const filterKey = (f: ContactFilter) =>
    `${+!!f.phone}${+!!f.waUserId}${+!!f.label}${+!!f.groupId}${+!!f.q}`;
  function filterWhere(f: ContactFilter): string[] {
    const where = ['c.workspace_id = @workspaceId', 'c.environment = @environment'];
    if (f.phone) where.push('c.phone = @phone');
    if (f.waUserId) where.push('c.wa_user_id = @waUserId');
    if (f.label)
      where.push(`c.id IN (SELECT contact_id FROM contact_labels
        WHERE workspace_id = @workspaceId AND environment = @environment AND label = @label)`);
    if (f.groupId)
      where.push('c.id IN (SELECT contact_id FROM group_members WHERE group_id = @groupId)');
    if (f.q)
      where.push(
        `(c.name LIKE @q ESCAPE '\\' OR c.phone LIKE @q ESCAPE '\\' OR c.email LIKE @q ESCAPE '\\' OR c.wa_user_id LIKE @q ESCAPE '\\')`,
      );
    return where;
  }
  const filterParams = (scope: Scope, f: ContactFilter) => ({
    workspaceId: scope.workspaceId,
    environment: scope.environment,
    phone: f.phone ?? null,
    waUserId: f.waUserId ?? null,
    label: f.label ?? null,
    groupId: f.groupId ?? null,
    q: f.q ? `%${escapeLike(f.q)}%` : null,
  });

  // One prepared statement per use and combination of filters, built on first use.
  const statements = new Map<string, Statement>();
  const cached = (use: string, f: ContactFilter, build: () => Statement): Statement => {
    const key = `${use}:${filterKey(f)}`;
    let stmt = statements.get(key);
    if (!stmt) statements.set(key, (stmt = build()));
    return stmt;
  };
  const listStatement = (f: ContactFilter): Statement =>
    cached('list', f, () =>
      db
        .prepare(
          `SELECT c.id, ${CONTACT_JSON} FROM contacts c WHERE ${[...filterWhere(f), '(@cursor IS NULL OR c.id < @cursor)'].join(' AND ')} ORDER BY c.id DESC LIMIT @limit`,
        )
        .raw(),
    );
  // Without filters the count is kept by triggers (migration 0006): no index walk per request.
  const unfilteredCount = db
    .prepare(
      'SELECT coalesce((SELECT n FROM contact_counts WHERE workspace_id = @workspaceId AND environment = @environment), 0)',
    )
    .pluck();
  const countStatement = (f: ContactFilter): Statement =>
    filterKey(f) === filterKey({})
      ? unfilteredCount
      : cached('count', f, () =>
          db
            .prepare(`SELECT count(*) FROM contacts c WHERE ${filterWhere(f).join(' AND ')}`)
            .pluck(),
        );

  // The export's attribute columns: every key the filtered contacts use, in order.
  const attributeKeysStatement = (f: ContactFilter): Statement =>
    cached('attributeKeys', f, () =>
      db
        .prepare(
          `SELECT DISTINCT a.key FROM contacts c, json_each(c.attributes) a WHERE ${filterWhere(f).join(' AND ')} ORDER BY a.key LIMIT ${MAX_EXPORT_ATTRIBUTES}`,
        )
        .pluck(),
    );

  const get = db.prepare(
    `SELECT ${COLUMNS} FROM contacts c WHERE c.workspace_id = ? AND c.environment = ? AND c.id = ?`,
  );
  const byPhone = db.prepare(
    `SELECT ${COLUMNS} FROM contacts c WHERE c.workspace_id = ? AND c.environment = ? AND c.phone = ?`,
  );
  const byWaUserId = db.prepare(
    `SELECT ${COLUMNS} FROM contacts c WHERE c.workspace_id = ? AND c.environment = ? AND c.wa_user_id = ?`,
  );
  const insert = db.prepare(
    `INSERT INTO contacts (id, workspace_id, environment, phone, wa_user_id, name, email, labels, attributes, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @phone, @wa_user_id, @name, @email, @labels, @attributes, @created_at, @updated_at)`,
  );
  const update = db.prepare(
    `UPDATE contacts SET phone = @phone, wa_user_id = @wa_user_id, name = @name, email = @email,
       labels = @labels, attributes = @attributes, updated_at = @updated_at WHERE id = @id`,
  );
  const setLastInbound = db.prepare(
    'UPDATE contacts SET last_inbound_at = max(coalesce(last_inbound_at, 0), ?), updated_at = ? WHERE id = ?',
  );
  const deleteLabels = db.prepare('DELETE FROM contact_labels WHERE contact_id = ?');
  const insertLabel = db.prepare(
    'INSERT OR IGNORE INTO contact_labels (contact_id, workspace_id, environment, label) VALUES (?, ?, ?, ?)',
  );

  const insertGroup = db.prepare(
    'INSERT INTO contact_groups (id, workspace_id, environment, name, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const groupByName = db.prepare(
    'SELECT id FROM contact_groups WHERE workspace_id = ? AND environment = ? AND name = ?',
  );
  const getGroup = db.prepare(
    `SELECT g.id, g.name, g.created_at, (SELECT count(*) FROM group_members m WHERE m.group_id = g.id) AS member_count
     FROM contact_groups g WHERE g.workspace_id = ? AND g.environment = ? AND g.id = ?`,
  );
  const listGroups = db.prepare(
    `SELECT g.id, g.name, g.created_at, (SELECT count(*) FROM group_members m WHERE m.group_id = g.id) AS member_count
     FROM contact_groups g WHERE g.workspace_id = @workspaceId AND g.environment = @environment
       AND (@cursor IS NULL OR g.id < @cursor)
     ORDER BY g.id DESC LIMIT @limit`,
  );
  const addMember = db.prepare(
    'INSERT OR IGNORE INTO group_members (group_id, contact_id, added_at) VALUES (?, ?, ?)',
  );
  const contactInScope = db
    .prepare('SELECT 1 FROM contacts WHERE workspace_id = ? AND environment = ? AND id = ?')
    .pluck();

  return {
    list: (scope: Scope, f: ContactFilter, cursor: string | null, limit: number) =>
      listStatement(f).all({ ...filterParams(scope, f), cursor, limit }) as [string, string][],
    /** The attribute keys the contacts matching the filters use (the export's columns). */
    attributeKeys: (scope: Scope, f: ContactFilter) =>
      attributeKeysStatement(f).all(filterParams(scope, f)) as string[],
    /** How many contacts match the filters (the list's total). */
    count: (scope: Scope, f: ContactFilter) =>
      countStatement(f).get(filterParams(scope, f)) as number,
    get: (scope: Scope, id: string) =>
      get.get(scope.workspaceId, scope.environment, id) as ContactRow | undefined,
    byPhone: (scope: Scope, phone: string) =>
      byPhone.get(scope.workspaceId, scope.environment, phone) as ContactRow | undefined,
    byWaUserId: (scope: Scope, waUserId: string) =>
      byWaUserId.get(scope.workspaceId, scope.environment, waUserId) as ContactRow | undefined,
    insert: (row: ContactRow) => insert.run(row),
    update: (row: ContactRow) => update.run(row),
    setLastInbound: (id: string, at: number, now: number) => setLastInbound.run(at, now, id),
    setLabels(row: ContactRow, labels: string[]) {
      deleteLabels.run(row.id);
      for (const l of labels) insertLabel.run(row.id, row.workspace_id, row.environment, l);
    },
    insertGroup: (scope: Scope, id: string, name: string, at: number) =>
      insertGroup.run(id, scope.workspaceId, scope.environment, name, at),
    groupByName: (scope: Scope, name: string) =>
      groupByName.get(scope.workspaceId, scope.environment, name) as { id: string } | undefined,
    getGroup: (scope: Scope, id: string) =>
      getGroup.get(scope.workspaceId, scope.environment, id) as GroupRow | undefined,
    listGroups: (scope: Scope, cursor: string | null, limit: number) =>
      listGroups.all({
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        cursor,
        limit,
      }) as GroupRow[],
    addMember: (groupId: string, contactId: string, at: number) =>
      addMember.run(groupId, contactId, at).changes,
    contactInScope: (scope: Scope, id: string) =>
      contactInScope.get(scope.workspaceId, scope.environment, id) === 1,
  };
}
export type ContactsRepo = ReturnType<typeof contactsRepo>;
