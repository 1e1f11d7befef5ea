import type { Database as Db } from 'better-sqlite3';
import type { EventPayloads, EventType } from '../../../shared/schemas/events.ts';
import type { Scheduler } from '../jobs/scheduler.ts';
import type { Clock, IdGenerator, Scope } from '../runtime.ts';
import { iso } from '../runtime.ts';

export interface EventRow {
  seq: number;
  id: string;
  workspace_id: string;
  environment: string;
  type: string;
  data: string;
  created_at: number;
  /** The campaign a per-recipient event belongs to (its send, status or conversation). */
  campaign_id: string | null;
}

/** The events a campaign's recipient causes (a low balance, say, is the workspace's, not theirs). */
const PER_RECIPIENT = /^(message|conversation)\./;

/** The event envelope as JSON, built around the stored data without re-parsing it. */
export function envelopeJson(r: EventRow): string {
  return (
    `{"id":${JSON.stringify(r.id)},"type":${JSON.stringify(r.type)},"createdAt":"${iso(r.created_at)}",` +
    `"workspaceId":${JSON.stringify(r.workspace_id)},"environment":"${r.environment}","data":${r.data}}`
  );
}

/**
 * The outbox: `emit` writes one event row in the caller's transaction (so it commits or rolls
 * back with the state change), plus a delivery and a job per matching webhook. After the commit
 * the stream hub is told to fan out.
 */
export function createOutbox(db: Db, clock: Clock, ids: IdGenerator, scheduler: Scheduler) {
  const insert = db.prepare(
    `INSERT INTO events (id, workspace_id, environment, type, data, created_at, campaign_id)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const hooks = db.prepare(
    `SELECT id, events FROM webhooks
     WHERE workspace_id = ? AND environment = ? AND deleted_at IS NULL AND enabled = 1`,
  );
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_seq, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const listeners = new Set<() => void>();
  let flushQueued = false;
  /** The campaign whose recipient is being written now (see `forCampaign`). */
  let campaignId: string | null = null;

  // Webhook subscriptions per scope, read once and kept while nothing changes them: every emit
  // needs them, and they change rarely. Another process's commit moves `data_version`; this
  // process's own writes (the webhooks service is the one writer of that table) call
  // webhooksChanged(). Until the tick of such a write has ended (its
  // transaction committed or rolled back) the table is read each time, so no subscription a
  // rollback undid is ever kept.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const subscriptions = new Map<string, { id: string; types: Set<string> | null }[]>();
  let subscriptionsVersion: unknown = null;
  let inFlux = false;
  function subscriptionsOf(scope: Scope) {
    const read = () =>
      (
        hooks.all(scope.workspaceId, scope.environment) as { id: string; events: string | null }[]
      ).map((h) => ({
        id: h.id,
        types: h.events ? new Set(JSON.parse(h.events) as string[]) : null,
      }));
    if (inFlux) return read();
    const version = dataVersion.get();
    if (version !== subscriptionsVersion) {
      subscriptions.clear();
      subscriptionsVersion = version;
    }
    const key = `${scope.workspaceId}:${scope.environment}`;
    let subs = subscriptions.get(key);
    if (!subs) subscriptions.set(key, (subs = read()));
    return subs;
  }

  function afterCommit() {
    if (flushQueued) return;
    flushQueued = true;
    // better-sqlite3 transactions are synchronous: by the next turn the write has committed
    // (or rolled back, in which case the listeners find nothing new).
    setImmediate(() => {
      flushQueued = false;
      for (const l of listeners) l();
    });
  }

  return {
    emit<T extends EventType>(scope: Scope, type: T, data: EventPayloads[T]): void {
      const now = clock.now();
      const id = ids('evt');
      const seq = Number(
        insert.run(
          id,
          scope.workspaceId,
          scope.environment,
          type,
          JSON.stringify(data),
          now,
          campaignId !== null && PER_RECIPIENT.test(type) ? campaignId : null,
        ).lastInsertRowid,
      );
      for (const h of subscriptionsOf(scope)) {
        if (h.types && !h.types.has(type)) continue;
        const deliveryId = ids('whd');
        insertDelivery.run(deliveryId, h.id, seq, now, now);
        scheduler.enqueue('webhook.deliver', { deliveryId });
      }
      afterCommit();
    },
    /**
     * Runs `fn` (synchronous: inside the caller's transaction) with every event it emits marked
     * as one of the campaign's per-recipient events; `null` marks nothing. Streams that take
     * campaigns as a summary leave those out (hub.ts).
     */
    forCampaign<T>(id: string | null, fn: () => T): T {
      if (id === null || campaignId === id) return fn();
      const outer = campaignId;
      campaignId = id;
      try {
        return fn();
      } finally {
        campaignId = outer;
      }
    },
    /** This process wrote to `webhooks`: forget the subscriptions, and keep none this tick. */
    webhooksChanged() {
      subscriptions.clear();
      if (inFlux) return;
      inFlux = true;
      setImmediate(() => {
        inFlux = false;
        subscriptions.clear();
      });
    },
    onCommit(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
export type Outbox = ReturnType<typeof createOutbox>;
