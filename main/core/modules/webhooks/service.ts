import type { Database as Db } from 'better-sqlite3';
import { createHmac } from 'node:crypto';
import { ApiError } from '../../../../shared/errors.ts';
import type {
  CreateWebhookBody,
  DeliveryStatus,
  UpdateWebhookBody,
  Webhook,
  WebhookDelivery,
} from '../../../../shared/schemas/webhooks.ts';
import { RESPONSE_EXCERPT_BYTES } from '../../../../shared/schemas/webhooks.ts';
import type { Outbox } from '../../events/outbox.ts';
import { envelopeJson } from '../../events/outbox.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import type { Clock, IdGenerator, Random, Scope } from '../../runtime.ts';
import { iso, isoOrNull, randomBase62 } from '../../runtime.ts';
import type { Outbound } from '../../net/outbound.ts';
import { OutboundError } from '../../net/outbound.ts';
import type { DeliveryRow, WebhookListRow, WebhookRow } from './repo.ts';
import { webhooksRepo } from './repo.ts';

/** Retries back off exponentially with jitter, for up to 3 days after the event. */
export const RETRY_WINDOW_MS = 3 * 24 * 3600_000;
const FIRST_RETRY_MS = 10_000;
const MAX_RETRY_MS = 6 * 3600_000;
const TIMEOUT_MS = 10_000;

/**
 * Where a refused private target can be allowed, in the words of the desk (the workspace's
 * `allowPrivateWebhooks`, also `parley settings set allowPrivateWebhooks true`).
 */
export const PRIVATE_TARGETS_HINT =
  'an admin can allow private addresses under Settings → Workspace → Webhooks';

/** Why a delivery still on its way ends when its webhook is disabled. */
const DISABLED_REASON =
  'the webhook was disabled before it was delivered; redeliver it once the webhook is enabled';

const toWebhook = (r: WebhookListRow): Webhook => ({
  id: r.id,
  url: r.url,
  events: r.events ? (JSON.parse(r.events) as string[]) : null,
  description: r.description,
  enabled: r.enabled === 1,
  createdAt: iso(r.created_at),
  lastDelivery:
    r.ld_id === null
      ? null
      : {
          id: r.ld_id,
          eventType: r.ld_event_type ?? '',
          status: r.ld_status!,
          lastStatusCode: r.ld_code,
          createdAt: iso(r.ld_created_at!),
          lastAttemptAt: isoOrNull(r.ld_attempt_at),
        },
});

/** A new webhook's row as the list reads it: no delivery yet. */
const unlisted = (r: WebhookRow): WebhookListRow => ({
  ...r,
  ld_id: null,
  ld_status: null,
  ld_code: null,
  ld_created_at: null,
  ld_attempt_at: null,
  ld_event_type: null,
});

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  lastAttemptAt: isoOrNull(r.last_attempt_at),
  responseExcerpt: r.response_excerpt,
  responseTruncated: r.response_truncated === 1,
  nextAttemptAt: r.status === 'pending' ? isoOrNull(r.next_attempt_at) : null,
  createdAt: iso(r.created_at),
  deliveredAt: isoOrNull(r.delivered_at),
});

/**
 * The answer's first bytes as text; when it was cut, a character cut in half is left out rather
 * than shown as a replacement mark.
 */
