import type { Database as Db, Statement } from 'better-sqlite3';
import type { Scope } from '../../runtime.ts';
import { escapeLike, sqlIso } from '../../db/sql.ts';
import { CONTACT_JSON } from '../contacts/sql.ts';
import { MESSAGE_JSON } from '../messages/sql.ts';

export interface ConversationRow {
  id: string;
  workspace_id: string;
  environment: string;
  contact_id: string;
  business_account_id: string;
  status: 'open' | 'pending' | 'snoozed' | 'resolved';
  assignee_id: string | null;
  labels: string;
  snoozed_until: number | null;
  last_message_at: number;
  last_inbound_at: number | null;
  unread_count: number;
  created_at: number;
  updated_at: number;
}

export interface ConversationFilter {
  status?: string;
  /** An agent id, or null for unassigned. */
  assignee?: string | null;
  label?: string;
  q?: string;
  /** Only conversations with unread messages (read from the partial `conversations_unread_*` indexes). */
  unread?: boolean;
  /** Only these conversations (a client re-checking changed rows against its view). */
  ids?: string[];
}

/**
 * A conversation as its API JSON (all but `windowOpen`, which depends on the time), built by
 * SQLite: the contact and the last message come from index lookups in the same statement.
 */
const CONVERSATION_JSON = `json_object('id', cv.id, 'status', cv.status, 'assignee', cv.assignee_id,
  'labels', json(cv.labels), 'snoozedUntil', ${sqlIso('cv.snoozed_until')},
  'contact', json((SELECT ${CONTACT_JSON} FROM contacts c WHERE c.id = cv.contact_id)),
  'lastMessage', json((SELECT ${MESSAGE_JSON} FROM messages m WHERE m.conversation_id = cv.id AND m.type != 'note'
    ORDER BY m.id DESC LIMIT 1)),
  'lastMessageAt', ${sqlIso('cv.last_message_at')}, 'lastInboundAt', ${sqlIso('cv.last_inbound_at')},
  'unreadCount', cv.unread_count, 'createdAt', ${sqlIso('cv.created_at')}, 'updatedAt', ${sqlIso('cv.updated_at')})`;

/** FTS5 query from user input: every word as a quoted prefix term. */
export function ftsQuery(q: string): string {
  return q
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `"${w.replace(/"/g, '""')}"*`)
    .join(' ');
}

