import { ApiError } from '../../../../shared/errors.ts';
import { cloudApiListProblem, rowCount } from '../../../../shared/list-rules.ts';
import type { InteractiveList } from '../../../../shared/schemas/interactive-lists.ts';
import type { SendTemplateBody } from '../../../../shared/schemas/messages.ts';
import type { TemplateComponent } from '../../../../shared/schemas/templates.ts';
import type { Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import { addressOf, phoneOrThrow } from '../contacts/service.ts';
import { renderTemplate } from '../templates/rules.ts';
import type { PriceCategory } from '../wallet/prices.ts';
import type { MessagesContext } from './context.ts';
import type { Recipient, RunnerHandOver, Sender, StoredFields, To } from './model.ts';
import {
  API_SENDER,
  CLOUD_API_LIST_ROWS,
  IN_REQUEST_MS,
  insideServiceWindow,
  listFields,
  requireVariables,
  SERVICE_WINDOW_MS,
  toMessage,
} from './model.ts';
import type { MessageRow } from './repo.ts';
import { richParts } from './rich.ts';
import type { MessageStatus } from './status.ts';

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
  /** A local channel already took it: stored as `sent` (at the hand-over's time) in one write. */
  sent?: boolean;
}

/** What a send may quote: one of the recipient's messages (our id). */
export interface Quote {
  replyToMessageId?: string | undefined;
}

/**
 * Outbound sends (README "API"): the API's and the inbox's template, text and
 * list sends, and a runner's hand-over. A live send is charged in the transaction that stores
 * it; the message's conversation is created or touched through the conversations module.
 */