function excerptOf(body: Buffer, truncated: boolean): string | null {
  if (body.length === 0) return null;
  return new TextDecoder('utf-8').decode(body, { stream: truncated });
}

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
    const startedAt = clock.now();
    let answer: { code: number | null; excerpt: string | null; truncated: boolean } = {
      code: null,
      excerpt: null,
      truncated: false,
    };
    const finish = (status: DeliveryStatus, error: string | null, next: number | null) =>
      repo.record({
        id: d.id,
        status,
        ...answer,
        error,
        at: startedAt,
        next,
        delivered: status === 'succeeded' ? clock.now() : null,
      });
    // Ends it without an attempt: the log keeps the last answer it had.
    const giveUp = (error: string) => repo.endDelivery(d.id, error);
    if (hook.deleted_at !== null) return void giveUp('the webhook was deleted');
    if (hook.enabled === 0) return void giveUp(DISABLED_REASON);
    // However it keeps failing (even in ways the retries below do not see), it ends after 3 days.
    if (startedAt - d.created_at > RETRY_WINDOW_MS) {
      return void giveUp(`${d.last_error ?? 'no answer'}; gave up after 3 days`);
    }
    const ev = repo.event(d.event_seq)!;
    const body = envelopeJson(ev);
    const timestamp = Math.floor(startedAt / 1000);
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
        maxResponseBytes: RESPONSE_EXCERPT_BYTES,
        signal,
      });
      const code = res.status;
      answer = { code, excerpt: excerptOf(res.body, res.truncated), truncated: res.truncated };
      if (code >= 200 && code < 300) {
        finish('succeeded', null, null);
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
      finish('failed', `${error}; gave up after 3 days`, null);
      return;
    }
    finish('pending', error, next);
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
        repo.endDelivery(deliveryId, error);
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
        throw new ApiError('validation_error', `${refusal}; ${PRIVATE_TARGETS_HINT}`, {
          param: 'url',
        });
      }
    },
    /** Stores a checked webhook; its secret is in this answer only. */
    create(scope: Scope, body: CreateWebhookBody) {
      const row: WebhookRow = {
        id: ids('wh'),
        workspace_id: scope.workspaceId,
        environment: scope.environment,
        url: body.url,
        secret: `whsec_${randomBase62(random, 40)}`,
        events: body.events ? JSON.stringify([...new Set(body.events)]) : null,
        description: body.description ?? null,
        enabled: 1,
        created_at: clock.now(),
        deleted_at: null,
      };
      repo.insert(row);
      outbox.webhooksChanged();
      return { ...toWebhook(unlisted(row)), secret: row.secret };
    },
    get(scope: Scope, id: string): Webhook {
      if (!repo.get(scope, id)) throw new ApiError('not_found', `no webhook ${id}`);
      return toWebhook(repo.listed(id)!);
    },
    /**
     * Turns deliveries off or on, or changes what and where it delivers (a new `url` is checked
     * by `checkTarget` first). Disabling ends the deliveries still on their way, `failed` with
     * the reason: they can be redelivered once it is enabled again. Pending retries go to the
     * new URL at their next try. The secret stays.
     */
    update(scope: Scope, id: string, body: UpdateWebhookBody): Webhook {
      return db
        .transaction(() => {
          const row = repo.get(scope, id);
          if (!row) throw new ApiError('not_found', `no webhook ${id}`);
          const events =
            body.events === undefined
              ? row.events
              : body.events === null
                ? null
                : JSON.stringify([...new Set(body.events)]);
          const enabled = body.enabled === undefined ? row.enabled : body.enabled ? 1 : 0;
          repo.update({
            id,
            url: body.url ?? row.url,
            events,
            description: body.description === undefined ? row.description : body.description,
            enabled,
          });
          if (enabled === 0 && row.enabled === 1) repo.endPending(id, DISABLED_REASON);
          outbox.webhooksChanged();
          return toWebhook(repo.listed(id)!);
        })
        .immediate();
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
    deliveries(
      scope: Scope,
      id: string,
      query: { limit: number; cursor?: string | undefined; status?: DeliveryStatus | undefined },
    ) {
      if (!repo.get(scope, id)) throw new ApiError('not_found', `no webhook ${id}`);
      const after = query.cursor ? decodeCursor(query.cursor) : null;
      const limit = query.limit;
      const rows = repo.deliveries(id, query.status ?? null, after, limit + 1);
      return toPage(rows, limit, toDelivery, (r) => r.id);
    },
    /**
     * Sends a delivery's event again, now. A finished delivery (succeeded or failed) gets a new
     * delivery of its own, retried for 3 days from now (`created`); the old one stays in the log
     * as it ended. A delivery waiting for its next try, or a finished one whose event another
     * delivery is still carrying to this webhook (the second press of Redeliver), is tried now
     * instead of waiting, so the receiver gets the event once more, not twice. One whose attempt
     * is under way right now, and a disabled webhook, answer 409.
     */
    redeliver(
      scope: Scope,
      webhookId: string,
      deliveryId: string,
    ): { delivery: WebhookDelivery; created: boolean } {
      const result = db
        .transaction(() => {
          const hook = repo.get(scope, webhookId);
          if (!hook) throw new ApiError('not_found', `no webhook ${webhookId}`);
          const d = repo.deliveryOf(webhookId, deliveryId);
          if (!d) {
            throw new ApiError('not_found', `no delivery ${deliveryId} of webhook ${webhookId}`, {
              param: 'deliveryId',
            });
          }
          if (hook.enabled === 0) {
            throw new ApiError(
              'invalid_state',
              `webhook ${webhookId} is disabled: enable it to redeliver`,
              { details: { enabled: false } },
            );
          }
          const now = clock.now();
          const waitingId =
            d.status === 'pending' ? d.id : repo.pendingOfEvent(webhookId, d.event_seq);
          if (waitingId) {
            const moved = repo.tryNow(waitingId, now);
            if (moved === 'sending') {
              throw new ApiError(
                'invalid_state',
                `delivery ${waitingId} of this event is being sent right now: its answer is on its way`,
                { details: { status: 'pending', pendingDeliveryId: waitingId } },
              );
            }
            // Its job was lost (a crash of an older version): it gets one again.
            if (moved === 'no_job') scheduler.enqueue('webhook.deliver', { deliveryId: waitingId });
            return { delivery: toDelivery(repo.deliveryOf(webhookId, waitingId)!), created: false };
          }
          const id = ids('whd');
          repo.insertDelivery(id, webhookId, d.event_seq, now);
          scheduler.enqueue('webhook.deliver', { deliveryId: id });
          return { delivery: toDelivery(repo.deliveryOf(webhookId, id)!), created: true };
        })
        .immediate();
      scheduler.poke();
      return result;
    },
  };
}
export type WebhooksService = ReturnType<typeof webhooksService>;
