import type { Database as Db, Statement } from 'better-sqlite3';
import type {
  BlockedBy,
  CampaignStatus,
  PauseReason,
  RecipientStatus,
} from '../../../../shared/campaign-rules.ts';
import type { CampaignTarget } from '../../../../shared/schemas/campaigns.ts';
import type { Scope } from '../../runtime.ts';

export interface CampaignRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  name: string;
  template_name: string;
  variables: string;
  target: string;
  status: CampaignStatus;
  scheduled_for: number | null;
  pause_reason: PauseReason | null;
  failure_reason: string | null;
  total: number;
  n_pending: number;
  n_retrying: number;
  n_sent: number;
  n_delivered: number;
  n_read: number;
  n_failed: number;
  n_skipped: number;
  blocked_until: number | null;
  blocked_by: BlockedBy | null;
  recent_outcomes: string;
  progress_at: number;
  created_at: number;
  updated_at: number;
  launched_at: number | null;
  completed_at: number | null;
}

export interface RecipientRow {
  id: number;
  campaign_id: string;
  contact_id: string;
  phone: string;
  variables: string;
  status: RecipientStatus;
  attempts: number;
  due_at: number;
  message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  updated_at: number;
}

/** A recipient as the runner claims it: with its contact's service window. */
export interface DueRecipient {
  id: number;
  contact_id: string;
  phone: string;
  variables: string;
  attempts: number;
  last_inbound_at: number | null;
}

/** A contact the target matches, with what placeholders read. */
export interface AudienceContact {
  id: string;
  /** E.164, or null for a contact known only by its BSUID. */
  phone: string | null;
  wa_user_id: string | null;
  name: string | null;
  email: string | null;
  attributes: string;
}

export type NewRecipient = Omit<RecipientRow, 'id'>;

const ACTIVE = `status IN ('pending', 'retrying')`;

