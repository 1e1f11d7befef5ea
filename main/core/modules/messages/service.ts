import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import type { Message, SendTemplateBody } from '../../../../shared/schemas/messages.ts';
import type { TemplateComponent } from '../../../../shared/schemas/templates.ts';
import type { ChannelMessage, ChannelRouter, DeliveryOutcome } from '../../channel/types.ts';
import type { Outbox } from '../../events/outbox.ts';
import type { Governor, PaceKey } from '../../pacing/governor.ts';
import { listText } from '../../../../shared/list-rules.ts';
import type { InteractiveList, ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type { InteractiveListsService } from '../interactive-lists/service.ts';
import { decodeCursor, rawPageParts, toRawPage } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import type { ContactsService } from '../contacts/service.ts';
import { addressOf, phoneOrThrow } from '../contacts/service.ts';
import type { ConversationRow } from '../conversations/repo.ts';
import { conversationsRepo } from '../conversations/repo.ts';
import type { TemplateRow } from '../templates/repo.ts';
import type { TemplatesService } from '../templates/service.ts';
import { renderTemplate } from '../templates/rules.ts';
import type { PriceCategory, PricesRepo } from '../wallet/prices.ts';
import type { WalletService } from '../wallet/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { MessageRow } from './repo.ts';
import { messagesRepo } from './repo.ts';

export const SERVICE_WINDOW_MS = 24 * 3600_000;

/**
 * Whom a message goes to: a contact row, or a runner's copy of one. `phone` may be the address
 * already (a campaign recipient's); a contact without a phone is addressed by its BSUID.
 */
export type Recipient = Pick<ContactRow, 'id' | 'phone' | 'last_inbound_at'> & {
  wa_user_id?: string | null;
};
const addressOfRecipient = (c: Recipient): string => c.phone ?? c.wa_user_id ?? '';

export interface MessageQuery {
  conversationId?: string;
  contactId?: string;
  phone?: string;
  limit: number;
  cursor?: string;
}

/** Who sends: the API (a script), an agent from the inbox, or the bot. */
export interface Sender {
  sentBy: 'api' | 'agent' | 'bot';
  agentId: string | null;
}
export const API_SENDER: Sender = { sentBy: 'api', agentId: null };

/** A send's recipient: a phone (normalised here), or a contact the caller holds. */
export type To = { phone: string } | { contact: ContactRow };
const MAX_DISPATCH_ATTEMPTS = 5;
/** design.md §5: a message a crash left `dispatching` is re-sent only after this long unanswered. */
export const RESEND_AFTER_MS = 5 * 60_000;
/** The longest a remote hand-over may take before it counts as unanswered. */
const DELIVER_TIMEOUT_MS = 30_000;
/** An API send's hand-over inside its request: longer, and it answers 202 and goes on behind. */
const IN_REQUEST_MS = 10_000;
const RANK = { accepted: 0, sent: 1, delivered: 2, read: 3 } as const;
/** Meta's limit on the rows of one interactive list, across its sections. */
export const CLOUD_API_LIST_ROWS = 10;

export const toMessage = (r: MessageRow): Message => ({
  id: r.id,
  conversationId: r.conversation_id,
  contactId: r.contact_id,
  phone: r.phone,
  direction: r.direction,
  type: r.type,
  templateName: r.template_name,
  text: r.text,
  variables: r.variables ? (JSON.parse(r.variables) as Record<string, string>) : null,
  status: r.status,
  sentBy: r.sent_by,
  agentId: r.agent_id,
  environment: r.environment,
  category: r.category,
  costMicros: r.cost_micros,
  channelMessageId: r.channel_message_id,
  error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
  createdAt: iso(r.created_at),
  sentAt: isoOrNull(r.sent_at),
  deliveredAt: isoOrNull(r.delivered_at),
  readAt: isoOrNull(r.read_at),
  failedAt: isoOrNull(r.failed_at),
  list:
    r.direction === 'outbound' && r.interactive
      ? (JSON.parse(r.interactive) as InteractiveList)
      : null,
  listReply:
    r.direction === 'inbound' && r.interactive ? (JSON.parse(r.interactive) as ListReply) : null,
  reaction: r.reaction ? { emoji: r.reaction, at: iso(r.reaction_at ?? r.created_at) } : null,
});

/** The variables must be exactly the template's `{{1}}…{{n}}`: else 400 `template_variables_mismatch`. */
export function requireVariables(
  tpl: Pick<TemplateRow, 'name' | 'variable_count'>,
  variables: Record<string, string>,
): void {
  const keys = Object.keys(variables).sort((a, b) => Number(a) - Number(b));
  const expected = Array.from({ length: tpl.variable_count }, (_, i) => String(i + 1));
  if (keys.join(',') !== expected.join(',')) {
    throw new ApiError(
      'template_variables_mismatch',
      `template "${tpl.name}" takes ${tpl.variable_count} variable${tpl.variable_count === 1 ? '' : 's'} (${expected.map((k) => `"${k}"`).join(', ') || 'none'}); got ${keys.length ? keys.map((k) => `"${k}"`).join(', ') : 'none'}`,
      { param: 'variables', details: { expected, received: keys } },
    );
  }
}

const scopeOf = (r: { workspace_id: string; environment: string }): Scope => ({
  workspaceId: r.workspace_id,
  environment: r.environment as Scope['environment'],
});

export interface MessagingDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  scheduler: Scheduler;
  outbox: Outbox;
  /** The channel of a scope: the simulator, or the live account's connected provider. */
  channelFor: ChannelRouter;
  contacts: ContactsService;
  templates: TemplatesService;
  wallet: WalletService;
  prices: PricesRepo;
  workspaces: WorkspacesService;
  governor: Governor;
  lists: InteractiveListsService;
}

