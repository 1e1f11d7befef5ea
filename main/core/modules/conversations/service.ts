import type { Database as Db } from 'better-sqlite3';
import { MAX_LABELS, normalizeLabels } from '../../../../shared/labels.ts';
import { ApiError } from '../../../../shared/errors.ts';
import type { Outbox } from '../../events/outbox.ts';
import { decodeCursor, encodeCursor } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { findMentions } from '../../../../shared/mentions.ts';
import type { ActingAgent, Clock, Scope } from '../../runtime.ts';
import { NO_AGENT, isoOrNull } from '../../runtime.ts';
import type { ContactsService } from '../contacts/service.ts';
import type { ContactRow } from '../contacts/repo.ts';
import { phoneOrThrow } from '../contacts/service.ts';
import type { MessagesService } from '../messages/service.ts';
import { SERVICE_WINDOW_MS, toMessage } from '../messages/service.ts';
import type { Notifications } from '../presence/notifications.ts';
import type { ConversationFilter, ConversationRow } from './repo.ts';
import { conversationsRepo } from './repo.ts';
import type { MembersService } from '../members/service.ts';
import type { MemberRow } from '../members/repo.ts';
import type { ConversationStore } from './store.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { ActiveRun } from '../../../../shared/schemas/workflows.ts';

/**
 * What the inbox asks of automation (the workflows module, connected in services.ts): the run
 * talking to a contact, and a person's take-over (design.md §7), in the reply's or the
 * assignment's transaction.
 */
export interface Automation {
  activeRun(contactId: string): ActiveRun;
  handOff(
    scope: Scope,
    conversationId: string,
    contactId: string,
    reason: 'agent_reply' | 'assigned',
    by: string | null,
  ): void;
}

const DATA_OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');

export { newConversationJson } from './store.ts';

export interface ListQuery {
  status?: ConversationRow['status'];
  assignee?: string;
  label?: string;
  q?: string;
  unread?: 'true' | 'false';
  ids?: string;
  limit: number;
  cursor?: string;
}

export interface PatchBody {
  status?: ConversationRow['status'];
  snoozedUntil?: string | null;
  assignee?: string | null;
  labels?: string[];
  addLabels?: string[];
  read?: true;
}

export interface ReplyBody {
  text?: string;
  templateName?: string;
  variables?: Record<string, string>;
  listId?: string;
  mediaId?: string;
  caption?: string;
  fileName?: string;
  /** Quote one of the conversation's messages. */
  replyToMessageId?: string | undefined;
  as: 'agent' | 'bot';
  private: boolean;
  /** The newest message the replier saw: a newer one from someone else answers 409. */
  basedOnMessageId?: string | undefined;
}

/**
 * The inbox (README "API"): one conversation per contact per business account,
 * status open | pending | snoozed | resolved, an assignee and labels. Snoozes wake through a
 * durable job; every change emits `conversation.updated` with what changed.
 */
