/**
 * Who works which conversation (design.md §6 "Working together"): auto-assignment, capacities,
 * the admin's view of the team and "reassign all".
 *
 * - **Auto-assignment** (workspace setting `autoAssign`, off by default): a customer's message
 *   to an unassigned conversation — a new one, one it reopens, one a campaign started — gives it
 *   to the next online agent under capacity, in turn (round-robin; the turn order is kept on the
 *   members, so it survives restarts). Only members with the role `agent` take turns; owners and
 *   admins get work by hand, by replying, or by reassignment. Nobody online with room: it stays
 *   unassigned (the next message tries again).
 * - **Capacity**: the open conversations an agent holds in the conversation's environment
 *   (status `open`; pending and snoozed ones aside), 10 by default, 0 for none.
 * - **Assign on first reply** lives with the reply (conversations/service.ts).
 */
import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import type { ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type { ReassignResult, TeamAgent } from '../../../../shared/schemas/together.ts';
import type { ActingAgent, Scope } from '../../runtime.ts';
import type { AuditActor, AuditService } from '../audit/service.ts';
import type { ConversationsService } from '../conversations/service.ts';
import type { MembersService } from '../members/service.ts';
import type { PresenceService } from '../presence/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { TeamRow } from './repo.ts';
import { assignmentRepo } from './repo.ts';

/** Who asks for a change, as the audit trail records them. */
export interface AssignmentContext {
  actor: AuditActor;
  /** The member the caller acts as (their reassignments notify in their name). */
  acting: ActingAgent;
  address: string | null;
}

export function assignmentService(d: {
  db: Db;
  conversations: Pick<ConversationsService, 'find' | 'patch'>;
  presence: Pick<PresenceService, 'online' | 'statusOf'>;
  workspaces: Pick<WorkspacesService, 'settings'>;
  members: Pick<MembersService, 'findActive'>;
  audit: Pick<AuditService, 'append'>;
}) {
  const { db } = d;
  const repo = assignmentRepo(db);

  const toTeamAgent = (r: TeamRow): TeamAgent => ({
    id: r.id,
    name: r.name,
    email: r.email,
    role: r.role,
    active: r.active === 1,
    status: r.active === 1 ? d.presence.statusOf(r.id) : 'offline',
    capacity: r.capacity,
    autoAssignable: r.role === 'agent' && r.active === 1 && r.capacity > 0,
    conversations: { open: r.open, pending: r.pending, snoozed: r.snoozed },
  });

  function member(scope: Scope, id: string): TeamRow {
    const row = repo.team(scope, id)[0];
    if (!row) throw new ApiError('not_found', `no member ${id}`);
    return row;
  }

  /**
   * The agent whose turn it is among those online with room, sent to the back of the turn
   * order; null when nobody online has room. `except`: a member to pass over.
   */
  function nextAgent(scope: Scope, except: string | null = null): string | null {
    const online = d.presence.online(scope.workspaceId);
    if (online.size === 0) return null;
    for (const c of repo.candidates(scope)) {
      if (c.id === except || !online.has(c.id) || c.open >= c.capacity) continue;
      repo.takeTurn(scope.workspaceId, c.id);
      return c.id;
    }
    return null;
  }

  return {
    nextAgent,

    /**
     * A customer's message arrived (messages' inbound listener, in its transaction): with
     * auto-assignment on, an unassigned conversation goes to the next agent in turn.
     */
    onInbound(
      scope: Scope,
      _contactId: string,
      _reply: { text: string; listReply?: ListReply },
      conversationId: string,
    ): void {
      if (!d.workspaces.settings(scope.workspaceId).autoAssign) return;
      const row = d.conversations.find(scope, conversationId);
      if (row.assignee_id !== null || row.status === 'resolved' || row.status === 'snoozed') return;
      const to = nextAgent(scope);
      if (to !== null) d.conversations.patch(scope, row.id, { assignee: to });
    },

    /** `GET /api/team/agents`: every member, with presence, workload and capacity. */
    team: (scope: Scope): TeamAgent[] => repo.team(scope).map(toTeamAgent),

    /** `PATCH /api/team/agents/:id`: an agent's capacity, in the audit trail. */
    setCapacity(scope: Scope, ctx: AssignmentContext, id: string, capacity: number): TeamAgent {
      return db.transaction(() => {
        const before = member(scope, id);
        repo.setCapacity(scope.workspaceId, id, capacity);
        if (before.capacity !== capacity) {
          d.audit.append({
            workspaceId: scope.workspaceId,
            actor: ctx.actor,
            action: 'member.capacity_changed',
            target: { type: 'member', id, label: before.name },
            address: ctx.address,
            details: { capacity: { from: before.capacity, to: capacity } },
          });
        }
        return toTeamAgent(member(scope, id));
      })();
    },

    /**
     * `POST /api/members/:id/reassign`: every unresolved conversation of the member in this
     * environment goes to `to` (a member, `unassigned`, or `round_robin`: online agents with
     * room, in turn, the rest unassigned). One transaction; a `conversation.updated` per
     * conversation and a notification to each new assignee; one audit entry.
     */
    reassignAll(
      scope: Scope,
      ctx: AssignmentContext,
      memberId: string,
      to: string,
    ): ReassignResult {
      return db
        .transaction(() => {
          const from = member(scope, memberId);
          let target: string | null = null;
          if (to !== 'unassigned' && to !== 'round_robin') {
            if (to === memberId) {
              throw new ApiError(
                'validation_error',
                'give another member than the one whose conversations move',
                {
                  param: 'to',
                },
              );
            }
            const m = d.members.findActive(scope.workspaceId, to);
            if (!m) {
              throw new ApiError('validation_error', `no active member ${to} in this workspace`, {
                param: 'to',
              });
            }
            target = m.id;
          }
          const moved: ReassignResult['conversations'] = [];
          for (const id of repo.unresolved(scope, memberId)) {
            const assignee = to === 'round_robin' ? nextAgent(scope, memberId) : target;
            d.conversations.patch(scope, id, { assignee }, ctx.acting);
            moved.push({ id, assignee });
          }
          const unassigned = moved.filter((c) => c.assignee === null).length;
          d.audit.append({
            workspaceId: scope.workspaceId,
            actor: ctx.actor,
            action: 'conversations.reassigned',
            target: { type: 'member', id: memberId, label: from.name },
            address: ctx.address,
            details: { environment: scope.environment, to, moved: moved.length, unassigned },
          });
          return { moved: moved.length, unassigned, conversations: moved };
        })
        .immediate();
    },
  };
}
export type AssignmentService = ReturnType<typeof assignmentService>;
