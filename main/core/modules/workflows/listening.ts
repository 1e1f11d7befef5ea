/**
 * Workflows that listen (design.md §7): a customer's message (`message_received`, with keywords,
 * first message only, outside business hours), a pick from a list (`list_reply`) and a
 * conversation resolved or reopened (`conversation_status`) start runs — inside the transaction
 * that stored the message or the change, so a run starts exactly once per message (and a
 * run's `trigger_message_id` is unique per workflow besides).
 *
 * Cheap on the inbound path: each scope's active listening workflows are read once and compiled
 * (keyword matchers built once) into a cache, cleared when a workflow is written here or another
 * process commits. A message that matches no workflow costs no SQL; one that matches reads the
 * conversation's last human activity and the contact's active runs, once each.
 */
import type { Database as Db } from 'better-sqlite3';
import type {
  KeywordMatch,
  WorkflowDefinition,
  WorkflowTrigger,
} from '../../../../shared/workflow-rules.ts';
import { normalizeText } from '../../../../shared/workflow-rules.ts';
import type { KeywordTest } from '../../../../shared/workflow-triggers.ts';
import { keywordMatcher } from '../../../../shared/workflow-triggers.ts';
import { readCache } from '../../db/read-cache.ts';
import type { Clock, Scope } from '../../runtime.ts';
import type { ContactsService } from '../contacts/service.ts';
import type { BusinessHoursService } from '../business-hours/service.ts';
import type { InboundFacts } from '../messages/model.ts';
import type { InboundReply, WorkflowEngine } from './engine.ts';
import type { ListeningRow, WorkflowsRepo } from './repo.ts';

/** A person's reply or take-over keeps `message_received` (and `list_reply`) runs away this long. */
export const HUMAN_QUIET_MS = 24 * 3600_000;

/** An active listening workflow, compiled. */
interface Listener {
  workflow: Pick<ListeningRow, 'id' | 'version' | 'workspace_id' | 'environment'>;
  trigger: WorkflowTrigger;
  /** message_received: the keywords' test (on the normalized text). */
  keywords?: KeywordTest;
}

interface Compiled {
  onMessage: Listener[];
  onListReply: Map<string, Listener[]>;
  onStatus: Map<string, Listener[]>;
}

export function listeningTriggers(d: {
  db: Db;
  clock: Clock;
  repo: WorkflowsRepo;
  engine: WorkflowEngine;
  contacts: Pick<ContactsService, 'find'>;
  businessHours: Pick<BusinessHoursService, 'isOpen'>;
  conversationContact: (scope: Scope, conversationId: string) => string;
}) {
  const { repo } = d;
  const cache = readCache<string, Compiled>(d.db);

  function compile(scope: Scope): Compiled {
    const out: Compiled = { onMessage: [], onListReply: new Map(), onStatus: new Map() };
    for (const row of repo.listening(scope)) {
      const def = JSON.parse(row.definition) as WorkflowDefinition;
      const trigger = def.trigger;
      const workflow = {
        id: row.id,
        version: row.version,
        workspace_id: row.workspace_id,
        environment: row.environment,
      };
      const add = (map: Map<string, Listener[]>, key: string, l: Listener) =>
        map.set(key, [...(map.get(key) ?? []), l]);
      if (trigger.type === 'message_received') {
        out.onMessage.push({
          workflow,
          trigger,
          keywords: keywordMatcher(trigger.keywords, trigger.match as KeywordMatch | undefined),
        });
      } else if (trigger.type === 'list_reply') {
        add(out.onListReply, trigger.listId, { workflow, trigger });
      } else if (trigger.type === 'conversation_status') {
        add(out.onStatus, trigger.to, { workflow, trigger });
      }
    }
    return out;
  }

  const compiled = (scope: Scope) =>
    cache.get(`${scope.workspaceId}:${scope.environment}`, () => compile(scope));

  /** Starts a run of each listener the contact is not already in. */
  function start(
    scope: Scope,
    contactId: string,
    listeners: Listener[],
    payload: Record<string, unknown>,
    trigger: { type: WorkflowTrigger['type']; messageId?: string },
    reply: InboundReply | null,
  ): string[] {
    const active = new Set(repo.contactActiveWorkflows(contactId));
    const fresh = listeners.filter((l) => !active.has(l.workflow.id));
    if (fresh.length === 0) return [];
    const contact = d.contacts.find(scope, contactId)!;
    return fresh.map((l) => d.engine.startRun(l.workflow, contact, payload, trigger, reply).id);
  }

  return {
    /** A workflow (or what a trigger reads) was written by this process. */
    changed: () => cache.changed(),

    /**
     * A customer's message was stored (its transaction): the `message_received` and
     * `list_reply` workflows it matches start, unless a person spoke in the conversation in
     * the last 24 h or the contact is in a run of that workflow already.
     */
    onMessage(
      scope: Scope,
      contactId: string,
      reply: InboundReply,
      conversationId: string,
      facts: InboundFacts,
    ): string[] {
      const c = compiled(scope);
      if (c.onMessage.length === 0 && c.onListReply.size === 0) return [];
      let normalized: string | null = null;
      let open: boolean | null = null;
      const matched: Listener[] = [];
      for (const l of c.onMessage) {
        const t = l.trigger as Extract<WorkflowTrigger, { type: 'message_received' }>;
        if (t.firstMessageOnly && !facts.firstInbound) continue;
        if (!l.keywords!((normalized ??= normalizeText(reply.text)))) continue;
        if (t.outsideHours && (open ??= d.businessHours.isOpen(scope.workspaceId, facts.at))) {
          continue;
        }
        matched.push(l);
      }
      const picked = reply.listReply ? (c.onListReply.get(reply.listReply.listId) ?? []) : [];
      if (matched.length === 0 && picked.length === 0) return [];
      const human = repo.humanAt(conversationId);
      if (human !== undefined && d.clock.now() - human < HUMAN_QUIET_MS) return [];
      const payload = {
        messageId: facts.messageId,
        conversationId,
        text: reply.text,
        ...(reply.listReply ? { listReply: reply.listReply } : {}),
      };
      return [
        ...start(
          scope,
          contactId,
          matched,
          payload,
          { type: 'message_received', messageId: facts.messageId },
          reply,
        ),
        ...start(
          scope,
          contactId,
          picked,
          payload,
          { type: 'list_reply', messageId: facts.messageId },
          reply,
        ),
      ];
    },

    /** A conversation was resolved or (re)opened (its transaction): those workflows start. */
    onStatus(scope: Scope, conversationId: string, from: string, to: string): string[] {
      const listeners = compiled(scope).onStatus.get(to);
      if (!listeners?.length) return [];
      const contactId = d.conversationContact(scope, conversationId);
      return start(
        scope,
        contactId,
        listeners,
        { conversationId, from, to },
        { type: 'conversation_status' },
        null,
      );
    },
  };
}
export type ListeningTriggers = ReturnType<typeof listeningTriggers>;