/** What a runner's hand-over came to (see `handOverForRunner`). */
export type RunnerHandOver =
  | { ok: true; messageId: string }
  | { ok: false; kind: 'insufficient_balance'; balanceMicros: number; priceMicros: number }
  | { ok: false; kind: 'refused'; retryable: boolean; code: string; message: string };

type StoredFields = Pick<MessageRow, 'type' | 'template_name' | 'text' | 'variables'> & {
  category: PriceCategory;
  /** A list message's copy of the list (JSON). */
  interactive?: string | null;
};

interface StoreOptions {
  /** Ids the channel already saw (a runner hands over before the row exists). */
  id?: string;
  channelMessageId?: string;
  campaignId?: string | null;
  /** false when the caller hands over itself. */
  dispatch?: boolean;
  /** The governor's verdict on the tier slot, when the caller already asked it. */
  takesTierSlot?: boolean;
  /** The hand-over's time: a runner's pass stamps all its messages with one (the governor's). */
  at?: number;
  /** An API send: a remote channel gets the message inside the request (deliverNow). */
  inRequest?: boolean;
}

/** What a provider's refusal of an API send answers (design.md §5 error mapping). */
export function channelApiError(code: string, message: string): ApiError {
  const details = { channelCode: Number(code) || code };
  switch (code) {
    case '131047':
      return new ApiError('outside_service_window', message, { details });
    case '132001':
      return new ApiError('template_not_found', message, { param: 'templateName', details });
    case '132000':
      return new ApiError('template_variables_mismatch', message, { param: 'variables', details });
    case '131026':
    case '131021':
      return new ApiError('recipient_invalid', message, { param: 'phone', details });
    case '131009':
      return new ApiError('list_limits_exceeded', message, { param: 'listId', details });
    default:
      return new ApiError('channel_error', message, { details });
  }
}

export const insideServiceWindow = (lastInboundAt: number | null, now: number): boolean =>
  lastInboundAt !== null && now - lastInboundAt < SERVICE_WINDOW_MS;

/**
 * Sends and their lifecycle (design.md §4 Sending, Wallet): a live send is charged in the
 * transaction that stores it and refunded if the channel later fails it; statuses only move
 * forward; every change writes its event in the same transaction.
 */