export function campaignsRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO campaigns (id, workspace_id, environment, name, template_name, variables, target, scheduled_for,
       created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @name, @template_name, @variables, @target, @scheduled_for,
       @created_at, @updated_at)`,
  );
  const get = db.prepare('SELECT * FROM campaigns WHERE id = ?');
  const inScope = db.prepare(
    'SELECT * FROM campaigns WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const updateDraft = db.prepare(
    `UPDATE campaigns SET name = @name, template_name = @template_name, variables = @variables,
       target = @target, scheduled_for = @scheduled_for, updated_at = @updated_at WHERE id = @id`,
  );
  const setState = db.prepare(
    `UPDATE campaigns SET status = @status, pause_reason = @pause_reason, failure_reason = @failure_reason,
       scheduled_for = @scheduled_for, launched_at = @launched_at, completed_at = @completed_at,
       blocked_until = @blocked_until, blocked_by = @blocked_by, updated_at = @updated_at WHERE id = @id`,
  );
  const setPass = db.prepare(
    `UPDATE campaigns SET blocked_until = @blocked_until, blocked_by = @blocked_by,
       recent_outcomes = @recent_outcomes WHERE id = @id`,
  );
  const setProgressAt = db.prepare('UPDATE campaigns SET progress_at = ? WHERE id = ?');
  const list = db.prepare(
    `SELECT * FROM campaigns WHERE workspace_id = @workspaceId AND environment = @environment
       AND (@status IS NULL OR status = @status) AND (@cursor IS NULL OR id < @cursor)
     ORDER BY id DESC LIMIT @limit`,
  );
  const listForContact = db.prepare(
    `SELECT c.*, r.status AS r_status, r.message_id AS r_message_id, r.error_code AS r_error_code,
       r.error_message AS r_error_message, r.updated_at AS r_updated_at
     FROM campaign_recipients r JOIN campaigns c ON c.id = r.campaign_id
     WHERE r.contact_id = @contactId AND c.workspace_id = @workspaceId AND c.environment = @environment
       AND (@status IS NULL OR c.status = @status) AND (@cursor IS NULL OR r.campaign_id < @cursor)
     ORDER BY r.campaign_id DESC LIMIT @limit`,
  );

  // A launch's recipients in one statement (one call for thousands of rows, not one each):
  // [contact_id, phone, variables, error_message|null] per row, failed when it has an error.
  const insertRecipients = db.prepare(
    `INSERT INTO campaign_recipients (campaign_id, contact_id, phone, variables, status, attempts,
       due_at, message_id, error_code, error_message, updated_at)
     SELECT @campaign_id, value->>0, value->>1, value->>2,
       CASE WHEN value->>3 IS NULL THEN 'pending' ELSE 'failed' END, 0, @now, NULL,
       CASE WHEN value->>3 IS NULL THEN NULL ELSE 'variable_missing' END, value->>3, @now
     FROM json_each(@rows)`,
  );
  const due = db.prepare(
    `SELECT r.id, r.contact_id, r.phone, r.variables, r.attempts, c.last_inbound_at
     FROM campaign_recipients r JOIN contacts c ON c.id = r.contact_id
     WHERE r.campaign_id = ? AND r.${ACTIVE} AND r.due_at <= ?
     ORDER BY r.due_at, r.id LIMIT ?`,
  );
  const anyDue = db
    .prepare(
      `SELECT 1 FROM campaign_recipients WHERE campaign_id = ? AND ${ACTIVE} AND due_at <= ? LIMIT 1`,
    )
    .pluck();
  const nextDue = db
    .prepare(`SELECT min(due_at) FROM campaign_recipients WHERE campaign_id = ? AND ${ACTIVE}`)
    .pluck();
  const settle = db.prepare(
    `UPDATE campaign_recipients SET status = @status, attempts = @attempts, due_at = @due_at,
       message_id = @message_id, error_code = @error_code, error_message = @error_message,
       updated_at = @updated_at WHERE id = @id`,
  );
  const hold = db.prepare('UPDATE campaign_recipients SET due_at = ? WHERE id = ?');
  const sendingIds = db
    .prepare(`SELECT id FROM campaigns WHERE workspace_id = ? AND status = 'sending'`)
    .pluck();
  // Pending rows due later were held by the governor (retries are `retrying`): free them.
  const unhold = db.prepare(
    `UPDATE campaign_recipients SET due_at = @now
     WHERE campaign_id = @id AND status = 'pending' AND due_at > @now`,
  );
  const skipRest = db.prepare(
    `UPDATE campaign_recipients SET status = 'skipped', error_code = @code, error_message = @message,
       updated_at = @now WHERE campaign_id = @id AND ${ACTIVE}`,
  );
  const recipientPage = (withStatus: boolean) =>
    db.prepare(
      `SELECT r.*, ct.name FROM campaign_recipients r JOIN contacts ct ON ct.id = r.contact_id
       WHERE r.campaign_id = @campaignId ${withStatus ? 'AND r.status = @status' : ''}
         AND (@cursor IS NULL OR r.id > @cursor)
       ORDER BY r.id LIMIT @limit`,
    );
  const pageAll = recipientPage(false);
  const pageByStatus = recipientPage(true);

  const addSecond = db.prepare(
    `INSERT INTO campaign_seconds (campaign_id, second, sent, failed) VALUES (?, ?, ?, ?)
     ON CONFLICT (campaign_id, second) DO UPDATE SET sent = sent + excluded.sent, failed = failed + excluded.failed`,
  );
  const sentBetween = db
    .prepare(
      `SELECT coalesce(sum(sent), 0) FROM campaign_seconds
       WHERE campaign_id = ? AND second >= ? AND second <= ?`,
    )
    .pluck();
  const sendingInScope = db
    .prepare(
      `SELECT count(*) FROM campaigns WHERE workspace_id = ? AND environment = ? AND status = 'sending'`,
    )
    .pluck();
  const span = db.prepare(
    'SELECT min(second) AS first, max(second) AS last FROM campaign_seconds WHERE campaign_id = ?',
  );
  const buckets = db.prepare(
    `SELECT (second / @size) * @size AS at, sum(sent) AS sent, sum(failed) AS failed
     FROM campaign_seconds WHERE campaign_id = @id GROUP BY 1 ORDER BY 1`,
  );

  // Audience statements, one per shape of target (built on first use).
  const audience = new Map<string, Statement>();
  // Email audiences (`emailRows`, `emailCounts`) are the same contacts, those with an email that
  // have not unsubscribed from it.
  function audienceStatement(
    target: CampaignTarget,
    use: 'rows' | 'count' | 'emailRows' | 'emailCounts',
  ): Statement {
    const f = target.filter;
    const key = `${use}:${target.groupId ? 'g' : `f${+!!f?.labels}${+!!f?.phones}${+!!f?.attributes}`}`;
    let stmt = audience.get(key);
    if (stmt) return stmt;
    const where = ['c.workspace_id = @workspaceId', 'c.environment = @environment'];
    if (target.groupId) {
      where.push('c.id IN (SELECT contact_id FROM group_members WHERE group_id = @groupId)');
    }
    if (f?.labels) {
      where.push(`c.id IN (SELECT contact_id FROM contact_labels WHERE workspace_id = @workspaceId
        AND environment = @environment AND label IN (SELECT value FROM json_each(@labels)))`);
    }
    if (f?.phones) where.push('c.phone IN (SELECT value FROM json_each(@phones))');
    if (f?.attributes) {
      // Every wanted attribute is present with an equal value of the same kind.
      where.push(`NOT EXISTS (SELECT 1 FROM json_each(@attributes) want WHERE NOT EXISTS (
        SELECT 1 FROM json_each(c.attributes) have WHERE have.key = want.key AND have.value = want.value
          AND (have.type IN ('true', 'false')) = (want.type IN ('true', 'false'))
          AND (have.type = 'text') = (want.type = 'text')))`);
    }
    const mailable = `c.email IS NOT NULL AND c.email != '' AND c.email_unsubscribed_at IS NULL`;
    if (use === 'emailRows') where.push(mailable);
    const sql =
      use === 'count'
        ? `SELECT count(*) FROM contacts c WHERE ${where.join(' AND ')}`
        : use === 'emailCounts'
          ? `SELECT coalesce(sum(${mailable}), 0) AS total,
               coalesce(sum(c.email IS NULL OR c.email = ''), 0) AS withoutEmail,
               coalesce(sum(c.email IS NOT NULL AND c.email != '' AND c.email_unsubscribed_at IS NOT NULL), 0)
                 AS unsubscribed
             FROM contacts c WHERE ${where.join(' AND ')}`
          : `SELECT c.id, c.phone, c.wa_user_id, c.name, c.email, c.attributes FROM contacts c
           WHERE ${where.join(' AND ')} ORDER BY c.id LIMIT @limit`;
    stmt = db.prepare(sql);
    if (use === 'count') stmt.pluck();
    audience.set(key, stmt);
    return stmt;
  }
  const audienceParams = (scope: Scope, t: CampaignTarget, limit = -1) => ({
    workspaceId: scope.workspaceId,
    environment: scope.environment,
    groupId: t.groupId ?? null,
    labels: t.filter?.labels ? JSON.stringify(t.filter.labels) : null,
    phones: t.filter?.phones ? JSON.stringify(t.filter.phones) : null,
    attributes: t.filter?.attributes ? JSON.stringify(t.filter.attributes) : null,
    limit,
  });

  return {
    insert: (
      r: Pick<
        CampaignRow,
        | 'id'
        | 'workspace_id'
        | 'environment'
        | 'name'
        | 'template_name'
        | 'variables'
        | 'target'
        | 'scheduled_for'
        | 'created_at'
        | 'updated_at'
      >,
    ) => insert.run(r),
    get: (id: string) => get.get(id) as CampaignRow | undefined,
    inScope: (s: Scope, id: string) =>
      inScope.get(s.workspaceId, s.environment, id) as CampaignRow | undefined,
    updateDraft: (r: CampaignRow) => updateDraft.run(r),
    setState: (r: CampaignRow) => setState.run(r),
    setPass: (p: {
      id: string;
      blocked_until: number | null;
      blocked_by: BlockedBy | null;
      recent_outcomes: string;
    }) => setPass.run(p),
    setProgressAt: (id: string, at: number) => setProgressAt.run(at, id),
    list: (p: {
      workspaceId: string;
      environment: string;
      status: string | null;
      cursor: string | null;
      limit: number;
    }) => list.all(p) as CampaignRow[],
    listForContact: (p: {
      contactId: string;
      workspaceId: string;
      environment: string;
      status: string | null;
      cursor: string | null;
      limit: number;
    }) =>
      listForContact.all(p) as (CampaignRow & {
        r_status: RecipientStatus;
        r_message_id: string | null;
        r_error_code: string | null;
        r_error_message: string | null;
        r_updated_at: number;
      })[],

    /** Recipients fixed at launch: [contactId, phone, variables JSON, variable error or null]. */
    insertRecipients: (
      campaignId: string,
      rows: [string, string, string, string | null][],
      now: number,
    ) => insertRecipients.run({ campaign_id: campaignId, rows: JSON.stringify(rows), now }),
    due: (campaignId: string, now: number, limit: number) =>
      due.all(campaignId, now, limit) as DueRecipient[],
    anyDue: (campaignId: string, now: number) => anyDue.get(campaignId, now) !== undefined,
    nextDue: (campaignId: string) => nextDue.get(campaignId) as number | null,
    settle: (r: Omit<RecipientRow, 'campaign_id' | 'contact_id' | 'phone' | 'variables'>) =>
      settle.run(r),
    hold: (id: number, until: number) => hold.run(until, id),
    sendingIds: (workspaceId: string) => sendingIds.all(workspaceId) as string[],
    unhold: (id: string, now: number) => unhold.run({ id, now }).changes,
    skipRest: (id: string, code: string, message: string, now: number) =>
      skipRest.run({ id, code, message, now }).changes,
    recipients: (p: {
      campaignId: string;
      status?: string;
      cursor: number | null;
      limit: number;
    }) =>
      (p.status ? pageByStatus : pageAll).all({
        campaignId: p.campaignId,
        status: p.status ?? null,
        cursor: p.cursor,
        limit: p.limit,
      }) as (RecipientRow & { name: string | null })[],

    addSecond: (id: string, second: number, sent: number, failed: number) =>
      addSecond.run(id, second, sent, failed),
    /** Hand-overs in the whole seconds `from`…`to` (epoch seconds, inclusive). */
    sentBetween: (id: string, from: number, to: number) => sentBetween.get(id, from, to) as number,
    /** Campaigns sending in a scope: they share its account's throughput. */
    sendingInScope: (workspaceId: string, environment: string) =>
      sendingInScope.get(workspaceId, environment) as number,
    timeline(id: string, maxPoints: number) {
      const s = span.get(id) as { first: number | null; last: number | null };
      if (s.first === null || s.last === null) return { size: 1, rows: [] };
      const size = Math.max(1, Math.ceil((s.last - s.first + 1) / maxPoints));
      return {
        size,
        rows: buckets.all({ id, size }) as { at: number; sent: number; failed: number }[],
      };
    },

    audienceRows: (s: Scope, t: CampaignTarget, limit = -1) =>
      audienceStatement(t, 'rows').all(audienceParams(s, t, limit)) as AudienceContact[],
    audienceCount: (s: Scope, t: CampaignTarget) =>
      audienceStatement(t, 'count').get(audienceParams(s, t)) as number,
    emailAudienceRows: (s: Scope, t: CampaignTarget, limit = -1) =>
      audienceStatement(t, 'emailRows').all(audienceParams(s, t, limit)) as AudienceContact[],
    emailAudienceCounts: (s: Scope, t: CampaignTarget) =>
      audienceStatement(t, 'emailCounts').get(audienceParams(s, t)) as {
        total: number;
        withoutEmail: number;
        unsubscribed: number;
      },
  };
}
export type CampaignsRepo = ReturnType<typeof campaignsRepo>;
