import type { Database as Db } from 'better-sqlite3';
import { createHmac } from 'node:crypto';
import { ApiError } from '../../../../shared/errors.ts';
import type { Webhook, WebhookDelivery } from '../../../../shared/schemas/webhooks.ts';
import type { Outbox } from '../../events/outbox.ts';
import { envelopeJson } from '../../events/outbox.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import type { Clock, IdGenerator, Random, Scope } from '../../runtime.ts';
import { iso, isoOrNull, randomBase62 } from '../../runtime.ts';
import type { Outbound } from '../../net/outbound.ts';
import { OutboundError } from '../../net/outbound.ts';
import type { DeliveryRow, WebhookRow } from './repo.ts';
import { webhooksRepo } from './repo.ts';

/** Retries back off exponentially with jitter, for up to 3 days after the event. */
export const RETRY_WINDOW_MS = 3 * 24 * 3600_000;
const FIRST_RETRY_MS = 10_000;
const MAX_RETRY_MS = 6 * 3600_000;
const TIMEOUT_MS = 10_000;

const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  url: r.url,
  events: r.events ? (JSON.parse(r.events) as string[]) : null,
  description: r.description,
  createdAt: iso(r.created_at),
});

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  nextAttemptAt: r.status === 'pending' ? isoOrNull(r.next_attempt_at) : null,
  createdAt: iso(r.created_at),
  deliveredAt: isoOrNull(r.delivered_at),
});

