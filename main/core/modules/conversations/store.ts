import type { Database as Db } from 'better-sqlite3';
import type { Message } from '../../../../shared/schemas/messages.ts';
import type { Outbox } from '../../events/outbox.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import { toContact } from '../contacts/service.ts';
import { SERVICE_WINDOW_MS } from '../messages/model.ts';
import type { ConversationRow } from './repo.ts';
import { conversationsRepo } from './repo.ts';

export type Changes = Record<string, { from: unknown; to: unknown }>;

/**
 * A conversation as its API JSON, built from rows in hand: the shape `repo.json` builds in SQL,
 * key for key (`windowOpen` first; `lastMessage` is `toMessage` of the newest non-note message,
 * what the SQL builds, tested).
 */
export const conversationJson = (
  r: ConversationRow,
  contact: ContactRow,
  lastMessage: Message | null,
  windowOpen: boolean,
) => ({
  windowOpen,
  id: r.id,
  status: r.status,
  assignee: r.assignee_id,
  labels: JSON.parse(r.labels) as string[],
  snoozedUntil: isoOrNull(r.snoozed_until),
  contact: toContact(contact),
  lastMessage,
  lastMessageAt: iso(r.last_message_at),
  lastInboundAt: isoOrNull(r.last_inbound_at),
  unreadCount: r.unread_count,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/**
 * A conversation that has just been created, as its API JSON: no inbound message yet, so the
 * window closed; its last message is the one that opened it, if any.
 */
export const newConversationJson = (
  r: ConversationRow,
  contact: ContactRow,
  lastMessage: Message | null = null,
) => conversationJson(r, contact, lastMessage, false);

/**
 * A conversation as an inbound message left it (`touchInbound`, the contact's `markInbound`),
 * built from the rows in hand; trusted by `emitUpdated` only while the conversation's version
 * and newest message are still these (nothing else changed it since).
 */
export interface InHand {
  version: number;
  messageId: string;
  json: (windowStart: number) => Record<string, unknown>;
}

/**
 * Conversation rows as messages move them: the one place a conversation is created (by a send,
 * an inbound message, the inbox's "start a conversation" or a workflow step) and touched by a
 * new message, each with its `conversation.created` / `conversation.updated` event. Built
 * before the messages service, which writes through it; the conversations service uses it too.
 * Call inside a transaction.
 */
export function conversationStore(d: { db: Db; clock: Clock; ids: IdGenerator; outbox: Outbox }) {
  const { clock, ids, outbox } = d;
  const repo = conversationsRepo(d.db);
  /** Told (in the transaction) when a conversation's status changes: workflows listen. */
  const statusListeners = new Set<
    (scope: Scope, conversationId: string, from: string, to: string) => void
  >();
  const eventJson = (id: string, inHand?: InHand): Record<string, unknown> => {
    const windowStart = clock.now() - SERVICE_WINDOW_MS;
    if (inHand) {
      const now = repo.versionAndLast(id);
      if (now && now[0] === inHand.version && now[1] === inHand.messageId) {
        return inHand.json(windowStart);
      }
    }
    return JSON.parse(repo.json(id, windowStart)) as Record<string, unknown>;
  };

  /** A new open conversation's row, inserted (no event: the caller's). */
  function insertOpen(scope: Scope, contactId: string, accountId: string, at: number) {
    const row: ConversationRow = {
      id: ids('conv'),
      workspace_id: scope.workspaceId,
      environment: scope.environment,
      contact_id: contactId,
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
    repo.insert(row);
    return row;
  }

  /** Inserts a new open conversation and emits `conversation.created`; returns its JSON too. */
  function create(scope: Scope, contactId: string, accountId: string, at: number) {
    const row = insertOpen(scope, contactId, accountId, at);
    const json = repo.json(row.id, clock.now() - SERVICE_WINDOW_MS);
    outbox.emit(scope, 'conversation.created', {
      conversation: JSON.parse(json) as Record<string, unknown>,
    });
    return { row, json };
  }

  const store = {
    /** The conversation of a contact with a business account, if there is one. */
    byContact: (contactId: string, accountId: string): ConversationRow | undefined =>
      repo.byContact(contactId, accountId),

    create,

    /** The contact's conversation with the account, created (open, at `at`) if there is none. */
    ensure(scope: Scope, contactId: string, accountId: string, at: number): ConversationRow {
      return repo.byContact(contactId, accountId) ?? create(scope, contactId, accountId, at).row;
    },

    /**
     * An outbound message's conversation: the contact's with the account, or a new open one
     * whose `conversation.created` waits for the message (`opened`: its activity is already the
     * message's, so it is not touched).
     */
    forOutbound(
      scope: Scope,
      contactId: string,
      accountId: string,
      at: number,
    ): { row: ConversationRow; opened: boolean } {
      const existing = repo.byContact(contactId, accountId);
      if (existing) return { row: existing, opened: false };
      return { row: insertOpen(scope, contactId, accountId, at), opened: true };
    },

    /**
     * `conversation.created` for a conversation `forOutbound` opened, once its first message is
     * stored: built from the rows in hand (the message as its last), the JSON `repo.json` would
     * read back, in one event instead of a created and an updated.
     */
    announceOpened(scope: Scope, row: ConversationRow, contact: ContactRow, message: Message) {
      outbox.emit(scope, 'conversation.created', {
        conversation: newConversationJson(row, contact, message),
      });
    },

    /**
     * A conversation created with a runner's change already applied (status, assignee, labels):
     * one write, one `conversation.created` built from the rows in hand.
     */
    createWith(
      scope: Scope,
      contact: ContactRow,
      accountId: string,
      fields: Pick<ConversationRow, 'status' | 'assignee_id'> & { labels: string[] },
      now: number,
    ): string {
      const row: ConversationRow = {
        id: ids('conv'),
        workspace_id: scope.workspaceId,
        environment: scope.environment,
        contact_id: contact.id,
        business_account_id: accountId,
        status: fields.status,
        assignee_id: fields.assignee_id,
        labels: JSON.stringify(fields.labels),
        snoozed_until: null,
        last_message_at: now,
        last_inbound_at: null,
        unread_count: 0,
        created_at: now,
        updated_at: now,
      };
      repo.insert(row);
      if (fields.labels.length) repo.setLabels(row, fields.labels, true);
      // Built from the rows in hand (no messages yet, the window closed): the same JSON as
      // repo.json, without reading back what was just written.
      outbox.emit(scope, 'conversation.created', {
        conversation: newConversationJson(row, contact),
      });
      return row.id;
    },

    /** `inHand`: the conversation built from rows in hand (`inbound`), used if still current. */
    emitUpdated(scope: Scope, id: string, changes: Changes, inHand?: InHand) {
      outbox.emit(scope, 'conversation.updated', { conversation: eventJson(id, inHand), changes });
      const status = changes.status;
      if (status) {
        for (const l of statusListeners) l(scope, id, String(status.from), String(status.to));
      }
    },

    /** Listens to status changes (every one goes through emitUpdated, in its transaction). */
    onStatusChange(l: (scope: Scope, conversationId: string, from: string, to: string) => void) {
      statusListeners.add(l);
    },

    /** An outbound message at `at`: the conversation's activity moves, `conversation.updated`. */
    touchOutbound(scope: Scope, conversation: ConversationRow, at: number) {
      repo.touchOutbound(conversation.id, at, at);
      store.emitUpdated(scope, conversation.id, {
        lastMessageAt: {
          from: iso(conversation.last_message_at),
          to: iso(Math.max(at, conversation.last_message_at)),
        },
      });
    },

    /**
     * An inbound message at `at`: one more unread, and a snoozed or resolved conversation
     * reopens. Returns the changes for the `conversation.updated` the caller emits (after the
     * message's own event).
     */
    touchInbound(conversation: ConversationRow, at: number, now: number): Changes {
      const reopen = conversation.status === 'snoozed' || conversation.status === 'resolved';
      repo.touchInbound({
        id: conversation.id,
        at,
        now,
        status: reopen ? 'open' : conversation.status,
        snoozed_until: reopen ? null : conversation.snoozed_until,
      });
      const changes: Changes = {
        lastMessageAt: {
          from: iso(conversation.last_message_at),
          to: iso(Math.max(at, conversation.last_message_at)),
        },
        unreadCount: { from: conversation.unread_count, to: conversation.unread_count + 1 },
      };
      if (reopen) {
        changes.status = { from: conversation.status, to: 'open' };
        if (conversation.snoozed_until !== null) {
          changes.snoozedUntil = { from: iso(conversation.snoozed_until), to: null };
        }
      }
      return changes;
    },

    /**
     * Right after `touchInbound` (and the contact's `markInbound`) of `message`: the
     * conversation's JSON as those writes left it, from the rows they started from, with the
     * version it has now (`emitUpdated` falls back to SQL if anything moved it since).
     */
    inbound(
      conversation: ConversationRow,
      contact: ContactRow,
      message: Message,
      at: number,
      now: number,
    ): InHand | undefined {
      const current = repo.versionAndLast(conversation.id);
      if (!current || current[1] !== message.id) return undefined;
      const reopen = conversation.status === 'snoozed' || conversation.status === 'resolved';
      // The UPDATEs' arithmetic (repo.touchInbound, contacts' setLastInbound), in JS.
      const lastInboundAt = Math.max(conversation.last_inbound_at ?? 0, at);
      const row: ConversationRow = {
        ...conversation,
        status: reopen ? 'open' : conversation.status,
        snoozed_until: reopen ? null : conversation.snoozed_until,
        last_message_at: Math.max(conversation.last_message_at, at),
        last_inbound_at: lastInboundAt,
        unread_count: conversation.unread_count + 1,
        updated_at: now,
      };
      const who: ContactRow = {
        ...contact,
        last_inbound_at: Math.max(contact.last_inbound_at ?? 0, at),
        updated_at: now,
      };
      return {
        version: current[0],
        messageId: message.id,
        json: (windowStart) => conversationJson(row, who, message, lastInboundAt > windowStart),
      };
    },
  };
  return store;
}
export type ConversationStore = ReturnType<typeof conversationStore>;
