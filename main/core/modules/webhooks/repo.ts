import type { Database as Db } from 'better-sqlite3';
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
  created_at: number;
  deleted_at: number | null;
}

/** A delivery with its event's id and type (the log's rows). */
export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_seq: number;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  created_at: number;
  delivered_at: number | null;
  event_id: string;
  event_type: string;
}

export function webhooksRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO webhooks (id, workspace_id, environment, url, secret, events, description, created_at)
     VALUES (@id, @workspace_id, @environment, @url, @secret, @events, @description, @created_at)`,
  );
  const get = db.prepare(
    'SELECT * FROM webhooks WHERE workspace_id = ? AND environment = ? AND id = ? AND deleted_at IS NULL',
  );
  const byId = db.prepare('SELECT * FROM webhooks WHERE id = ?');
  const list = db.prepare(
    `SELECT * FROM webhooks WHERE workspace_id = @workspaceId AND environment = @environment AND deleted_at IS NULL
       AND (@cursor IS NULL OR id < @cursor) ORDER BY id DESC LIMIT @limit`,
  );
  const remove = db.prepare('UPDATE webhooks SET deleted_at = ? WHERE id = ?');
  const allowsPrivate = db
    .prepare('SELECT allow_private_webhooks FROM workspaces WHERE id = ?')
    .pluck();
  const deliveries = db.prepare(
    `SELECT d.*, e.id AS event_id, e.type AS event_type FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
     WHERE d.webhook_id = @webhookId AND (@cursor IS NULL OR d.id < @cursor) ORDER BY d.id DESC LIMIT @limit`,
  );
  const delivery = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
  const event = db.prepare('SELECT * FROM events WHERE seq = ?');
  const record = db.prepare(
    `UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1, last_status_code = @code,
       last_error = @error, next_attempt_at = @next, delivered_at = @delivered WHERE id = @id`,
  );
  const jobEnded = db.prepare(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = @error, next_attempt_at = NULL
     WHERE id = @id AND status = 'pending'`,
  );
  const deliveryOf = db.prepare(
    `SELECT d.*, e.id AS event_id, e.type AS event_type FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
     WHERE d.webhook_id = ? AND d.id = ?`,
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
    byId: (id: string) => byId.get(id) as WebhookRow | undefined,
    list: (scope: Scope, cursor: string | null, limit: number) =>
      list.all({
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        cursor,
        limit,
      }) as WebhookRow[],
    remove: (id: string, at: number) => remove.run(at, id),
    /** The workspace's setting: may webhooks target private addresses. */
    allowsPrivate: (workspaceId: string) => allowsPrivate.get(workspaceId) === 1,
    deliveries: (webhookId: string, cursor: string | null, limit: number) =>
      deliveries.all({ webhookId, cursor, limit }) as DeliveryRow[],
    /** A delivery's own row (without its event's id and type). */
    delivery: (id: string) => delivery.get(id) as DeliveryRow | undefined,
    event: (seq: number) => event.get(seq) as EventRow | undefined,
    /** One attempt's end: its status, the receiver's answer and the next try (if any). */
    record: (r: {
      id: string;
      status: DeliveryRow['status'];
      code: number | null;
      error: string | null;
      next: number | null;
      delivered: number | null;
    }) => record.run(r),
    /** The delivery's job was buried: a pending delivery fails with the reason. */
    deliveryDied: (id: string, error: string) => jobEnded.run({ id, error }),
    deliveryOf: (webhookId: string, id: string) =>
      deliveryOf.get(webhookId, id) as DeliveryRow | undefined,
    insertDelivery: (id: string, webhookId: string, eventSeq: number, at: number) =>
      insertDelivery.run(id, webhookId, eventSeq, at, at),
  };
}
