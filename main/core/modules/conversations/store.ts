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
 * A conversation that has just been created, as its API JSON (the shape `repo.json` builds in
 * SQL, key for key): no inbound message yet, so the window closed; its last message is the one
 * that opened it, if any (`toMessage` of that row: what the SQL builds, tested).
 */
export const newConversationJson = (
  r: ConversationRow,
  contact: ContactRow,
  lastMessage: Message | null = null,
) => ({
  windowOpen: false,
  id: r.id,
  status: r.status,
  assignee: r.assignee_id,
  labels: JSON.parse(r.labels) as string[],
  snoozedUntil: isoOrNull(r.snoozed_until),
  contact: toContact(contact),
  lastMessage,
  lastMessageAt: iso(r.last_message_at),
  lastInboundAt: null,
  unreadCount: 0,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

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
  const eventJson = (id: string) =>
    JSON.parse(repo.json(id, clock.now() - SERVICE_WINDOW_MS)) as Record<string, unknown>;

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

    emitUpdated(scope: Scope, id: string, changes: Changes) {
      outbox.emit(scope, 'conversation.updated', { conversation: eventJson(id), changes });
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
  };
  return store;
}
export type ConversationStore = ReturnType<typeof conversationStore>;
