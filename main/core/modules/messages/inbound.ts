import type { Message } from '../../../../shared/schemas/messages.ts';
import type { ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type { Location, SharedContact } from '../../../../shared/schemas/media.ts';
import type { Scope } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import { addressOf } from '../contacts/service.ts';
import type { ConversationRow } from '../conversations/repo.ts';
import type { InboundMedia } from '../media/service.ts';
import type { MessagesContext } from './context.ts';
import { mediaFactsJson, scopeOf, toMessage } from './model.ts';
import type { MessageRow } from './repo.ts';

/** An end-user message as a channel (or the simulator) hands it over. */
export interface ReceiveInput {
  /** E.164; a channel message may name only the sender's BSUID (`waUserId`). */
  phone?: string | null;
  waUserId?: string | null;
  /** The sender's WhatsApp profile name: the name of a contact that has none. */
  profileName?: string | null;
  /** The words; a media message's caption (or empty). */
  text: string;
  type: 'text' | 'list' | 'media' | 'location' | 'contacts';
  receivedAt: number;
  /** A pick from an interactive list. */
  listReply?: ListReply;
  /** The provider's id (a real channel): a redelivered webhook stores nothing twice. */
  channelMessageId?: string;
  /** A photo, voice note, video, document or sticker: recorded, and fetched by a job. */
  media?: InboundMedia;
  location?: Location;
  contacts?: SharedContact[];
  /** The message this one quotes: the provider's id (`context.id`) and/or ours. */
  context?: { messageId?: string | null; channelMessageId?: string | null };
}

/**
 * What comes in or stays inside: the customer's messages (which reopen their conversation and
 * wake waiting workflow runs), their reactions, and agents' private notes.
 */
export function messageInbound(ctx: MessagesContext) {
  const { d, repo, inboundListeners } = ctx;
  const { db, clock, ids, outbox } = d;

  /** A message no channel carries and nothing charges: one received, or an agent's note. */
  const unsentRow = (
    scope: Scope,
    conversationId: string,
    contact: ContactRow,
    own: Pick<
      MessageRow,
      | 'direction'
      | 'type'
      | 'text'
      | 'status'
      | 'sent_by'
      | 'agent_id'
      | 'channel_message_id'
      | 'created_at'
    > &
      Pick<
        Partial<MessageRow>,
        | 'interactive'
        | 'media_id'
        | 'media_json'
        | 'file_name'
        | 'content'
        | 'context_message_id'
        | 'context_channel_id'
      >,
  ): MessageRow => ({
    id: ids('msg'),
    workspace_id: scope.workspaceId,
    environment: scope.environment,
    conversation_id: conversationId,
    contact_id: contact.id,
    phone: addressOf(contact),
    template_name: null,
    variables: null,
    category: null,
    cost_micros: 0,
    error_code: null,
    error_message: null,
    sent_at: null,
    delivered_at: null,
    read_at: null,
    failed_at: null,
    ...own,
  });

  /** An end-user message arrives (the simulator now; a channel webhook later). */
  const receive = db.transaction((scope: Scope, input: ReceiveInput): Message | null => {
    if (input.channelMessageId && repo.byChannelId(input.channelMessageId)) return null;
    const contact =
      input.waUserId || input.profileName
        ? d.contacts.identify(scope, input)
        : d.contacts.ensure(scope, input.phone!);
    const now = clock.now();
    const account = d.workspaces.activeAccount(scope.workspaceId);
    const conversation = d.conversations.ensure(scope, contact.id, account.id, input.receivedAt);
    const media = input.media ? d.media.recordInbound(scope, input.media) : null;
    // A quote of a message we have names ours too (the thread jumps to it).
    const quotedChannelId = input.context?.channelMessageId ?? null;
    const quoted =
      !input.context?.messageId && quotedChannelId ? repo.byChannelId(quotedChannelId) : undefined;
    const ours =
      input.context?.messageId ??
      (quoted &&
      quoted.workspace_id === scope.workspaceId &&
      quoted.environment === scope.environment
        ? quoted.id
        : null);
    const row = unsentRow(scope, conversation.id, contact, {
      direction: 'inbound',
      type: input.type,
      text: input.text,
      status: 'received',
      sent_by: 'contact',
      agent_id: null,
      channel_message_id: input.channelMessageId ?? null,
      created_at: input.receivedAt,
      interactive: input.listReply ? JSON.stringify(input.listReply) : null,
      media_id: media?.id ?? null,
      media_json: media ? mediaFactsJson(media) : null,
      file_name: input.media?.fileName ?? null,
      content: input.location
        ? JSON.stringify(input.location)
        : input.contacts
          ? JSON.stringify(input.contacts)
          : null,
      context_message_id: ours,
      context_channel_id: quotedChannelId,
    });
    repo.insert(row);
    const firstInbound = conversation.last_inbound_at === null;
    d.contacts.markInbound(contact.id, input.receivedAt, now);
    const changes = d.conversations.touchInbound(conversation, input.receivedAt, now);
    const message = toMessage(row);
    // The conversation as these writes left it, from the rows in hand (no read back by SQL
    // unless a listener changes it).
    const inHand = d.conversations.inbound(conversation, contact, message, input.receivedAt, now);
    outbox.emit(scope, 'message.received', { message });
    for (const l of inboundListeners) {
      l(
        scope,
        contact.id,
        {
          text: input.text,
          ...(input.listReply ? { listReply: input.listReply } : {}),
        },
        conversation.id,
        { messageId: row.id, at: input.receivedAt, firstInbound },
      );
    }
    // After the listeners: the event carries the conversation as they left it.
    d.conversations.emitUpdated(scope, conversation.id, changes, inHand);
    return message;
  });

  return {
    /** An end-user message arrives (see `receive` above): in one immediate transaction. */
    receive: (scope: Scope, input: ReceiveInput): Message | null => receive.immediate(scope, input),

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

    /**
     * A received file was fetched (or could not be): each message carrying it says so
     * (`message.media_ready` / `message.media_failed`), in the transaction that settled it.
     */
    mediaSettled(mediaId: string, ready: boolean) {
      for (const row of repo.byMedia(mediaId)) {
        outbox.emit(scopeOf(row), ready ? 'message.media_ready' : 'message.media_failed', {
          message: toMessage(row),
        });
      }
    },

    /**
     * A private note in a conversation: stored and shown to agents, never sent or charged.
     * `mentions`: the members its `@name`s name (shared/mentions.ts).
     */
    note(
      scope: Scope,
      conversation: ConversationRow,
      text: string,
      agentId: string | null,
      mentions: readonly string[] = [],
    ): Message {
      return db
        .transaction(() => {
          const contact = d.contacts.find(scope, conversation.contact_id)!;
          const row = unsentRow(scope, conversation.id, contact, {
            direction: 'outbound',
            type: 'note',
            text,
            status: 'note',
            sent_by: 'agent',
            agent_id: agentId,
            channel_message_id: null,
            created_at: clock.now(),
          });
          if (mentions.length > 0) row.mentions = JSON.stringify(mentions);
          repo.insert(row);
          const message = toMessage(row);
          outbox.emit(scope, 'message.note', { message });
          return message;
        })
        .immediate();
    },
  };
}
