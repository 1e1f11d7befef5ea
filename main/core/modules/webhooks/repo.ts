import type { Database as Db } from 'better-sqlite3';
import type { DeliveryStatus } from '../../../../shared/schemas/webhooks.ts';
import type { EventRow } from '../../events/outbox.ts';
import type { Scope } from '../../runtime.ts';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  environment: string;
  url: string;
  secret: string;
  events: string | null;
  description: string | null;
  enabled: 0 | 1;
  created_at: number;
  deleted_at: number | null;
}

/** A webhook with its newest delivery (the list's rows; `ld_*` are null before the first). */
export interface WebhookListRow extends WebhookRow {
  ld_id: string | null;
  ld_status: DeliveryStatus | null;
  ld_code: number | null;
  ld_created_at: number | null;
  ld_attempt_at: number | null;
  ld_event_type: string | null;
}

/** A delivery with its event's id and type (the log's rows). */
export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_seq: number;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  response_excerpt: string | null;
  response_truncated: 0 | 1;
  next_attempt_at: number | null;
  created_at: number;
  delivered_at: number | null;
  event_id: string;
  event_type: string;
}

/** One attempt's end: its status, the receiver's answer and the next try (if any). */
export interface AttemptRecord {
  id: string;
  status: DeliveryStatus;
  code: number | null;
  error: string | null;
  excerpt: string | null;
  truncated: boolean;
  at: number;
  next: number | null;
  delivered: number | null;
}

const WITH_LAST_DELIVERY = `SELECT w.*, d.id AS ld_id, d.status AS ld_status, d.last_status_code AS ld_code,
    d.created_at AS ld_created_at, d.last_attempt_at AS ld_attempt_at, e.type AS ld_event_type
  FROM webhooks w
  LEFT JOIN webhook_deliveries d
    ON d.id = (SELECT id FROM webhook_deliveries WHERE webhook_id = w.id ORDER BY id DESC LIMIT 1)
  LEFT JOIN events e ON e.seq = d.event_seq`;

const DELIVERY = `SELECT d.*, e.id AS event_id, e.type AS event_type
  FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq`;