export function messageSends(ctx: MessagesContext, status: MessageStatus) {
  const { d, repo } = ctx;
  const { db, clock, ids, scheduler, outbox } = d;
  const { sentOnInsert } = status;
  const { quoted, mediaFields } = richParts(ctx);

  /**
   * Meta's Cloud API takes at most 10 rows in a list in all (our lists allow 10 per section):
   * on that channel a longer list is refused before anything is stored.
   */
  function listFitsChannel(scope: Scope, list: InteractiveList) {
    if (d.channelFor(scope.workspaceId, scope.environment).kind !== 'remote') return;
    if (cloudApiListProblem(list)) {
      const rows = rowCount(list);
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
    const contact = 'phone' in to ? d.contacts.findByPhone(scope, to.phone) : to.contact;
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
    const tpl = d.templates.findByName(scope, templateName);
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
    // One look at the channel a send: its ids and whether the request hands it over.
    const channel = d.channelFor(scope.workspaceId, scope.environment);
    const { row: conversation, opened } = d.conversations.forOutbound(
      scope,
      contact.id,
      account.id,
      now,
    );
    const id = opts.id ?? ids('msg');
    const cost = charge(scope, fields.category, id);
    const row: MessageRow = {
      id,
      workspace_id: scope.workspaceId,
      environment: scope.environment,
      conversation_id: conversation.id,
      contact_id: contact.id,
      phone: addressOf(contact),
      direction: 'outbound',
      ...fields,
      status: opts.sent ? 'sent' : 'accepted',
      sent_by: sender.sentBy,
      agent_id: sender.agentId,
      cost_micros: cost,
      channel_message_id: opts.channelMessageId ?? channel.newMessageId(),
      error_code: null,
      error_message: null,
      created_at: now,
      sent_at: opts.sent ? now : null,
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
      addressOf(contact),
      insideServiceWindow(contact.last_inbound_at, now),
      opts.takesTierSlot,
      now,
    );
    if (opened) {
      // A conversation this message opened: one `conversation.created` with it as the last.
      const contactRow = d.contacts.find(scope, contact.id)!;
      d.conversations.announceOpened(scope, conversation, contactRow, toMessage(row));
    } else d.conversations.touchOutbound(scope, conversation, now);
    // Live sends through a provider (test keys never use one, except a test's own channel).
    const remote = !!opts.inRequest && scope.environment === 'live' && channel.kind === 'remote';
    // A provider's send that its job makes (a media message's file is uploaded first).
    const queued = !remote && scope.environment === 'live' && channel.kind === 'remote';
    if (remote) {
      // Handed over by the request itself (deliverNow): recorded as in flight before the call;
      // should the request's call end without an answer, this job takes over (README "Connecting WhatsApp").
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
    return { row, account, conversation, remote, queued };
  }

  /**
   * A service message (free text, a list) to a contact inside its window, stored and handed over
   * in the request. `prepare` runs first in the transaction (a list is found and checked there);
   * its `extra` goes into the answer's data after the phone.
   */
  function sendInWindow<E extends object>(
    scope: Scope,
    to: To,
    sender: Sender,
    kind: 'Text' | 'List' | 'Media',
    prepare: () => { fields: StoredFields; extra: E },
    quote: Quote = {},
  ) {
    const phone = addressed(to);
    return db
      .transaction(() => {
        const { fields, extra } = prepare();
        const contact = contactInWindow(scope, 'phone' in to ? { phone } : to);
        const { row, account, conversation, remote, queued } = store(
          scope,
          contact,
          { ...fields, ...quoted(scope, contact, quote.replyToMessageId) },
          sender,
          // A media message's file is uploaded by its delivery job before it is sent.
          { inRequest: fields.type !== 'media' },
        );
        return {
          remote,
          queued,
          message: toMessage(row),
          response: {
            success: true as const,
            message: `${kind} message accepted for ${phone}`,
            data: {
              messageId: row.id,
              channelMessageId: row.channel_message_id,
              phone,
              ...extra,
              contactId: contact.id,
              conversationId: conversation.id,
              wabaId: account.id,
            },
          },
        };
      })
      .immediate();
  }

  /**
   * The hand-over itself (handOverForRunner): every event it writes is one of the campaign's
   * per-recipient events.
   */
  function handOverForRunner(
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
        phone: addressOf(contact),
        // Runners send templates, texts and lists.
        type: fields.type === 'template' || fields.type === 'list' ? fields.type : 'text',
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
      channelMessageId: outcome.channelMessageId ?? channelMessageId,
      dispatch: false,
      sent: true,
    });
    sentOnInsert(row, outcome);
    return { ok: true, messageId: id };
  }

  return {
    sendableTemplate,
    listFitsChannel,

    /**
     * A runner's hand-over (campaigns now, workflows next), inside the runner's transaction,
     * after the governor said "now" and took its token. A local channel answers at once, so the
     * message row is created only when the channel took it — as `sent`, charged (live) in this
     * transaction — and a refusal leaves no row: the runner retries or fails its recipient. A
     * remote channel gets the row `accepted` and its own delivery job (README "Connecting WhatsApp").
     */
    handOverForRunner: (...args: Parameters<typeof handOverForRunner>): RunnerHandOver =>
      outbox.forCampaign(args[4].campaignId, () => handOverForRunner(...args)),

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
          const contact = 'contact' in body ? body.contact : d.contacts.ensure(scope, phone);
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

    sendText(scope: Scope, body: To & { message: string } & Quote, sender: Sender = API_SENDER) {
      return sendInWindow(
        scope,
        body,
        sender,
        'Text',
        () => ({
          fields: {
            type: 'text',
            template_name: null,
            text: body.message,
            variables: null,
            category: 'SERVICE',
          },
          extra: {},
        }),
        body,
      );
    },

    /**
     * A photo, voice note, video, document or sticker (a stored file of the scope, `POST
     * /media`), inside the service window like free text and charged the same (SERVICE). On the
     * Cloud API its delivery job uploads the file, then sends it by id.
     */
    sendMedia(
      scope: Scope,
      body: To & { mediaId: string; caption?: string; fileName?: string } & Quote,
      sender: Sender = API_SENDER,
    ) {
      return sendInWindow(
        scope,
        body,
        sender,
        'Media',
        () => ({ fields: mediaFields(scope, body), extra: { mediaId: body.mediaId } }),
        body,
      );
    },

    /**
     * The business reacts to a customer's message (an empty emoji takes it back): a `reaction`
     * message to the channel, inside the service window, shown on the message it reacts to
     * (`agentReaction`, event `message.reaction`). A reaction whose send fails comes off again.
     */
    sendReaction(
      scope: Scope,
      conversationId: string,
      messageId: string,
      emoji: string,
      sender: Sender,
    ) {
      return db
        .transaction(() => {
          const target = repo.byId(messageId);
          if (
            !target ||
            target.conversation_id !== conversationId ||
            target.workspace_id !== scope.workspaceId ||
            target.environment !== scope.environment
          ) {
            throw new ApiError(
              'not_found',
              `no message ${messageId} in conversation ${conversationId}`,
            );
          }
          if (target.direction !== 'inbound') {
            throw new ApiError('validation_error', 'react to a message the customer sent', {
              param: 'messageId',
            });
          }
          const contact = contactInWindow(scope, {
            contact: d.contacts.find(scope, target.contact_id)!,
          });
          if (
            !target.channel_message_id &&
            d.channelFor(scope.workspaceId, scope.environment).kind === 'remote'
          ) {
            throw new ApiError(
              'validation_error',
              `message ${target.id} did not come through WhatsApp, so it cannot be reacted to there`,
              { param: 'messageId' },
            );
          }
          const { row, remote } = store(
            scope,
            contact,
            {
              type: 'reaction',
              template_name: null,
              text: emoji,
              variables: null,
              category: 'SERVICE',
              context_message_id: target.id,
              context_channel_id: target.channel_message_id,
            },
            sender,
            { inRequest: true },
          );
          const reaction = emoji
            ? JSON.stringify({
                emoji,
                at: iso(row.created_at),
                agentId: sender.agentId,
                messageId: row.id,
              })
            : null;
          repo.setAgentReaction(target.id, reaction);
          const message = toMessage({ ...target, agent_reaction: reaction });
          outbox.emit(scope, 'message.reaction', { message });
          return { remote, reaction: toMessage(row), message };
        })
        .immediate();
    },

    /**
     * An interactive list, inside the service window (free text's rule): the message keeps a
     * copy of the list as it is now, so later edits do not change what was sent.
     */
    sendList(scope: Scope, body: To & { listId: string } & Quote, sender: Sender = API_SENDER) {
      return sendInWindow(
        scope,
        body,
        sender,
        'List',
        () => {
          const list = d.lists.find(scope, body.listId, 'listId');
          listFitsChannel(scope, list);
          return { fields: listFields(list), extra: { listId: list.id } };
        },
        body,
      );
    },
  };
}
