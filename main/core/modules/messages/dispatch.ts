import type { ApiError } from '../../../../shared/errors.ts';
import type { DeliveryOutcome, UploadOutcome } from '../../channel/types.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import type { PaceKey } from '../../pacing/governor.ts';
import type { MessagesContext } from './context.ts';
import {
  channelApiError,
  DELIVER_TIMEOUT_MS,
  IN_REQUEST_MS,
  MAX_DISPATCH_ATTEMPTS,
  RESEND_AFTER_MS,
  toChannelMessage,
} from './model.ts';
import type { MessageStatus } from './status.ts';

const retryDispatch = (outcome: DeliveryOutcome & { ok: false }, attempt: number) =>
  new RetryLater(`${outcome.code}: ${outcome.message}`, 1000 * 2 ** (attempt - 1));

const paceKey = (accountId: string, environment: 'test' | 'live'): PaceKey => ({
  accountId,
  environment,
});

/**
 * Getting a stored message to its channel: the dispatch and delivery jobs (with their retries
 * and the resend window for a remote hand-over a crash cut short), and an API send's hand-over
 * inside its request.
 */
export function messageDispatch(ctx: MessagesContext, status: MessageStatus) {
  const { d, repo } = ctx;
  const { db, clock, scheduler } = d;
  const { applyOutcome, applyStatus, channelGone, dispatchDied } = status;

  function registerJobs() {
    // The hand-over. A local channel (the simulator) answers synchronously, so its answer, the
    // message's status and the job's end are one commit: exactly once, whatever is killed when.
    // A remote provider gets its own async job (below), in the same transaction.
    scheduler.register(
      'message.dispatch',
      (payload, ctx) => {
        const { messageId } = payload;
        const row = repo.byId(messageId);
        if (!row || row.status !== 'accepted') return;
        const channel = d.channelFor(row.workspace_id, row.environment);
        if (channel.kind === 'remote') {
          scheduler.enqueue('message.deliver', { messageId });
          return;
        }
        // Unheld (an API or inbox send), but it uses the account's throughput: runners yield to it.
        const account = d.workspaces.activeAccount(row.workspace_id);
        d.governor.spend(paceKey(account.id, row.environment), 1);
        const outcome = channel.handOver(toChannelMessage(row), ctx.attempt);
        if (!applyOutcome(row, outcome, ctx.attempt) && !outcome.ok) {
          throw retryDispatch(outcome, ctx.attempt);
        }
      },
      { maxAttempts: MAX_DISPATCH_ATTEMPTS + 1, onDead: dispatchDied },
    );

    scheduler.register(
      'message.deliver',
      async (payload, ctx) => {
        const { messageId } = payload;
        const row = repo.byId(messageId);
        if (!row) return;
        const channel = d.channelFor(row.workspace_id, row.environment);
        if (channel.kind !== 'remote') {
          // The live channel was switched off before the provider took (or answered for) this
          // message: it fails, refunded, rather than stay accepted for ever.
          if (row.status === 'accepted') channelGone(row);
          return;
        }
        if (row.status !== 'accepted') {
          // A status arrived while we waited: the provider had it. Nothing is in flight.
          if (row.dispatching_at != null) repo.setDispatching(messageId, null);
          return;
        }
        const now = clock.now();
        if (row.dispatching_at != null && now < row.dispatching_at + RESEND_AFTER_MS) {
          // A call a crash cut short may have reached the provider: its status webhook will say
          // so. Only when none arrives in the window is the message sent again.
          throw new RetryLater(
            'handed over without an answer; waiting for its status before sending again',
            row.dispatching_at + RESEND_AFTER_MS - now,
            false,
          );
        }
        let message = toChannelMessage(row, now);
        if (row.type === 'media') {
          // The file goes to the provider first, not yet in flight: nothing was sent. An upload
          // whose answer was lost is simply made again (Meta keeps unused uploads 30 days).
          const media = message.media;
          if (!media || !channel.upload) {
            db.transaction(() => {
              applyStatus(row, 'failed', {
                code: 'media_unavailable',
                message: media
                  ? 'this channel does not send media'
                  : 'the file is no longer stored (expired or removed): upload it again',
              });
              ctx.complete();
            }).immediate();
            return;
          }
          if (!media.providerId) {
            let uploaded: UploadOutcome;
            try {
              uploaded = await channel.upload(media, ctx.signal);
            } catch (e) {
              if (ctx.signal.aborted) throw e;
              throw new RetryLater(`the file could not be uploaded: ${(e as Error).message}`);
            }
            if (!uploaded.ok) {
              const refused = uploaded;
              if (refused.retryable && ctx.attempt < MAX_DISPATCH_ATTEMPTS) {
                throw retryDispatch(refused, ctx.attempt);
              }
              db.transaction(() => {
                applyStatus(repo.byId(messageId)!, 'failed', {
                  code: refused.code,
                  message: `the file was refused: ${refused.message}`,
                });
                ctx.complete();
              }).immediate();
              return;
            }
            d.media.setUploaded(media.id, uploaded.providerId);
            message = { ...message, media: { ...media, providerId: uploaded.providerId } };
          }
        }
        repo.setDispatching(messageId, now);
        let outcome: DeliveryOutcome;
        let timer: NodeJS.Timeout | undefined;
        try {
          // A provider call is bounded here too, whatever the channel does with its own timeout.
          outcome = await Promise.race([
            channel.deliver(message, ctx.attempt, ctx.signal),
            new Promise<never>((_, reject) => {
              timer = setTimeout(
                () => reject(new Error(`no answer within ${DELIVER_TIMEOUT_MS / 1000} s`)),
                DELIVER_TIMEOUT_MS,
              );
            }),
          ]);
        } catch (e) {
          if (ctx.signal.aborted) throw e;
          // No answer: the provider may have the message. Keep `dispatching` and look again
          // after the window (counted: a provider that never answers ends the message failed).
          throw new RetryLater(
            `no answer from the channel: ${(e as Error).message}`,
            RESEND_AFTER_MS,
          );
        } finally {
          clearTimeout(timer);
        }
        let retry: RetryLater | null = null;
        db.transaction(() => {
          const current = repo.byId(messageId);
          repo.setDispatching(messageId, null);
          if (
            current &&
            current.status === 'accepted' &&
            !applyOutcome(current, outcome, ctx.attempt)
          ) {
            if (!outcome.ok) retry = retryDispatch(outcome, ctx.attempt);
            return;
          }
          ctx.complete();
        }).immediate();
        if (retry) throw retry;
      },
      {
        sync: false,
        concurrency: 16,
        maxAttempts: MAX_DISPATCH_ATTEMPTS + 1,
        onDead: dispatchDied,
      },
    );
  }

  /**
   * An API send's hand-over to a remote channel inside its request (README "Connecting WhatsApp"), after the
   * message was committed as in flight: `sent` with the provider's id; `refused` — the
   * message failed (refunded) and the API error saying why; `pending` when there was no
   * answer within 10 s or the provider asked to retry (the delivery job goes on, re-sending
   * an unanswered call only if no status for it arrives within the window).
   */
  async function deliverNow(
    messageId: string,
  ): Promise<
    | { kind: 'sent'; channelMessageId: string | null }
    | { kind: 'pending' }
    | { kind: 'refused'; error: ApiError }
  > {
    const row = repo.byId(messageId);
    if (!row || row.status !== 'accepted') return { kind: 'pending' };
    const channel = d.channelFor(row.workspace_id, row.environment);
    if (channel.kind !== 'remote') {
      if (row.dispatching_at == null) return { kind: 'pending' }; // the simulator's
      db.transaction(() => channelGone(repo.byId(messageId)!)).immediate();
      return {
        kind: 'refused',
        error: channelApiError('channel_disconnected', 'the live channel was switched off'),
      };
    }
    // Not handed over by the request (a media message: its job uploads the file first).
    if (row.dispatching_at == null) return { kind: 'pending' };
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let outcome: DeliveryOutcome;
    try {
      outcome = await Promise.race([
        channel.deliver(toChannelMessage(row), 1, abort.signal),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            abort.abort();
            reject(new Error('no answer in time'));
          }, IN_REQUEST_MS);
        }),
      ]);
    } catch {
      return { kind: 'pending' };
    } finally {
      clearTimeout(timer);
    }
    return db
      .transaction(() => {
        const current = repo.byId(messageId)!;
        if (current.status !== 'accepted') {
          // A status webhook arrived first: the provider had it.
          const id = outcome.ok ? (outcome.channelMessageId ?? null) : null;
          return current.status === 'failed'
            ? {
                kind: 'refused' as const,
                error: channelApiError(current.error_code ?? '', current.error_message ?? ''),
              }
            : { kind: 'sent' as const, channelMessageId: current.channel_message_id ?? id };
        }
        repo.setDispatching(messageId, null);
        if (!applyOutcome(current, outcome, 1)) {
          // The provider asked to retry (130429, 131056, a 5xx): the delivery job tries again
          // soon, with the backoff of its attempts.
          scheduler.enqueue(
            'message.deliver',
            { messageId },
            {
              runAt: clock.now() + 1000,
              dedupeKey: `message.deliver:${messageId}`,
              sooner: true,
            },
          );
          return { kind: 'pending' as const };
        }
        if (outcome.ok) {
          return {
            kind: 'sent' as const,
            channelMessageId: outcome.channelMessageId ?? current.channel_message_id,
          };
        }
        return {
          kind: 'refused' as const,
          error: channelApiError(outcome.code, outcome.message),
        };
      })
      .immediate();
  }

  return { registerJobs, deliverNow };
}