export function conversationsService(deps: {
  db: Db;
  clock: Clock;
  scheduler: Scheduler;
  outbox: Outbox;
  contacts: ContactsService;
  messages: MessagesService;
  workspaces: WorkspacesService;
  /** Who may be assigned work (the workspace's active members), and who a note may mention. */
  members: Pick<MembersService, 'findActive' | 'agents'>;
  /** Where conversation rows are created and touched by messages (shared with messages). */
  store: ConversationStore;
  /** The assignee's and the mentioned members' notifications (ephemeral, after the commit). */
  notify: Notifications;
}) {
  const { db, clock, scheduler, store } = deps;
  const repo = conversationsRepo(db);
  let automation: Automation | null = null;
  /** The conversation's JSON with the run talking to its customer (`activeRun`). */
  const withActiveRun = (json: string, contactId: string) =>
    `${json.slice(0, -1)},"activeRun":${JSON.stringify(automation?.activeRun(contactId) ?? null)}}`;

  const windowStart = () => clock.now() - SERVICE_WINDOW_MS;

  function require(scope: Scope, id: string): ConversationRow {
    const row = repo.get(scope, id);
    if (!row) throw new ApiError('not_found', `no conversation ${id}`);
    return row;
  }

  /** An active member to assign to (a deactivated one keeps what they had, takes nothing new). */
  function agent(workspaceId: string, id: string, param: string): MemberRow {
    const a = deps.members.findActive(workspaceId, id);
    if (!a) {
      throw new ApiError('validation_error', `no active member ${id} in this workspace`, { param });
    }
    return a;
  }

  /**
   * The agent a request acts as (`X-Parley-Agent`), checked only where "me" is used, so a
   * stale header does not break the rest of the inbox.
   */
  function me(acting: ActingAgent, param: string): string {
    if (!acting.named) {
      throw new ApiError('validation_error', '"me" needs the X-Parley-Agent header (an agent id)', {
        param,
      });
    }
    return actingId(acting);
  }

  /** The agent the caller acts as; a header naming no agent of the workspace is a 400. */
  function actingId(acting: ActingAgent): string {
    if (acting.id === null) {
      throw new ApiError('validation_error', `no agent ${acting.named} in this workspace`, {
        param: 'X-Parley-Agent',
      });
    }
    return acting.id;
  }

  scheduler.register('conversation.wake', (payload) => {
    const { conversationId, until } = payload;
    const row = repo.byId(conversationId);
    // Woken by an inbound message, re-snoozed or changed since: nothing to do.
    if (!row || row.status !== 'snoozed' || row.snoozed_until !== until) return;
    repo.update({ ...row, status: 'open', snoozed_until: null, updated_at: clock.now() });
    store.emitUpdated(
      { workspaceId: row.workspace_id, environment: row.environment as Scope['environment'] },
      row.id,
      {
        status: { from: 'snoozed', to: 'open' },
        snoozedUntil: { from: isoOrNull(until), to: null },
      },
    );
  });

  /**
   * 409 `conversation_changed` when the conversation has an outbound message or note newer than
   * the one the replier saw, from anyone but the replier (`memberId`; null: an API key, for
   * which every such message is someone else's).
   */
  function checkBasis(row: ConversationRow, basedOnMessageId: string, memberId: string | null) {
    const basis = deps.messages.byId(basedOnMessageId);
    if (!basis || basis.conversation_id !== row.id) {
      throw new ApiError(
        'validation_error',
        `basedOnMessageId names no message of conversation ${row.id}`,
        { param: 'basedOnMessageId' },
      );
    }
    const newer = deps.messages.newerOutbound(row.id, basis.id, memberId);
    if (newer) {
      const who =
        newer.sent_by === 'agent'
          ? 'another member'
          : newer.sent_by === 'bot'
            ? 'a workflow'
            : 'the API';
      throw new ApiError(
        'conversation_changed',
        `${who} wrote in this conversation after the message you replied to: read it, then send again with basedOnMessageId ${newer.id} to send anyway`,
        { param: 'basedOnMessageId', details: { message: toMessage(newer) } },
      );
    }
  }

  /** A private note; the active members its `@name`s mention are stored on it and notified. */
  function note(scope: Scope, row: ConversationRow, text: string, agentId: string | null) {
    const mentions = text.includes('@')
      ? findMentions(
          text,
          deps.members.agents(scope.workspaceId).filter((m) => m.active),
        )
      : [];
    const message = deps.messages.note(scope, row, text, agentId, mentions);
    for (const memberId of mentions) {
      deps.notify.later(
        scope,
        memberId,
        { kind: 'mention', conversationId: row.id, by: agentId, messageId: message.id },
        () => deps.messages.byId(message.id) !== undefined,
      );
    }
    return message;
  }

  function send(scope: Scope, row: ConversationRow, body: ReplyBody, agentId: string | null) {
    const contact = deps.contacts.find(scope, row.contact_id)!;
    const sender = { sentBy: body.as, agentId } as const;
    const quote = { replyToMessageId: body.replyToMessageId };
    if (body.text !== undefined) {
      return deps.messages.sendText(scope, { contact, message: body.text, ...quote }, sender)
        .message;
    }
    if (body.mediaId !== undefined) {
      return deps.messages.sendMedia(
        scope,
        {
          contact,
          mediaId: body.mediaId,
          ...(body.caption !== undefined ? { caption: body.caption } : {}),
          ...(body.fileName !== undefined ? { fileName: body.fileName } : {}),
          ...quote,
        },
        sender,
      ).message;
    }
    if (body.templateName !== undefined) {
      return deps.messages.sendTemplate(
        scope,
        {
          contact,
          templateName: body.templateName,
          ...(body.variables ? { variables: body.variables } : {}),
        },
        sender,
      ).message;
    }
    return deps.messages.sendList(scope, { contact, listId: body.listId!, ...quote }, sender)
      .message;
  }

  const service = {
    repo,

    /** Connects the workflows (services.ts): activeRun and handoff. */
    connectAutomation(a: Automation) {
      automation = a;
    },

    /**
     * The business reacts to one of the customer's messages in a conversation (an empty emoji
     * takes it back): see messages.sendReaction. Returns the message reacted to, as it is now.
     */
    react(
      scope: Scope,
      id: string,
      messageId: string,
      emoji: string,
      acting: ActingAgent = NO_AGENT,
    ) {
      const row = require(scope, id);
      const agentId = acting.named ? actingId(acting) : row.assignee_id;
      return deps.messages.sendReaction(scope, row.id, messageId, emoji, {
        sentBy: 'agent',
        agentId,
      });
    },

    /** The conversation of a contact with a business account, if there is one. */
    byContact: (contactId: string, accountId: string): ConversationRow | undefined =>
      repo.byContact(contactId, accountId),

    /** A conversation of the scope; 404 when there is none. */
    find: (scope: Scope, id: string): ConversationRow => require(scope, id),

    list(scope: Scope, q: ListQuery, acting: ActingAgent = NO_AGENT): Buffer {
      const filter: ConversationFilter = {};
      if (q.status) filter.status = q.status;
      if (q.assignee === 'unassigned') filter.assignee = null;
      else if (q.assignee === 'me') filter.assignee = me(acting, 'assignee');
      else if (q.assignee) filter.assignee = agent(scope.workspaceId, q.assignee, 'assignee').id;
      if (q.label?.trim()) filter.label = q.label.trim();
      // Control characters (a NUL from `q=%00`) mean nothing in a search and break FTS5 syntax.
      const text = q.q?.replace(/\p{Cc}+/gu, ' ').trim();
      if (text) filter.q = text;
      if (q.unread === 'true') filter.unread = true;
      if (q.ids) filter.ids = [...new Set(q.ids.split(',').map((id) => id.trim()))];
      let cursor: { at: number; id: string } | null = null;
      if (q.cursor) {
        const m = /^(\d+):(.+)$/.exec(decodeCursor(q.cursor));
        if (!m)
          throw new ApiError('validation_error', 'cursor is not a cursor this API returned', {
            param: 'cursor',
          });
        cursor = { at: Number(m[1]), id: m[2]! };
      }
      const rows = repo.list(scope, filter, cursor, q.limit + 1, windowStart());
      const more = rows.length > q.limit;
      const kept = more ? rows.slice(0, q.limit) : rows;
      const counts = { open: 0, pending: 0, snoozed: 0, resolved: 0 };
      for (const c of repo.counts(scope, filter)) counts[c.status as keyof typeof counts] = c.n;
      const next = more ? JSON.stringify(encodeCursor(kept[kept.length - 1]!.key)) : 'null';
      const parts: Buffer[] = [DATA_OPEN];
      kept.forEach((r, i) => {
        if (i > 0) parts.push(COMMA);
        parts.push(r.head, r.body);
      });
      parts.push(Buffer.from(`],"nextCursor":${next},"counts":${JSON.stringify(counts)}}`));
      return Buffer.concat(parts);
    },

    /** One conversation with its last 20 messages, newest first, and the run talking to its customer. */
    get(scope: Scope, id: string): string {
      const row = require(scope, id);
      const conversation = withActiveRun(repo.json(id, windowStart()), row.contact_id);
      const { items, nextCursor } = deps.messages.listParts(scope, {
        conversationId: id,
        limit: 20,
      });
      return `${conversation.slice(0, -1)},"messages":${items},"messagesNextCursor":${nextCursor}}`;
    },

    /**
     * The conversation with a contact (given by id, or by phone: created if new), started now if
     * there is none yet, so an agent can write first (a template, outside the service window).
     */
    open(
      scope: Scope,
      body: { contactId?: string; phone?: string; name?: string },
    ): { json: string; created: boolean } {
      const phone = body.phone === undefined ? null : phoneOrThrow(body.phone);
      return db
        .transaction(() => {
          let contactId: string;
          if (body.contactId !== undefined) {
            const contact = deps.contacts.find(scope, body.contactId);
            if (!contact) {
              throw new ApiError('not_found', `no contact ${body.contactId}`, {
                param: 'contactId',
              });
            }
            contactId = contact.id;
          } else {
            // An existing contact keeps its name: `name` only names a contact created here.
            const existing = deps.contacts.findByPhone(scope, phone!);
            contactId =
              existing?.id ??
              deps.contacts.write(scope, phone!, body.name ? { name: body.name } : {}).row.id;
          }
          const account = deps.workspaces.activeAccount(scope.workspaceId);
          const existing = repo.byContact(contactId, account.id);
          if (existing) return { json: repo.json(existing.id, windowStart()), created: false };
          const { json } = store.create(scope, contactId, account.id, clock.now());
          return { json, created: true };
        })
        .immediate();
    },

    /**
     * A runner's change to a contact's conversation (the workflow step `update_conversation`), in
     * the caller's transaction. With no conversation yet it is created with the change already
     * applied (one write, one `conversation.created`), else patched like an agent's PATCH. Labels
     * to remove win over labels to add. Returns the conversation's id.
     */
    applyForRunner(
      scope: Scope,
      contact: ContactRow,
      change: {
        status?: ConversationRow['status'];
        assignee?: string | null;
        addLabels?: string[];
        removeLabels?: string[];
      },
    ): string {
      const account = deps.workspaces.activeAccount(scope.workspaceId);
      const existing = repo.byContact(contact.id, account.id);
      const touchesLabels = change.addLabels !== undefined || change.removeLabels !== undefined;
      const remove = new Set(normalizeLabels(change.removeLabels ?? []));
      const labelsFrom = (current: string[]) =>
        normalizeLabels([...current, ...(change.addLabels ?? [])]).filter((l) => !remove.has(l));
      const patchBody = (current: string[]): PatchBody => ({
        ...(change.status !== undefined ? { status: change.status } : {}),
        ...(change.assignee !== undefined ? { assignee: change.assignee } : {}),
        ...(touchesLabels ? { labels: labelsFrom(current) } : {}),
      });
      if (change.status === 'snoozed') {
        throw new ApiError('validation_error', 'snoozing needs snoozedUntil', {
          param: 'snoozedUntil',
        });
      }
      if (existing) {
        service.patch(
          scope,
          existing.id,
          patchBody(JSON.parse(existing.labels) as string[]),
          undefined,
        );
        return existing.id;
      }
      const labels = labelsFrom([]);
      if (labels.length > MAX_LABELS) {
        throw new ApiError('validation_error', `a conversation has at most ${MAX_LABELS} labels`, {
          param: 'addLabels',
        });
      }
      const assignee =
        change.assignee === undefined || change.assignee === null
          ? null
          : agent(scope.workspaceId, change.assignee, 'assignee').id;
      return store.createWith(
        scope,
        contact,
        account.id,
        { status: change.status ?? 'open', assignee_id: assignee, labels },
        clock.now(),
      );
    },

    messages(scope: Scope, id: string, q: { limit: number; cursor?: string }): string {
      require(scope, id);
      return deps.messages.list(scope, {
        conversationId: id,
        limit: q.limit,
        ...(q.cursor ? { cursor: q.cursor } : {}),
      });
    },

    /**
     * `acting`: the member or key asking — a person's change; an assignment to a member then
     * hands the conversation over from automation (design.md §7), even to whom it already had.
     * Undefined: the core's own change (auto-assignment, a workflow step), which hands nothing.
     */
    patch(scope: Scope, id: string, body: PatchBody, acting?: ActingAgent): string {
      const byPerson = acting !== undefined;
      acting ??= NO_AGENT;
      return db
        .transaction(() => {
          const row = require(scope, id);
          const now = clock.now();
          const next: ConversationRow = { ...row };
          const changes: Record<string, { from: unknown; to: unknown }> = {};
          if (body.status !== undefined) next.status = body.status;
          if (body.snoozedUntil !== undefined) {
            next.snoozed_until = body.snoozedUntil === null ? null : Date.parse(body.snoozedUntil);
          }
          if (next.status === 'snoozed') {
            if (body.status === 'snoozed' && body.snoozedUntil === undefined) {
              throw new ApiError('validation_error', 'snoozing needs snoozedUntil', {
                param: 'snoozedUntil',
              });
            }
            if (next.snoozed_until === null || next.snoozed_until <= now) {
              throw new ApiError('validation_error', 'snoozedUntil must be in the future', {
                param: 'snoozedUntil',
              });
            }
          } else if (body.snoozedUntil) {
            throw new ApiError('validation_error', 'snoozedUntil goes with status "snoozed"', {
              param: 'snoozedUntil',
            });
          } else {
            next.snoozed_until = null;
          }
          if (body.assignee !== undefined) {
            if (body.assignee === null) next.assignee_id = null;
            else if (body.assignee === 'me') next.assignee_id = me(acting, 'assignee');
            else next.assignee_id = agent(scope.workspaceId, body.assignee, 'assignee').id;
          }
          // `addLabels` merges in this transaction: a bulk "add label" never drops a label
          // another agent set a moment ago (which replacing from a cached copy would).
          const base =
            body.labels ?? (body.addLabels ? (JSON.parse(row.labels) as string[]) : null);
          const labels = base ? normalizeLabels([...base, ...(body.addLabels ?? [])]) : null;
          if (labels && labels.length > MAX_LABELS) {
            throw new ApiError(
              'validation_error',
              `a conversation has at most ${MAX_LABELS} labels`,
              {
                param: body.addLabels ? 'addLabels' : 'labels',
              },
            );
          }
          if (labels) next.labels = JSON.stringify(labels);
          if (body.read) next.unread_count = 0;

          if (next.status !== row.status) changes.status = { from: row.status, to: next.status };
          if (next.snoozed_until !== row.snoozed_until) {
            changes.snoozedUntil = {
              from: isoOrNull(row.snoozed_until),
              to: isoOrNull(next.snoozed_until),
            };
          }
          if (next.assignee_id !== row.assignee_id)
            changes.assignee = { from: row.assignee_id, to: next.assignee_id };
          if (next.labels !== row.labels) {
            changes.labels = { from: JSON.parse(row.labels) as string[], to: labels };
          }
          if (next.unread_count !== row.unread_count) {
            changes.unreadCount = { from: row.unread_count, to: next.unread_count };
          }
          if (Object.keys(changes).length > 0) {
            next.updated_at = now;
            repo.update(next);
            if (labels) repo.setLabels(next, labels);
            if (next.status === 'snoozed' && changes.snoozedUntil) {
              scheduler.enqueue(
                'conversation.wake',
                { conversationId: id, until: next.snoozed_until },
                {
                  runAt: next.snoozed_until!,
                  dedupeKey: `conversation.wake:${id}:${next.snoozed_until}`,
                },
              );
            }
            store.emitUpdated(scope, id, changes);
            if (changes.assignee && next.assignee_id !== null) {
              const to = next.assignee_id;
              deps.notify.later(
                scope,
                to,
                { kind: 'assigned', conversationId: id, by: acting.id },
                () => repo.byId(id)?.assignee_id === to,
              );
            }
          }
          if (byPerson && body.assignee !== undefined && next.assignee_id !== null) {
            automation?.handOff(scope, id, row.contact_id, 'assigned', next.assignee_id);
          }
          return repo.json(id, windowStart());
        })
        .immediate();
    },

    /**
     * A reply or a private note (README "Working together"). With `basedOnMessageId`, a newer
     * outbound message or note from someone else answers 409 `conversation_changed` (nothing is
     * sent): the check and the send commit in one transaction, so of two members replying on the
     * same basis exactly one gets through. A member's reply to an unassigned conversation takes
     * it (the workspace's `assignOnFirstReply`); a note's `@name`s are stored and notified.
     */
    reply(scope: Scope, id: string, body: ReplyBody, acting: ActingAgent = NO_AGENT) {
      const given = (['text', 'templateName', 'listId', 'mediaId'] as const).filter(
        (k) => body[k] !== undefined,
      );
      if (given.length !== 1) {
        throw new ApiError(
          'validation_error',
          'give exactly one of text, templateName (with variables), listId or mediaId',
          {
            param: given[1] ?? 'text',
          },
        );
      }
      if (body.private && body.text === undefined) {
        throw new ApiError('validation_error', 'a private note is text', { param: 'private' });
      }
      for (const k of ['caption', 'fileName'] as const) {
        if (body[k] !== undefined && body.mediaId === undefined) {
          throw new ApiError('validation_error', `${k} goes with mediaId`, { param: k });
        }
      }
      if (
        body.replyToMessageId !== undefined &&
        (body.private || body.templateName !== undefined)
      ) {
        throw new ApiError(
          'validation_error',
          'a quote goes with a text, media or list reply (not a note or a template)',
          { param: 'replyToMessageId' },
        );
      }
      return db
        .transaction(() => {
          const row = require(scope, id);
          // An agent's reply is signed by the X-Parley-Agent header (checked), else by the assignee.
          const agentId =
            body.as === 'agent' ? (acting.named ? actingId(acting) : row.assignee_id) : null;
          if (body.basedOnMessageId !== undefined) {
            checkBasis(row, body.basedOnMessageId, acting.id);
          }
          if (body.private) return note(scope, row, body.text!, agentId);
          const message = send(scope, row, body, agentId);
          // A person spoke: automation stops talking to this customer (design.md §7).
          if (body.as === 'agent') {
            automation?.handOff(scope, row.id, row.contact_id, 'agent_reply', agentId);
          }
          if (
            body.as === 'agent' &&
            agentId !== null &&
            row.assignee_id === null &&
            deps.workspaces.settings(scope.workspaceId).assignOnFirstReply
          ) {
            service.patch(scope, id, { assignee: agentId }, acting);
          }
          return message;
        })
        .immediate();
    },
  };
  return service;
}
export type ConversationsService = ReturnType<typeof conversationsService>;