/** `X-Parley-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` */
export function sign(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Standard Webhooks (standardwebhooks.com) `webhook-signature: v1,<base64 HMAC-SHA256(key, id +
 * "." + timestamp + "." + body)>`, so receivers can verify with any of its libraries. The key is
 * the secret after `whsec_`, base64-decoded: our 40 base62 characters are valid base64 (30
 * bytes), which is how those libraries read a `whsec_` secret.
 */
export function standardSignature(
  secret: string,
  messageId: string,
  timestamp: number,
  body: string,
): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

export function webhooksService(
  db: Db,
  clock: Clock,
  random: Random,
  ids: IdGenerator,
  scheduler: Scheduler,
  outbound: Outbound,
  outbox: Pick<Outbox, 'webhooksChanged'>,
) {
  const repo = webhooksRepo(db);
  const privateAllowed = (workspaceId: string) => repo.allowsPrivate(workspaceId);

  async function deliver(payload: { deliveryId: string }, attempt: number, signal: AbortSignal) {
    const { deliveryId } = payload;
    const d = repo.delivery(deliveryId);
    if (!d || d.status !== 'pending') return;
    const hook = repo.byId(d.webhook_id)!;
    const finish = (
      status: DeliveryRow['status'],
      code: number | null,
      error: string | null,
      next: number | null,
    ) =>
      repo.record({
        id: d.id,
        status,
        code,
        error,
        next,
        delivered: status === 'succeeded' ? clock.now() : null,
      });
    if (hook.deleted_at !== null) {
      finish('failed', null, 'the webhook was deleted', null);
      return;
    }
    const ev = repo.event(d.event_seq)!;
    const body = envelopeJson(ev);
    const timestamp = Math.floor(clock.now() / 1000);
    let code: number | null = null;
    let error: string;
    try {
      const res = await outbound.send({
        url: hook.url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Parley-Webhooks/1.0',
          'x-parley-signature': sign(hook.secret, timestamp, body),
          'x-parley-event-id': ev.id,
          'x-parley-event-type': ev.type,
          'x-parley-delivery-id': d.id,
          // Standard Webhooks: the id is the event's, the same on every retry, so receivers dedupe.
          'webhook-id': ev.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': standardSignature(hook.secret, ev.id, timestamp, body),
        },
        body,
        allowPrivate: privateAllowed(hook.workspace_id),
        timeoutMs: TIMEOUT_MS,
        signal,
      });
      code = res.status;
      if (code >= 200 && code < 300) {
        finish('succeeded', code, null, null);
        return;
      }
      error = `the receiver answered HTTP ${code}`;
    } catch (e) {
      // Shutting down is not the receiver's failure: the job runs again at the next start.
      if (!(e instanceof OutboundError) || signal.aborted) throw e;
      error = e.message;
    }
    const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 3 ** (attempt - 1));
    const delay = Math.round(base * (0.5 + (random.bytes(1)[0]! / 255) * 0.5));
    const next = clock.now() + delay;
    if (next - d.created_at > RETRY_WINDOW_MS) {
      finish('failed', code, `${error}; gave up after 3 days`, null);
      return;
    }
    finish('pending', code, error, next);
    throw new RetryLater(error, delay);
  }

  // Its own lane: receivers that hang hold up only deliveries, never dispatch or reviews. A
  // job the scheduler buries (its process kept dying under it) fails its delivery with the
  // reason: nothing stays pending forever, and the log offers a redelivery.
  scheduler.register(
    'webhook.deliver',
    (payload, ctx) => deliver(payload, ctx.attempt, ctx.signal),
    {
      sync: false,
      maxAttempts: 1000,
      concurrency: 16,
      onDead: (payload, error) => {
        const { deliveryId } = payload;
        repo.deliveryDied(deliveryId, error);
      },
    },
  );

  return {
    sign,
    /** The save-time address check (async: it may resolve the name). */
    async checkTarget(scope: Scope, body: { url: string }) {
      let refusal: string | null;
      try {
        refusal = await outbound.checkTarget(body.url, privateAllowed(scope.workspaceId));
      } catch (e) {
        if (!(e instanceof OutboundError)) throw e;
        throw new ApiError('validation_error', e.message, { param: 'url' });
      }
      if (refusal) {
        throw new ApiError(
          'validation_error',
          `${refusal}; allow private webhook targets in the workspace settings to use it`,
          { param: 'url' },
        );
      }
    },
    /** Stores a checked webhook; its secret is in this answer only. */
    create(scope: Scope, body: { url: string; events?: string[]; description?: string }) {
      const row: WebhookRow = {
        id: ids('wh'),
        workspace_id: scope.workspaceId,
        environment: scope.environment,
        url: body.url,
        secret: `whsec_${randomBase62(random, 40)}`,
        events: body.events ? JSON.stringify([...new Set(body.events)]) : null,
        description: body.description ?? null,
        created_at: clock.now(),
        deleted_at: null,
      };
      repo.insert(row);
      outbox.webhooksChanged();
      return { ...toWebhook(row), secret: row.secret };
    },
    list(scope: Scope, limit: number, cursor?: string) {
      const after = cursor ? decodeCursor(cursor) : null;
      const rows = repo.list(scope, after, limit + 1);
      return toPage(rows, limit, toWebhook, (r) => r.id);
    },
    remove(scope: Scope, id: string) {
      const row = repo.get(scope, id);
      if (!row) throw new ApiError('not_found', `no webhook ${id}`);
      repo.remove(id, clock.now());
      outbox.webhooksChanged();
      return { success: true as const, id };
    },
    deliveries(scope: Scope, id: string, limit: number, cursor?: string) {
      if (!repo.get(scope, id)) throw new ApiError('not_found', `no webhook ${id}`);
      const after = cursor ? decodeCursor(cursor) : null;
      const rows = repo.deliveries(id, after, limit + 1);
      return toPage(rows, limit, toDelivery, (r) => r.id);
    },
    /**
     * Sends a delivery's event again, as a new delivery of its own (retried for 3 days from
     * now); the old one stays in the log as it ended. One still pending is already on its way.
     */
    redeliver(scope: Scope, webhookId: string, deliveryId: string): WebhookDelivery {
      return db
        .transaction(() => {
          if (!repo.get(scope, webhookId))
            throw new ApiError('not_found', `no webhook ${webhookId}`);
          const d = repo.deliveryOf(webhookId, deliveryId);
          if (!d) {
            throw new ApiError('not_found', `no delivery ${deliveryId} of webhook ${webhookId}`, {
              param: 'deliveryId',
            });
          }
          if (d.status === 'pending') {
            throw new ApiError(
              'invalid_state',
              `delivery ${deliveryId} is still pending: it is retried by itself`,
              { details: { status: d.status } },
            );
          }
          const now = clock.now();
          const id = ids('whd');
          repo.insertDelivery(id, webhookId, d.event_seq, now);
          scheduler.enqueue('webhook.deliver', { deliveryId: id });
          return toDelivery(repo.deliveryOf(webhookId, id)!);
        })
        .immediate();
    },
  };
}
export type WebhooksService = ReturnType<typeof webhooksService>;