export function conversationsRepo(db: Db) {
  const byContact = db.prepare(
    'SELECT * FROM conversations WHERE contact_id = ? AND business_account_id = ?',
  );
  const byId = db.prepare('SELECT * FROM conversations WHERE id = ?');
  const get = db.prepare(
    'SELECT * FROM conversations WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const insert = db.prepare(
    `INSERT INTO conversations (id, workspace_id, environment, contact_id, business_account_id, status,
       assignee_id, labels, last_message_at, last_inbound_at, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @contact_id, @business_account_id, @status,
       @assignee_id, @labels, @last_message_at, NULL, @created_at, @updated_at)`,
  );
  // The counts of a new row (migration 0013: no insert triggers, see there).
  const countConversation = db.prepare(
    `INSERT INTO conversation_counts VALUES (@workspace_id, @environment, coalesce(@assignee_id, ''), @status, 1)
     ON CONFLICT DO UPDATE SET n = n + 1`,
  );
  const countLabel = db.prepare(
    `INSERT INTO conversation_label_counts
     VALUES (@workspace_id, @environment, @label, coalesce(@assignee_id, ''), @status, 1)
     ON CONFLICT DO UPDATE SET n = n + 1`,
  );
  const touchOutbound = db.prepare(
    'UPDATE conversations SET last_message_at = max(last_message_at, ?), updated_at = ? WHERE id = ?',
  );
  const touchInbound = db.prepare(
    `UPDATE conversations SET last_message_at = max(last_message_at, @at),
       last_inbound_at = max(coalesce(last_inbound_at, 0), @at), unread_count = unread_count + 1,
       status = @status, snoozed_until = @snoozed_until, updated_at = @now WHERE id = @id`,
  );
  const update = db.prepare(
    `UPDATE conversations SET status = @status, snoozed_until = @snoozed_until, assignee_id = @assignee_id,
       labels = @labels, unread_count = @unread_count, updated_at = @updated_at WHERE id = @id`,
  );
  const deleteLabels = db.prepare('DELETE FROM conversation_labels WHERE conversation_id = ?');
  const insertLabel = db.prepare(
    `INSERT OR IGNORE INTO conversation_labels
       (conversation_id, conversation_rowid, workspace_id, environment, label, status, assignee_id, last_message_at)
     VALUES (@id, (SELECT rowid FROM conversations WHERE id = @id), @workspace_id, @environment, @label, @status,
       @assignee_id, @last_message_at)`,
  );
  const jsonByIds = db
    .prepare(
      `SELECT cv.id, cv.version, ${CONVERSATION_JSON} FROM conversations cv
       WHERE cv.id IN (SELECT value FROM json_each(@ids))`,
    )
    .raw();
  const versionOf = db
    .prepare('SELECT id, version, last_inbound_at FROM conversations WHERE id = ?')
    .raw();
  // What a JSON built from rows in hand stands on: the version, and the newest message it shows.
  const versionAndLast = db
    .prepare(
      `SELECT cv.version, (SELECT m.id FROM messages m WHERE m.conversation_id = cv.id AND m.type != 'note'
         ORDER BY m.id DESC LIMIT 1) FROM conversations cv WHERE cv.id = ?`,
    )
    .raw();

  /**
   * This process's cache of conversation JSON, trusted while the row's version (bumped by
   * triggers on any change to the conversation, its contact or its messages, from any process)
   * is unchanged. A page then costs one index read plus the rows that changed. Entries hold the
   * UTF-8 bytes of the JSON after its opening brace, so pages are assembled without re-encoding;
   * `windowOpen` (it depends on the time) goes in front.
   */
  const jsonCache = new Map<string, { version: number; body: Buffer }>();
  const JSON_CACHE_MAX = 20_000;
  function bodiesFor(rows: { id: string; version: number }[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    const missing: string[] = [];
    for (const r of rows) {
      const hit = jsonCache.get(r.id);
      if (hit && hit.version === r.version) out.set(r.id, hit.body);
      else missing.push(r.id);
    }
    if (missing.length) {
      const fresh = jsonByIds.all({ ids: JSON.stringify(missing) }) as [string, number, string][];
      // Only committed rows are kept: a version read inside a transaction that then rolls back
      // may come again later with other content.
      const keep = !db.inTransaction;
      for (const [id, version, json] of fresh) {
        const body = Buffer.from(json.slice(1));
        if (keep) {
          jsonCache.delete(id);
          jsonCache.set(id, { version, body });
        }
        out.set(id, body);
      }
      while (jsonCache.size > JSON_CACHE_MAX) jsonCache.delete(jsonCache.keys().next().value!);
    }
    return out;
  }
  const OPEN = Buffer.from('{"windowOpen":true,');
  const CLOSED = Buffer.from('{"windowOpen":false,');
  const head = (lastInboundAt: number | null, windowStart: number) =>
    lastInboundAt !== null && lastInboundAt > windowStart ? OPEN : CLOSED;

  const cache = new Map<string, Statement>();
  const cached = (key: string, build: () => Statement) => {
    let st = cache.get(key);
    if (!st) cache.set(key, (st = build()));
    return st;
  };
  const shape = (f: ConversationFilter) =>
    `${+!!f.status}${f.assignee === null ? 'n' : f.assignee === undefined ? '-' : 'a'}${+!!f.label}${+!!f.q}${+!!f.unread}${+!!f.ids}`;

  /**
   * The filter's conditions. With a label, the page is driven by the label's rows (`cl`), which
   * mirror status, assignee and activity; otherwise by the conversations' own indexes.
   */
  function where(f: ConversationFilter, withStatus: boolean): string[] {
    const t = f.label ? 'cl' : 'cv';
    const w = [`${t}.workspace_id = @workspaceId`, `${t}.environment = @environment`];
    if (f.label) w.push('cl.label = @label');
    if (withStatus && f.status) w.push(`${t}.status = @status`);
    if (f.assignee === null) w.push(`${t}.assignee_id IS NULL`);
    else if (f.assignee !== undefined) w.push(`${t}.assignee_id = @assignee`);
    // Written exactly as the partial indexes' WHERE, so SQLite can use them.
    if (f.unread) w.push('cv.unread_count > 0');
    // The list drives from the ids (see listSql): a seek per id, whatever the inbox's size.
    if (f.ids) w.push(`${f.label ? 'cl.conversation_id' : 'cv.id'} = wanted.value`);
    if (f.q) {
      // Contacts by trigram (substrings of 3+ characters), shorter queries by LIKE; messages by words.
      const contacts =
        f.q.length >= 3
          ? `rowid IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH @trigram)`
          : `(name LIKE @like ESCAPE '\\' OR phone LIKE @like ESCAPE '\\')`;
      w.push(`(cv.contact_id IN (SELECT id FROM contacts WHERE ${contacts}
          AND workspace_id = @workspaceId AND environment = @environment)
        OR cv.id IN (SELECT m.conversation_id FROM messages m WHERE m.rowid IN
          (SELECT rowid FROM messages_fts WHERE messages_fts MATCH @match)
          AND m.workspace_id = @workspaceId AND m.environment = @environment))`);
    }
    return w;
  }

  function listSql(f: ConversationFilter): string {
    // With a label, page from the label's (status,) activity index and join the conversation.
    const table = f.label
      ? `conversation_labels cl JOIN conversations cv ON cv.rowid = cl.conversation_rowid`
      : 'conversations cv';
    // CROSS JOIN keeps SQLite from walking the activity index and testing every row against
    // the few ids; sorting ≤ 50 rows afterwards costs nothing.
    const from = f.ids ? `json_each(@ids) wanted CROSS JOIN ${table}` : table;
    const w = where(f, true);
    const at = f.label ? 'cl.last_message_at' : 'cv.last_message_at';
    const id = f.label ? 'cl.conversation_id' : 'cv.id';
    return `SELECT ${at} || ':' || ${id}, cv.id, cv.version, cv.last_inbound_at FROM ${from}
           WHERE ${w.join(' AND ')}
             AND (@cursorAt IS NULL OR ${at} < @cursorAt OR (${at} = @cursorAt AND ${id} < @cursorId))
           ORDER BY ${at} DESC, ${id} DESC LIMIT @limit`;
  }

  const listStatement = (f: ConversationFilter): Statement =>
    cached(`list${shape(f)}`, () => db.prepare(listSql(f)).raw());

  function countsSql(f: ConversationFilter): string {
    if (!f.q && !f.unread) {
      // Kept as rows change (the repo's inserts, triggers on updates and deletes): a handful of
      // rows whatever the size of the inbox.
      const assignee =
        f.assignee === undefined
          ? ''
          : f.assignee === null
            ? "AND assignee_key = ''"
            : 'AND assignee_key = @assignee';
      const [table, label] = f.label
        ? ['conversation_label_counts', 'AND label = @label']
        : ['conversation_counts', ''];
      return `SELECT status, sum(n) AS n FROM ${table}
           WHERE workspace_id = @workspaceId AND environment = @environment ${label} ${assignee} GROUP BY status`;
    }
    const from = f.label
      ? `conversation_labels cl JOIN conversations cv ON cv.rowid = cl.conversation_rowid`
      : 'conversations cv';
    const status = f.label ? 'cl.status' : 'cv.status';
    return `SELECT ${status} AS status, count(*) AS n FROM ${from} WHERE ${where(f, false).join(' AND ')} GROUP BY ${status}`;
  }

  const countsStatement = (f: ConversationFilter): Statement =>
    cached(`counts${shape(f)}`, () => db.prepare(countsSql(f)));

  const params = (scope: Scope, f: ConversationFilter) => ({
    workspaceId: scope.workspaceId,
    environment: scope.environment,
    status: f.status ?? null,
    assignee: f.assignee ?? null,
    label: f.label ?? null,
    like: f.q ? `%${escapeLike(f.q)}%` : null,
    match: f.q ? ftsQuery(f.q) : null,
    trigram: f.q ? `"${f.q.replace(/"/g, '""')}"` : null,
    ids: f.ids ? JSON.stringify(f.ids) : null,
  });

  return {
    byContact: (contactId: string, accountId: string) =>
      byContact.get(contactId, accountId) as ConversationRow | undefined,
    byId: (id: string) => byId.get(id) as ConversationRow | undefined,
    get: (scope: Scope, id: string) =>
      get.get(scope.workspaceId, scope.environment, id) as ConversationRow | undefined,
    insert: (
      r: Pick<
        ConversationRow,
        | 'id'
        | 'workspace_id'
        | 'environment'
        | 'contact_id'
        | 'business_account_id'
        | 'last_message_at'
        | 'created_at'
        | 'updated_at'
      > &
        Partial<Pick<ConversationRow, 'status' | 'assignee_id' | 'labels'>>,
    ) => {
      const row = { status: 'open', assignee_id: null, labels: '[]', ...r };
      insert.run(row);
      countConversation.run(row);
    },
    touchOutbound: (id: string, at: number, now: number) => touchOutbound.run(at, now, id),
    touchInbound: (r: {
      id: string;
      at: number;
      now: number;
      status: string;
      snoozed_until: number | null;
    }) => touchInbound.run(r),
    update: (r: ConversationRow) => update.run(r),
    /** The conversation's label rows; `fresh` for one just inserted (it has none to drop). */
    setLabels(r: ConversationRow, labels: string[], fresh = false) {
      if (!fresh) deleteLabels.run(r.id);
      for (const l of labels) {
        const row = {
          id: r.id,
          workspace_id: r.workspace_id,
          environment: r.environment,
          label: l,
          status: r.status,
          assignee_id: r.assignee_id,
          last_message_at: r.last_message_at,
        };
        if (insertLabel.run(row).changes === 1) countLabel.run(row);
      }
    },
    /**
     * The conversation's version (bumped on any change to its JSON) and its last message's id
     * (the one its JSON shows), or undefined if there is no such conversation.
     */
    versionAndLast: (id: string) => versionAndLast.get(id) as [number, string | null] | undefined,
    /** The conversation's API JSON (the same shape lists and events carry). */
    json(id: string, windowStart: number): string {
      const row = versionOf.get(id) as [string, number, number | null] | undefined;
      if (!row) throw new Error(`no conversation ${id}`);
      const body = bodiesFor([{ id, version: row[1] }]).get(id)!;
      return head(row[2], windowStart).toString() + body.toString();
    },
    list: (
      scope: Scope,
      f: ConversationFilter,
      cursor: { at: number; id: string } | null,
      limit: number,
      windowStart: number,
    ): { key: string; head: Buffer; body: Buffer }[] => {
      const rows = listStatement(f).all({
        ...params(scope, f),
        cursorAt: cursor?.at ?? null,
        cursorId: cursor?.id ?? null,
        limit,
      }) as [string, string, number, number | null][];
      const bodies = bodiesFor(rows.map(([, id, version]) => ({ id, version })));
      return rows.map(([key, id, , inbound]) => ({
        key,
        head: head(inbound, windowStart),
        body: bodies.get(id)!,
      }));
    },
    /** SQLite's query plans for a filter's page and counts (the tests hold them to indexes). */
    explain(f: ConversationFilter): { list: string[]; counts: string[] } {
      const values = { ...params({ workspaceId: '', environment: 'test' }, f), limit: 1 };
      const plan = (sql: string) =>
        (
          db
            .prepare(`EXPLAIN QUERY PLAN ${sql}`)
            .all({ ...values, cursorAt: null, cursorId: null }) as { detail: string }[]
        ).map((r) => r.detail);
      const { ids: _ids, ...view } = f;
      return { list: plan(listSql(f)), counts: plan(countsSql(view)) };
    },
    /** Per status, under every filter but `status` and `ids` (the tabs count the whole view). */
    counts: (scope: Scope, f: ConversationFilter) => {
      const { ids: _ids, ...view } = f;
      return countsStatement(view).all(params(scope, view)) as { status: string; n: number }[];
    },
  };
}
export type ConversationsRepo = ReturnType<typeof conversationsRepo>;