export function webhooksRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO webhooks (id, workspace_id, environment, url, secret, events, description, enabled, created_at)
     VALUES (@id, @workspace_id, @environment, @url, @secret, @events, @description, @enabled, @created_at)`,
  );
  const get = db.prepare(
    'SELECT * FROM webhooks WHERE workspace_id = ? AND environment = ? AND id = ? AND deleted_at IS NULL',
  );
  const getListed = db.prepare(`${WITH_LAST_DELIVERY} WHERE w.id = ?`);
  const byId = db.prepare('SELECT * FROM webhooks WHERE id = ?');
  const list = db.prepare(
    `${WITH_LAST_DELIVERY}
     WHERE w.workspace_id = @workspaceId AND w.environment = @environment AND w.deleted_at IS NULL
       AND (@cursor IS NULL OR w.id < @cursor) ORDER BY w.id DESC LIMIT @limit`,
  );
  const update = db.prepare(
    `UPDATE webhooks SET url = @url, events = @events, description = @description, enabled = @enabled
     WHERE id = @id`,
  );
  const remove = db.prepare('UPDATE webhooks SET deleted_at = ? WHERE id = ?');
  const allowsPrivate = db
    .prepare('SELECT allow_private_webhooks FROM workspaces WHERE id = ?')
    .pluck();
  const deliveries = db.prepare(
    `${DELIVERY}
     WHERE d.webhook_id = @webhookId AND (@status IS NULL OR d.status = @status)
       AND (@cursor IS NULL OR d.id < @cursor) ORDER BY d.id DESC LIMIT @limit`,
  );
  const delivery = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
  const event = db.prepare('SELECT * FROM events WHERE seq = ?');
  const record = db.prepare(
    `UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1, last_status_code = @code,
       last_error = @error, response_excerpt = @excerpt, response_truncated = @truncated,
       last_attempt_at = @at, next_attempt_at = @next, delivered_at = @delivered
     WHERE id = @id`,
  );
  const ended = db.prepare(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = @error, next_attempt_at = NULL
     WHERE id = @id AND status = 'pending'`,
  );
  const pendingEnded = db.prepare(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = @error, next_attempt_at = NULL
     WHERE webhook_id = @webhookId AND status = 'pending'`,
  );
  const deliveryOf = db.prepare(`${DELIVERY} WHERE d.webhook_id = ? AND d.id = ?`);
  const pendingOfEvent = db
    .prepare(
      `SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND event_seq = ? AND status = 'pending'
       ORDER BY id DESC LIMIT 1`,
    )
    .pluck();
  // A delivery's job (the scheduler's row): moved to now when it is waiting for its next try,
  // or found leased when an attempt is under way.
  const jobOf = `kind = 'webhook.deliver' AND status = 'queued'
    AND json_extract(payload, '$.deliveryId') = @id`;
  const jobNow = db.prepare(
    `UPDATE jobs SET run_at = @now WHERE ${jobOf} AND (lease_until IS NULL OR lease_until <= @now)`,
  );
  const jobLeased = db
    .prepare(`SELECT 1 FROM jobs WHERE ${jobOf} AND lease_until > @now LIMIT 1`)
    .pluck();
  const dueNow = db.prepare(
    "UPDATE webhook_deliveries SET next_attempt_at = @now WHERE id = @id AND status = 'pending'",
  );
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_seq, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  return {
    insert: (r: WebhookRow) => insert.run(r),
    /** A live (not deleted) webhook of the scope. */
    get: (scope: Scope, id: string) =>
      get.get(scope.workspaceId, scope.environment, id) as WebhookRow | undefined,
    /** A webhook with its newest delivery. */
    listed: (id: string) => getListed.get(id) as WebhookListRow | undefined,
    byId: (id: string) => byId.get(id) as WebhookRow | undefined,
    list: (scope: Scope, cursor: string | null, limit: number) =>
      list.all({
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        cursor,
        limit,
      }) as WebhookListRow[],
    update: (r: Pick<WebhookRow, 'id' | 'url' | 'events' | 'description' | 'enabled'>) =>
      update.run(r),
    remove: (id: string, at: number) => remove.run(at, id),
    /** The workspace's setting: may webhooks target private addresses. */
    allowsPrivate: (workspaceId: string) => allowsPrivate.get(workspaceId) === 1,
    deliveries: (
      webhookId: string,
      status: DeliveryStatus | null,
      cursor: string | null,
      limit: number,
    ) => deliveries.all({ webhookId, status, cursor, limit }) as DeliveryRow[],
    /** A delivery's own row (without its event's id and type). */
    delivery: (id: string) =>
      delivery.get(id) as Omit<DeliveryRow, 'event_id' | 'event_type'> | undefined,
    event: (seq: number) => event.get(seq) as EventRow | undefined,
    record: (r: AttemptRecord) => record.run({ ...r, truncated: r.truncated ? 1 : 0 }),
    /** A pending delivery ends failed with the reason (its job was buried, its webhook is off). */
    endDelivery: (id: string, error: string) => ended.run({ id, error }),
    /** Every pending delivery of the webhook ends failed with the reason (it was disabled). */
    endPending: (webhookId: string, error: string) =>
      pendingEnded.run({ webhookId, error }).changes,
    deliveryOf: (webhookId: string, id: string) =>
      deliveryOf.get(webhookId, id) as DeliveryRow | undefined,
    /** A delivery of the same event to the webhook still on its way, if any. */
    pendingOfEvent: (webhookId: string, eventSeq: number) =>
      pendingOfEvent.get(webhookId, eventSeq) as string | undefined,
    /**
     * A pending delivery's next try moves to now: 'moved', or 'sending' while an attempt is
     * under way (its job is leased), or 'no_job' when its job is gone.
     */
    tryNow: (id: string, now: number): 'moved' | 'sending' | 'no_job' => {
      if (jobNow.run({ id, now }).changes > 0) {
        dueNow.run({ id, now });
        return 'moved';
      }
      return jobLeased.get({ id, now }) ? 'sending' : 'no_job';
    },
    insertDelivery: (id: string, webhookId: string, eventSeq: number, at: number) =>
      insertDelivery.run(id, webhookId, eventSeq, at, at),
  };
}