export function messagesService(d: MessagingDeps) {
  const { db, clock, ids, scheduler, outbox } = d;
  const repo = messagesRepo(db);
  const conversations = conversationsRepo(db);
  /** Told (in the transaction) when a campaign's message changes status. */
  const campaignListeners = new Set<(campaignId: string) => void>();
  /** Told (in the transaction) of every inbound message: waiting workflow runs resume on it. */
  const inboundListeners = new Set<
    (scope: Scope, contactId: string, reply: { text: string; listReply?: ListReply }) => void
  >();

  const conversationEventJson = (id: string) =>
    JSON.parse(conversations.json(id, clock.now() - SERVICE_WINDOW_MS)) as Record<string, unknown>;

  function ensureContact(scope: Scope, phone: string): ContactRow {
    return d.contacts.repo.byPhone(scope, phone) ?? d.contacts.write(scope, phone, {}).row;
  }

  function ensureConversation(
    scope: Scope,
    contact: Pick<ContactRow, 'id'>,
    accountId: string,
    at: number,
  ): ConversationRow {
    const existing = conversations.byContact(contact.id, accountId);
    if (existing) return existing;
    const row: ConversationRow = {
      id: ids('conv'),
      workspace_id: scope.workspaceId,
      environment: scope.environment,
      contact_id: contact.id,
      business_account_id: accountId,
      status: 'open',
      assignee_id: null,
      labels: '[]',
      snoozed_until: null,
      last_message_at: at,
      last_inbound_at: null,
      unread_count: 0,
      created_at: at,
      updated_at: at,
    };
    conversations.insert(row);
    outbox.emit(scope, 'conversation.created', { conversation: conversationEventJson(row.id) });
    return row;
  }

  /**
   * Meta's Cloud API takes at most 10 rows in a list in all (our lists allow 10 per section):
   * on that channel a longer list is refused before anything is stored.
   */
  function listFitsChannel(scope: Scope, list: InteractiveList) {
    if (d.channelFor(scope.workspaceId, scope.environment).kind !== 'remote') return;
    const rows = list.sections.reduce((n, s) => n + s.rows.length, 0);
    if (rows > CLOUD_API_LIST_ROWS) {
      throw new ApiError(
        'list_limits_exceeded',
        `list ${list.id} has ${rows} rows; the WhatsApp Cloud API takes at most ${CLOUD_API_LIST_ROWS} rows in a list in all (sections included)`,
        { param: 'listId', details: { rows, providerLimit: CLOUD_API_LIST_ROWS } },
      );
    }
  }

  /**
   * Whom a send names: a phone (the API; `phoneOrThrow` first), or a contact (the inbox and the
   * runners: a contact known only by its BSUID has no phone to name).
   */
  function addressed(to: To): string {
    return 'phone' in to ? phoneOrThrow(to.phone) : addressOf(to.contact);
  }

  /** The contact if it wrote in the last 24 h; else 422 `outside_service_window` (131047). */
  function contactInWindow(scope: Scope, to: To): ContactRow {
    const contact = 'phone' in to ? d.contacts.repo.byPhone(scope, to.phone) : to.contact;
    const phone = 'phone' in to ? to.phone : addressOf(to.contact);
    const last = contact?.last_inbound_at ?? null;
    if (!contact || last === null || clock.now() - last >= SERVICE_WINDOW_MS) {
      throw new ApiError(
        'outside_service_window',
        last === null
          ? `${phone} has not written to you yet: start the conversation with a template (POST /api/send)`
          : `${phone} last wrote at ${iso(last)}; the 24-hour window is closed: send a template instead`,
        { details: { channelCode: 131047, lastInboundAt: isoOrNull(last) } },
      );
    }
    return contact;
  }

  /**
   * The template by exact name, if it can be sent now with these variables; else the API error
   * saying why (not found, not approved, paused, inside the post-approval wait, wrong variables).
   */
  function sendableTemplate(scope: Scope, templateName: string, variables: Record<string, string>) {
    const tpl = d.templates.repo.byName(scope, templateName);
    if (!tpl) {
      throw new ApiError(
        'template_not_found',
        `no template named "${templateName}" (names are case-sensitive)`,
        {
          param: 'templateName',
        },
      );
    }
    if (tpl.status === 'PAUSED')
      throw new ApiError('template_paused', undefined, { param: 'templateName' });
    if (tpl.status !== 'APPROVED') {
      throw new ApiError(
        'template_not_approved',
        `template "${tpl.name}" is ${tpl.status}, not APPROVED`,
        {
          param: 'templateName',
          details: { status: tpl.status },
        },
      );
    }
    if (tpl.usable_at !== null && clock.now() < tpl.usable_at) {
      throw new ApiError(
        'template_not_ready',
        `template "${tpl.name}" can be sent from ${iso(tpl.usable_at)}`,
        {
          param: 'templateName',
          details: { usableAt: iso(tpl.usable_at) },
        },
      );
    }
    requireVariables(tpl, variables);
    return tpl;
  }

  /** Charges a live send; a test send never touches the wallet. Inside the send's transaction. */
  function charge(scope: Scope, category: PriceCategory, messageId: string): number {
    if (scope.environment !== 'live') return 0;
    const price = d.prices.price(scope.workspaceId, category);
    if (price === 0) return 0;
    const entry = d.wallet.applyEntry(scope.workspaceId, {
      type: 'charge',
      amountMicros: -price,
      description: `${category.toLowerCase()} message`,
      reference: messageId,
    });
    if (!entry) {
      const w = d.wallet.get(scope.workspaceId);
      throw new ApiError('insufficient_balance', undefined, {
        details: { balanceMicros: w.balanceMicros, priceMicros: price },
      });
    }
    const { lowBalanceThresholdMicros: threshold } = d.wallet.get(scope.workspaceId);
    if (entry.balanceAfterMicros < threshold && entry.balanceAfterMicros + price >= threshold) {
      outbox.emit(scope, 'wallet.low_balance', {
        balanceMicros: entry.balanceAfterMicros,
        thresholdMicros: threshold,
      });
    }
    return price;
  }

  function store(
    scope: Scope,
    contact: Recipient,
    fields: StoredFields,
    sender: Sender,
    opts: StoreOptions = {},
  ) {
    const now = opts.at ?? clock.now();
    const account = d.workspaces.activeAccount(scope.workspaceId);
    const conversation = ensureConversation(scope, contact, account.id, now);
    const id = opts.id ?? ids('msg');
    const cost = charge(scope, fields.category, id);
    const row: MessageRow = {
      id,
      workspace_id: scope.workspaceId,
      environment: scope.environment,
      conversation_id: conversation.id,
      contact_id: contact.id,
      phone: addressOfRecipient(contact),
      direction: 'outbound',
      ...fields,
      status: 'accepted',
      sent_by: sender.sentBy,
      agent_id: sender.agentId,
      cost_micros: cost,
      channel_message_id:
        opts.channelMessageId ?? d.channelFor(scope.workspaceId, scope.environment).newMessageId(),
      error_code: null,
      error_message: null,
      created_at: now,
      sent_at: null,
      delivered_at: null,
      read_at: null,
      failed_at: null,
      campaign_id: opts.campaignId ?? null,
      interactive: fields.interactive ?? null,
    };
    repo.insert(row);
    // The governor's pair clock and tier count see every message, held or not.
    d.governor.record(
      { accountId: account.id, environment: scope.environment },
      addressOfRecipient(contact),
      insideServiceWindow(contact.last_inbound_at, now),
      opts.takesTierSlot,
      now,
    );
    conversations.touchOutbound(conversation.id, now, now);
    outbox.emit(scope, 'conversation.updated', {
      conversation: conversationEventJson(conversation.id),
      changes: {
        lastMessageAt: {
          from: iso(conversation.last_message_at),
          to: iso(Math.max(now, conversation.last_message_at)),
        },
      },
    });
    // Live sends through a provider (test keys never use one, except a test's own channel).
    const remote =
      !!opts.inRequest &&
      scope.environment === 'live' &&
      d.channelFor(scope.workspaceId, scope.environment).kind === 'remote';
    if (remote) {
      // Handed over by the request itself (deliverNow): recorded as in flight before the call;
      // should the request's call end without an answer, this job takes over (design.md §5).
      repo.setDispatching(id, now);
      row.dispatching_at = now;
      scheduler.enqueue(
        'message.deliver',
        { messageId: id },
        { runAt: now + IN_REQUEST_MS + 5000, dedupeKey: `message.deliver:${id}` },
      );
    } else if (opts.dispatch !== false) {
      scheduler.enqueue('message.dispatch', { messageId: id });
    }
    return { row, account, conversation, remote };
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
    outbox.emit(scopeOf(next), `message.${status}`, { message: toMessage(next) });
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
      for (const f of outcome.followUps) {
        scheduler.enqueue(
          'message.status',
          {
            messageId: row.id,
            status: f.status,
            errorCode: f.errorCode,
            errorMessage: f.errorMessage,
          },
          { delayMs: f.delayMs },
        );
      }
      return true;
    }
    if (!outcome.retryable || attempt >= MAX_DISPATCH_ATTEMPTS) {
      applyStatus(row, 'failed', { code: outcome.code, message: outcome.message });
      return true;
    }
    return false;
  }

  const retryDispatch = (outcome: DeliveryOutcome & { ok: false }, attempt: number) =>
    new RetryLater(`${outcome.code}: ${outcome.message}`, 1000 * 2 ** (attempt - 1));

  /**
   * A dispatch that ended for good without the channel's verdict (its handler kept failing, or
   * a provider never answered): the message fails and a charge is refunded, in the job's
   * transaction, so nothing stays `accepted` forever.
   */
  const dispatchDied = (payload: unknown, error: string) => {
    const row = repo.byId((payload as { messageId: string }).messageId);
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

  // The hand-over. A local channel (the simulator) answers synchronously, so its answer, the
  // message's status and the job's end are one commit: exactly once, whatever is killed when.
  // A remote provider gets its own async job (below), in the same transaction.
  scheduler.register(
    'message.dispatch',
    (payload, ctx) => {
      const { messageId } = payload as { messageId: string };
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
      const { messageId } = payload as { messageId: string };
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
      repo.setDispatching(messageId, now);
      let outcome: DeliveryOutcome;
      let timer: NodeJS.Timeout | undefined;
      try {
        // A provider call is bounded here too, whatever the channel does with its own timeout.
        outcome = await Promise.race([
          channel.deliver(toChannelMessage(row), ctx.attempt, ctx.signal),
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
    { sync: false, concurrency: 16, maxAttempts: MAX_DISPATCH_ATTEMPTS + 1, onDead: dispatchDied },
  );

  scheduler.register('message.status', (payload) => {
    const p = payload as {
      messageId: string;
      status: 'delivered' | 'read' | 'failed';
      errorCode?: string;
      errorMessage?: string;
    };
    const row = repo.byId(p.messageId);
    if (!row) return;
    applyStatus(
      row,
      p.status,
      p.errorCode ? { code: p.errorCode, message: p.errorMessage ?? '' } : undefined,
    );
  });

  return {
    repo,
    applyStatus,
    sendableTemplate,
    onCampaignMessage: (l: (campaignId: string) => void) => campaignListeners.add(l),
    onInbound: (
      l: (scope: Scope, contactId: string, reply: { text: string; listReply?: ListReply }) => void,
    ) => inboundListeners.add(l),

    /**
     * A runner's hand-over (campaigns now, workflows next), inside the runner's transaction,
     * after the governor said "now" and took its token. A local channel answers at once, so the
     * message row is created only when the channel took it — as `sent`, charged (live) in this
     * transaction — and a refusal leaves no row: the runner retries or fails its recipient. A
     * remote channel gets the row `accepted` and its own delivery job (design.md §5).
     */
    handOverForRunner(
      scope: Scope,
      contact: Recipient,
      fields: StoredFields,
      sender: Sender,
      opts: { attempt: number; campaignId: string | null; takesTierSlot: boolean; at: number },
    ): RunnerHandOver {
      if (scope.environment === 'live') {
        const price = d.prices.price(scope.workspaceId, fields.category);
        const { balanceMicros } = d.wallet.get(scope.workspaceId);
        if (price > balanceMicros) {
          return { ok: false, kind: 'insufficient_balance', balanceMicros, priceMicros: price };
        }
      }
      const storeOpts = {
        campaignId: opts.campaignId,
        takesTierSlot: opts.takesTierSlot,
        at: opts.at,
      };
      const channel = d.channelFor(scope.workspaceId, scope.environment);
      if (channel.kind === 'remote') {
        return { ok: true, messageId: store(scope, contact, fields, sender, storeOpts).row.id };
      }
      const id = ids('msg');
      const channelMessageId = channel.newMessageId();
      const outcome = channel.handOver(
        {
          id,
          workspaceId: scope.workspaceId,
          environment: scope.environment,
          phone: addressOfRecipient(contact),
          type: fields.type === 'note' ? 'text' : fields.type,
          text: fields.text,
          templateName: fields.template_name,
          variables: fields.variables
            ? (JSON.parse(fields.variables) as Record<string, string>)
            : null,
          channelMessageId,
        },
        opts.attempt,
        opts.at,
      );
      if (!outcome.ok) {
        const { retryable, code, message } = outcome;
        return { ok: false, kind: 'refused', retryable, code, message };
      }
      const { row } = store(scope, contact, fields, sender, {
        ...storeOpts,
        id,
        channelMessageId,
        dispatch: false,
      });
      applyOutcome(row, outcome, opts.attempt, opts.at);
      return { ok: true, messageId: id };
    },

    sendTemplate(
      scope: Scope,
      body: Omit<SendTemplateBody, 'phone'> & To,
      sender: Sender = API_SENDER,
    ) {
      const phone = addressed(body);
      return db
        .transaction(() => {
          const tpl = sendableTemplate(scope, body.templateName, body.variables ?? {});
          const variables = body.variables ?? {};
          const contact = 'contact' in body ? body.contact : ensureContact(scope, phone);
          const components = JSON.parse(tpl.components) as TemplateComponent[];
          const { row, account, remote } = store(
            scope,
            contact,
            {
              type: 'template',
              template_name: tpl.name,
              text: renderTemplate(components, variables),
              variables: JSON.stringify(variables),
              category: tpl.category,
            },
            sender,
            { inRequest: true },
          );
          return {
            remote,
            message: toMessage(row),
            response: {
              success: true as const,
              message: `Template message accepted for ${phone}`,
              data: {
                channelMessageId: row.channel_message_id,
                phone,
                templateName: tpl.name,
                contactId: contact.id,
                wabaId: account.id,
              },
            },
          };
        })
        .immediate();
    },

    sendText(scope: Scope, body: To & { message: string }, sender: Sender = API_SENDER) {
      const phone = addressed(body);
      return db
        .transaction(() => {
          const contact = contactInWindow(scope, 'phone' in body ? { phone } : body);
          const { row, account, conversation, remote } = store(
            scope,
            contact,
            {
              type: 'text',
              template_name: null,
              text: body.message,
              variables: null,
              category: 'SERVICE',
            },
            sender,
            { inRequest: true },
          );
          return {
            remote,
            message: toMessage(row),
            response: {
              success: true as const,
              message: `Text message accepted for ${phone}`,
              data: {
                messageId: row.id,
                channelMessageId: row.channel_message_id,
                phone,
                contactId: contact.id,
                conversationId: conversation.id,
                wabaId: account.id,
              },
            },
          };
        })
        .immediate();
    },

    /**
     * An interactive list, inside the service window (free text's rule): the message keeps a
     * copy of the list as it is now, so later edits do not change what was sent.
     */
    listFitsChannel,

    /**
     * An API send's hand-over to a remote channel inside its request (design.md §5), after the
     * message was committed as in flight: `sent` with the provider's id; `refused` — the
     * message failed (refunded) and the API error saying why; `pending` when there was no
     * answer within 10 s or the provider asked to retry (the delivery job goes on, re-sending
     * an unanswered call only if no status for it arrives within the window).
     */
    async deliverNow(
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
        if (row.dispatching_at === null) return { kind: 'pending' }; // the simulator's
        db.transaction(() => channelGone(repo.byId(messageId)!)).immediate();
        return {
          kind: 'refused',
          error: channelApiError('channel_disconnected', 'the live channel was switched off'),
        };
      }
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
    },

    sendList(scope: Scope, body: To & { listId: string }, sender: Sender = API_SENDER) {
      const phone = addressed(body);
      return db
        .transaction(() => {
          const list = d.lists.find(scope, body.listId, 'listId');
          listFitsChannel(scope, list);
          const contact = contactInWindow(scope, 'phone' in body ? { phone } : body);
          const { row, account, conversation, remote } = store(
            scope,
            contact,
            {
              type: 'list',
              template_name: null,
              text: listText(list),
              variables: null,
              category: 'SERVICE',
              interactive: JSON.stringify(list),
            },
            sender,
            { inRequest: true },
          );
          return {
            remote,
            message: toMessage(row),
            response: {
              success: true as const,
              message: `List message accepted for ${phone}`,
              data: {
                messageId: row.id,
                channelMessageId: row.channel_message_id,
                phone,
                listId: list.id,
                contactId: contact.id,
                conversationId: conversation.id,
                wabaId: account.id,
              },
            },
          };
        })
        .immediate();
    },

    /** An end-user message arrives (the simulator now; a channel webhook later). */
    receive(
      scope: Scope,
      input: {
        /** E.164; a channel message may name only the sender's BSUID (`waUserId`). */
        phone?: string | null;
        waUserId?: string | null;
        /** The sender's WhatsApp profile name: the name of a contact that has none. */
        profileName?: string | null;
        text: string;
        type: 'text' | 'list';
        receivedAt: number;
        /** A pick from an interactive list. */
        listReply?: ListReply;
        /** The provider's id (a real channel): a redelivered webhook stores nothing twice. */
        channelMessageId?: string;
      },
    ): Message | null {
      return db
        .transaction(() => {
          if (input.channelMessageId && repo.byChannelId(input.channelMessageId)) return null;
          const contact =
            input.waUserId || input.profileName
              ? d.contacts.identify(scope, input)
              : ensureContact(scope, input.phone!);
          const now = clock.now();
          const account = d.workspaces.activeAccount(scope.workspaceId);
          const conversation = ensureConversation(scope, contact, account.id, input.receivedAt);
          const row: MessageRow = {
            id: ids('msg'),
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            conversation_id: conversation.id,
            contact_id: contact.id,
            phone: addressOf(contact),
            direction: 'inbound',
            type: input.type,
            template_name: null,
            text: input.text,
            variables: null,
            status: 'received',
            sent_by: 'contact',
            agent_id: null,
            category: null,
            cost_micros: 0,
            channel_message_id: input.channelMessageId ?? null,
            error_code: null,
            error_message: null,
            created_at: input.receivedAt,
            sent_at: null,
            delivered_at: null,
            read_at: null,
            failed_at: null,
            interactive: input.listReply ? JSON.stringify(input.listReply) : null,
          };
          repo.insert(row);
          d.contacts.repo.setLastInbound(contact.id, input.receivedAt, now);
          // An inbound message reopens a snoozed or resolved conversation.
          const reopen = conversation.status === 'snoozed' || conversation.status === 'resolved';
          conversations.touchInbound({
            id: conversation.id,
            at: input.receivedAt,
            now,
            status: reopen ? 'open' : conversation.status,
            snoozed_until: reopen ? null : conversation.snoozed_until,
          });
          outbox.emit(scope, 'message.received', { message: toMessage(row) });
          for (const l of inboundListeners) {
            l(scope, contact.id, {
              text: input.text,
              ...(input.listReply ? { listReply: input.listReply } : {}),
            });
          }
          const changes: Record<string, { from: unknown; to: unknown }> = {
            lastMessageAt: {
              from: iso(conversation.last_message_at),
              to: iso(Math.max(input.receivedAt, conversation.last_message_at)),
            },
            unreadCount: { from: conversation.unread_count, to: conversation.unread_count + 1 },
          };
          if (reopen) {
            changes.status = { from: conversation.status, to: 'open' };
            if (conversation.snoozed_until !== null) {
              changes.snoozedUntil = { from: iso(conversation.snoozed_until), to: null };
            }
          }
          outbox.emit(scope, 'conversation.updated', {
            conversation: conversationEventJson(conversation.id),
            changes,
          });
          return toMessage(row);
        })
        .immediate();
    },

    /**
     * The customer reacted to one of the conversation's messages (null: took the reaction
     * back). Call inside a transaction; `message.reaction` carries the message as it is now.
     */
    react(row: MessageRow, emoji: string | null, at: number): Message {
      repo.setReaction(row.id, emoji, at);
      const message = toMessage({
        ...row,
        reaction: emoji,
        reaction_at: emoji === null ? null : at,
      });
      outbox.emit(
        { workspaceId: row.workspace_id, environment: row.environment },
        'message.reaction',
        { message },
      );
      return message;
    },

    /** A private note in a conversation: stored and shown to agents, never sent or charged. */
    note(
      scope: Scope,
      conversation: ConversationRow,
      text: string,
      agentId: string | null,
    ): Message {
      return db
        .transaction(() => {
          const contact = d.contacts.repo.get(scope, conversation.contact_id)!;
          const row: MessageRow = {
            id: ids('msg'),
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            conversation_id: conversation.id,
            contact_id: contact.id,
            phone: addressOf(contact),
            direction: 'outbound',
            type: 'note',
            template_name: null,
            text,
            variables: null,
            status: 'note',
            sent_by: 'agent',
            agent_id: agentId,
            category: null,
            cost_micros: 0,
            channel_message_id: null,
            error_code: null,
            error_message: null,
            created_at: clock.now(),
            sent_at: null,
            delivered_at: null,
            read_at: null,
            failed_at: null,
          };
          repo.insert(row);
          const message = toMessage(row);
          outbox.emit(scope, 'message.note', { message });
          return message;
        })
        .immediate();
    },

    list: (scope: Scope, q: MessageQuery): string => toRawPage(pageRows(scope, q), q.limit),

    /** The same page as JSON pieces (items array, next cursor). */
    listParts: (scope: Scope, q: MessageQuery) => rawPageParts(pageRows(scope, q), q.limit),
  };

  function pageRows(scope: Scope, q: MessageQuery): [string, string][] {
    const given = (['conversationId', 'contactId', 'phone'] as const).filter((k) => q[k]);
    if (given.length !== 1) {
      throw new ApiError(
        'validation_error',
        'give exactly one of conversationId, contactId or phone',
        {
          param: given[1] ?? 'conversationId',
        },
      );
    }
    const after = q.cursor ? decodeCursor(q.cursor) : null;
    const base = {
      workspaceId: scope.workspaceId,
      environment: scope.environment,
      cursor: after,
      limit: q.limit + 1,
    };
    let rows: [string, string][];
    if (q.conversationId) {
      rows = repo.page('conversation', { ...base, key: q.conversationId });
    } else {
      const contactId = q.contactId ?? d.contacts.repo.byPhone(scope, phoneOrThrow(q.phone!))?.id;
      rows = contactId ? repo.page('contact', { ...base, key: contactId }) : [];
    }
    return rows;
  }
}
export type MessagesService = ReturnType<typeof messagesService>;

const paceKey = (accountId: string, environment: 'test' | 'live'): PaceKey => ({
  accountId,
  environment,
});

function toChannelMessage(r: MessageRow): ChannelMessage {
  if (r.type === 'note') throw new Error('notes never reach the channel');
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    environment: r.environment,
    phone: r.phone,
    type: r.type,
    text: r.text,
    templateName: r.template_name,
    variables: r.variables ? (JSON.parse(r.variables) as Record<string, string>) : null,
    channelMessageId: r.channel_message_id!,
    list:
      r.type === 'list' && r.interactive ? (JSON.parse(r.interactive) as InteractiveList) : null,
  };
}
