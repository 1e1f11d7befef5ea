import type { Database as Db } from 'better-sqlite3';
import type { MemberRole } from '../../../../shared/permissions.ts';
import type { Scope } from '../../runtime.ts';

/** An agent who takes turns in auto-assignment, with their open conversations in a scope. */
export interface CandidateRow {
  id: string;
  capacity: number;
  open: number;
}

/** A member as the team view shows them: capacity and assigned conversations per status. */
export interface TeamRow {
  id: string;
  name: string;
  email: string | null;
  role: MemberRole;
  active: number;
  capacity: number;
  open: number;
  pending: number;
  snoozed: number;
}

const COUNT = (status: string) =>
  `coalesce((SELECT c.n FROM conversation_counts c WHERE c.workspace_id = m.workspace_id
     AND c.environment = @environment AND c.assignee_key = m.id AND c.status = '${status}'), 0)`;

/**
 * Assignment's reads and writes (design.md §6): the round-robin's turns and capacities on
 * `members`, the counts per assignee the inbox keeps (`conversation_counts`, by triggers), and a
 * member's unresolved conversations for "reassign all".
 */
export function assignmentRepo(db: Db) {
  // Agents only take turns (owners and admins get work by hand, by replying, or by reassignment).
  const candidates = db.prepare(
    `SELECT m.id, m.capacity, ${COUNT('open')} AS open FROM members m
     WHERE m.workspace_id = @workspaceId AND m.role = 'agent' AND m.active = 1 AND m.capacity > 0
     ORDER BY m.assign_turn, m.id`,
  );
  const takeTurn = db.prepare(
    `UPDATE members SET assign_turn = 1 + (SELECT max(assign_turn) FROM members WHERE workspace_id = ?)
     WHERE id = ?`,
  );
  const team = db.prepare(
    `SELECT m.id, m.name, m.email, m.role, m.active, m.capacity,
       ${COUNT('open')} AS open, ${COUNT('pending')} AS pending, ${COUNT('snoozed')} AS snoozed
     FROM members m WHERE m.workspace_id = @workspaceId AND (@id IS NULL OR m.id = @id)
     ORDER BY m.role = 'owner' DESC, m.name COLLATE NOCASE, m.id`,
  );
  const setCapacity = db.prepare(
    'UPDATE members SET capacity = ? WHERE workspace_id = ? AND id = ?',
  );
  const unresolved = db
    .prepare(
      `SELECT id FROM conversations WHERE workspace_id = ? AND environment = ? AND assignee_id = ?
         AND status != 'resolved'
       ORDER BY last_message_at, id`,
    )
    .pluck();
  return {
    candidates: (scope: Scope) =>
      candidates.all({
        workspaceId: scope.workspaceId,
        environment: scope.environment,
      }) as CandidateRow[],
    /** The member goes to the back of the round-robin. */
    takeTurn: (workspaceId: string, memberId: string) => takeTurn.run(workspaceId, memberId),
    team: (scope: Scope, id: string | null = null) =>
      team.all({ workspaceId: scope.workspaceId, environment: scope.environment, id }) as TeamRow[],
    setCapacity: (workspaceId: string, id: string, capacity: number) =>
      setCapacity.run(capacity, workspaceId, id).changes > 0,
    /** A member's open, pending and snoozed conversations in a scope, oldest activity first. */
    unresolved: (scope: Scope, memberId: string) =>
      unresolved.all(scope.workspaceId, scope.environment, memberId) as string[],
  };
}
export type AssignmentRepo = ReturnType<typeof assignmentRepo>;
