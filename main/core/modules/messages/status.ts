import type { DeliveryOutcome } from '../../channel/types.ts';
import type { PayloadOf } from '../../jobs/payloads.ts';
import type { MessagesContext } from './context.ts';
import { MAX_DISPATCH_ATTEMPTS, scopeOf, toMessage } from './model.ts';
import type { MessageRow } from './repo.ts';

const RANK = { accepted: 0, sent: 1, delivered: 2, read: 3 } as const;

/** A status the channel promised for a message: `[messageId, status, dueAt, error?]`. */
type Receipt = PayloadOf<'message.receipts'>['receipts'][number];

/**
 * A message's status after it was stored: it only moves forward, a charged send that fails is
 * refunded in the same transaction, and every change writes its `message.<status>` event.
 */
export function messageStatus(ctx: MessagesContext) {
  const { d, repo, campaignListeners } = ctx;
  const { clock, scheduler, outbox } = d;

  /** A message's `message.<status>` event (a campaign's own, when it is one's). */
  const emitStatus = (row: MessageRow, status: 'sent' | 'delivered' | 'read' | 'failed') =>
    outbox.forCampaign(row.campaign_id ?? null, () =>
      outbox.emit(scopeOf(row), `message.${status}`, { message: toMessage(row) }),
    );

  /** Receipts being gathered for one job per status (`gatherReceipts`); null: none is. */
  let gathering: Receipt[] | null = null;

  /** The receipts a channel promised with its `sent`, due at their delays. */
  function followUps(row: MessageRow, outcome: DeliveryOutcome & { ok: true }) {
    const now = clock.now();
    const receipts = outcome.followUps.map((f): Receipt =>
      f.errorCode
        ? [row.id, f.status, now + f.delayMs, { code: f.errorCode, message: f.errorMessage ?? '' }]
        : [row.id, f.status, now + f.delayMs],
    );
    if (gathering) gathering.push(...receipts);
    else queueReceipts(receipts);
  }

  /**
   * Receipts as jobs: one per status, its receipts in order of their time, due at the first
   * (the job runs again at each next one's time: see registerJobs). A batch's receipts thus cost
   * two jobs, not two per message.
   */
  function queueReceipts(receipts: Receipt[]) {
    for (const status of ['delivered', 'read', 'failed'] as const) {
      const due = receipts.filter((r) => r[1] === status).sort((a, b) => a[2] - b[2]);
      if (due.length === 0) continue;
      scheduler.enqueue('message.receipts', { receipts: due }, { runAt: due[0]![2] });
    }
  }

  /**
   * Runs `fn` (a runner's hand-overs, in its transaction) with the receipts the channel promises
   * for all of them queued together (queueReceipts) when it returns.
   */
  function gatherReceipts<T>(fn: () => T): T {
    if (gathering) return fn();
    gathering = [];
    try {
      const result = fn();
      queueReceipts(gathering);
      return result;
    } finally {
      gathering = null;
    }
  }

  /** Moves a message's status forward (never back); refunds a charged send that failed. */
  function applyStatus(
    row: MessageRow,
    status: 'sent' | 'delivered' | 'read' | 'failed',
    error?: { code: string; message: string },
    at?: number,
  ) {
    if (row.status === 'failed' || row.status === 'received') return;
    if (row.status === 'note') return;
    if (status !== 'failed' && RANK[status] <= RANK[row.status]) return;
    if (status === 'failed' && RANK[row.status] >= RANK.delivered) return;
    const now = at ?? clock.now();
    const next: MessageRow = { ...row, status };
    if (status === 'sent') next.sent_at = now;
    if (status === 'delivered') {
      next.delivered_at = now;
      next.sent_at ??= now;
    }
    if (status === 'read') {
      next.read_at = now;
      next.delivered_at ??= now;
      next.sent_at ??= now;
    }
    if (status === 'failed') {
      next.failed_at = now;
      next.error_code = error?.code ?? 'unknown';
      next.error_message = error?.message ?? 'The channel failed the message';
      if (row.cost_micros > 0) {
        d.wallet.applyEntry(row.workspace_id, {
          type: 'refund',
          amountMicros: row.cost_micros,
          description: `refund: message failed (${next.error_code})`,
          reference: row.id,
        });
      }
    }
    repo.setStatus(next);
    emitStatus(next, status);
    // A reaction that never arrived comes off the message it was for (unless a newer one replaced it).
    if (status === 'failed' && next.type === 'reaction' && next.context_message_id) {
      if (repo.clearAgentReaction(next.context_message_id, next.id)) {
        const target = repo.byId(next.context_message_id)!;
        outbox.emit(scopeOf(target), 'message.reaction', { message: toMessage(target) });
      }
    }
    if (next.campaign_id && status !== 'sent') {
      for (const l of campaignListeners) l(next.campaign_id);
    }
  }

  /** Commits a channel's answer: `sent` with its follow-ups, or `failed` when it is final. */
  function applyOutcome(
    original: MessageRow,
    outcome: DeliveryOutcome,
    attempt: number,
    at?: number,
  ): boolean {
    let row = original;
    if (outcome.ok) {
      if (outcome.channelMessageId && outcome.channelMessageId !== row.channel_message_id) {
        repo.setChannelMessageId(row.id, outcome.channelMessageId);
        row = { ...row, channel_message_id: outcome.channelMessageId };
      }
      applyStatus(row, 'sent', undefined, at);
      followUps(row, outcome);
      return true;
    }
    if (!outcome.retryable || attempt >= MAX_DISPATCH_ATTEMPTS) {
      applyStatus(row, 'failed', { code: outcome.code, message: outcome.message });
      return true;
    }
    return false;
  }

  /**
   * A local channel's answer to a runner's hand-over, for a row stored as `sent` in the same
   * write (it never was `accepted`): what applyOutcome does after `sent`, without the update.
   */
  function sentOnInsert(row: MessageRow, outcome: DeliveryOutcome & { ok: true }) {
    emitStatus(row, 'sent');
    followUps(row, outcome);
  }

  /**
   * A dispatch that ended for good without the channel's verdict (its handler kept failing, or
   * a provider never answered): the message fails and a charge is refunded, in the job's
   * transaction, so nothing stays `accepted` forever.
   */
  const dispatchDied = (payload: { messageId: string }, error: string) => {
    const row = repo.byId(payload.messageId);
    if (!row || row.status !== 'accepted') return;
    repo.setDispatching(row.id, null);
    applyStatus(row, 'failed', {
      code: 'dispatch_failed',
      message: `The channel did not take the message: ${error}`,
    });
  };

  function channelGone(row: MessageRow) {
    if (row.status !== 'accepted') return;
    repo.setDispatching(row.id, null);
    applyStatus(row, 'failed', {
      code: 'channel_disconnected',
      message:
        'The live channel was switched off before the provider answered; the message was not sent again',
    });
  }

  /** The channel's later word on a message (a simulated receipt, a follow-up it promised). */
  function registerJobs() {
    scheduler.register('message.receipts', ({ receipts }, job) => {
      const now = clock.now();
      // The receipts before the run's time were applied by the run that set it (`again`), unless
      // that run failed: then every due one is looked at (a status never moves back, so one
      // already applied changes nothing).
      const from = job.attempt === 1 ? job.runAt : -Infinity;
      for (const [messageId, status, at, error] of receipts) {
        if (at > now) {
          job.again(at);
          return;
        }
        if (at < from) continue;
        const row = repo.byId(messageId);
        if (row) applyStatus(row, status, error ?? undefined);
      }
    });
    scheduler.register('message.status', (payload) => {
      const p = payload;
      const row = repo.byId(p.messageId);
      if (!row) return;
      applyStatus(
        row,
        p.status,
        p.errorCode ? { code: p.errorCode, message: p.errorMessage ?? '' } : undefined,
      );
    });
  }

  return {
    applyStatus,
    applyOutcome,
    sentOnInsert,
    gatherReceipts,
    dispatchDied,
    channelGone,
    registerJobs,
  };
}
export type MessageStatus = ReturnType<typeof messageStatus>;
