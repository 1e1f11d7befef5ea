import type { Database as Db } from 'better-sqlite3';
import type { MemberRole } from '../../../../shared/permissions.ts';

export interface MemberRow {
  id: string;
  workspace_id: string;
  name: string;
  email: string | null;
  role: MemberRole;
  /** JSON array of grants. */
  rights: string;
  password_hash: string | null;
  active: number;
  created_at: number;
  updated_at: number;
}

export interface SessionRow {
  id: string;
  token_hash: string;
  member_id: string;
  workspace_id: string;
  device: string;
  address: string;
  created_at: number;
  last_seen_at: number;
  ended_at: number | null;
  end_reason: string | null;
}

export interface InviteRow {
  id: string;
  workspace_id: string;
  token_hash: string;
  email: string;
  name: string;
  role: 'admin' | 'agent';
  rights: string;
  invited_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  revoked_at: number | null;
}

/** The workspace's members: the people work is assigned to and who sign in. */
export function membersRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO members (id, workspace_id, name, email, role, rights, password_hash, active, created_at, updated_at)
     VALUES (@id, @workspace_id, @name, @email, @role, @rights, @password_hash, @active, @created_at, @updated_at)`,
  );
  const byId = db.prepare('SELECT * FROM members WHERE workspace_id = ? AND id = ?');
  const byEmail = db.prepare('SELECT * FROM members WHERE workspace_id = ? AND email = ?');
  const withEmail = db.prepare(
    'SELECT * FROM members WHERE email = ? AND password_hash IS NOT NULL ORDER BY created_at',
  );
  const owner = db.prepare("SELECT * FROM members WHERE workspace_id = ? AND role = 'owner'");
  // The workspace (the first one when none is named) and its owner in one read: the desktop
  // window's check on every request.
  const ownerIn = db.prepare(
    `SELECT m.* FROM workspaces w JOIN members m ON m.workspace_id = w.id AND m.role = 'owner'
     WHERE w.id = coalesce(?, (SELECT id FROM workspaces ORDER BY created_at, id LIMIT 1))`,
  );
  const of = db.prepare(
    `SELECT m.*, (SELECT max(s.last_seen_at) FROM sessions s WHERE s.member_id = m.id) AS last_seen_at
     FROM members m WHERE m.workspace_id = ?
     ORDER BY m.role = 'owner' DESC, m.name COLLATE NOCASE, m.id`,
  );
  const update = db.prepare(
    `UPDATE members SET name = @name, email = @email, role = @role, rights = @rights,
       password_hash = @password_hash, active = @active, updated_at = @updated_at
     WHERE id = @id`,
  );
  return {
    insert: (r: MemberRow) => insert.run(r),
    byId: (workspaceId: string, id: string) => byId.get(workspaceId, id) as MemberRow | undefined,
    byEmail: (workspaceId: string, email: string) =>
      byEmail.get(workspaceId, email) as MemberRow | undefined,
    /** Members anywhere on this desk who may sign in with this address. */
    signInCandidates: (email: string) => withEmail.all(email) as MemberRow[],
    owner: (workspaceId: string) => owner.get(workspaceId) as MemberRow | undefined,
    ownerIn: (workspaceId: string | null) => ownerIn.get(workspaceId) as MemberRow | undefined,
    of: (workspaceId: string) =>
      of.all(workspaceId) as (MemberRow & { last_seen_at: number | null })[],
    update: (r: MemberRow) => update.run(r),
  };
}
export type MembersRepo = ReturnType<typeof membersRepo>;

export function sessionsRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO sessions (id, token_hash, member_id, workspace_id, device, address, created_at, last_seen_at)
     VALUES (@id, @token_hash, @member_id, @workspace_id, @device, @address, @created_at, @last_seen_at)`,
  );
  // The session and its member in one read: the check every cookie request makes.
  const byToken = db.prepare(
    `SELECT s.id AS session_id, s.created_at AS session_created_at,
       s.last_seen_at AS session_last_seen_at, m.*
     FROM sessions s JOIN members m ON m.id = s.member_id
     WHERE s.token_hash = ? AND s.ended_at IS NULL`,
  );
  const byId = db.prepare('SELECT * FROM sessions WHERE id = ? AND workspace_id = ?');
  const touch = db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id = ?');
  const end = db.prepare(
    'UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL',
  );
  const endMember = db.prepare(
    `UPDATE sessions SET ended_at = ?, end_reason = ? WHERE member_id = ? AND ended_at IS NULL AND id IS NOT ?
     RETURNING id`,
  );
  const open = db.prepare(
    `SELECT * FROM sessions WHERE member_id = ? AND ended_at IS NULL
       AND last_seen_at > ? AND created_at > ?
     ORDER BY last_seen_at DESC LIMIT 200`,
  );
  const seenSince = db
    .prepare(
      `SELECT COUNT(*) FROM sessions s JOIN members m ON m.id = s.member_id
       WHERE s.ended_at IS NULL AND m.active = 1 AND s.last_seen_at >= ? AND s.created_at > ?`,
    )
    .pluck();
  return {
    insert: (r: SessionRow) => insert.run(r),
    byToken: (hash: string) =>
      byToken.get(hash) as
        | (MemberRow & {
            session_id: string;
            session_created_at: number;
            session_last_seen_at: number;
          })
        | undefined,
    byId: (id: string, workspaceId: string) => byId.get(id, workspaceId) as SessionRow | undefined,
    touch: (id: string, at: number) => touch.run(at, id),
    end: (id: string, at: number, reason: string) => end.run(at, reason, id).changes > 0,
    /** Ends every open session of a member (but `except`); the ids it ended. */
    endMember: (memberId: string, at: number, reason: string, except: string | null = null) =>
      (endMember.all(at, reason, memberId, except) as { id: string }[]).map((r) => r.id),
    open: (memberId: string, idleSince: number, createdSince: number) =>
      open.all(memberId, idleSince, createdSince) as SessionRow[],
    /** Open sessions of active members seen since `since` (and younger than `createdSince`). */
    seenSince: (since: number, createdSince: number) =>
      seenSince.get(since, createdSince) as number,
  };
}
export type SessionsRepo = ReturnType<typeof sessionsRepo>;

export function invitesRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO invites (id, workspace_id, token_hash, email, name, role, rights, invited_by, created_at, expires_at)
     VALUES (@id, @workspace_id, @token_hash, @email, @name, @role, @rights, @invited_by, @created_at, @expires_at)`,
  );
  const byToken = db.prepare('SELECT * FROM invites WHERE token_hash = ?');
  const byId = db.prepare('SELECT * FROM invites WHERE workspace_id = ? AND id = ?');
  const pending = db.prepare(
    `SELECT i.*, m.name AS invited_by_name FROM invites i LEFT JOIN members m ON m.id = i.invited_by
     WHERE i.workspace_id = ? AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ?
     ORDER BY i.created_at DESC LIMIT 200`,
  );
  const accept = db.prepare(
    'UPDATE invites SET accepted_at = ? WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL',
  );
  const revoke = db.prepare(
    'UPDATE invites SET revoked_at = ? WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL',
  );
  /** A new invite for an address replaces the earlier ones still pending. */
  const supersede = db.prepare(
    `UPDATE invites SET revoked_at = ? WHERE workspace_id = ? AND email = ?
       AND accepted_at IS NULL AND revoked_at IS NULL`,
  );
  const memberName = db.prepare('SELECT name FROM members WHERE id = ?').pluck();
  return {
    insert: (r: InviteRow) => insert.run(r),
    byToken: (hash: string) => byToken.get(hash) as InviteRow | undefined,
    byId: (workspaceId: string, id: string) => byId.get(workspaceId, id) as InviteRow | undefined,
    pending: (workspaceId: string, now: number) =>
      pending.all(workspaceId, now) as (InviteRow & { invited_by_name: string | null })[],
    accept: (id: string, at: number) => accept.run(at, id).changes > 0,
    revoke: (id: string, at: number) => revoke.run(at, id).changes > 0,
    supersede: (workspaceId: string, email: string, at: number) =>
      supersede.run(at, workspaceId, email),
    memberName: (id: string | null) =>
      id === null ? null : ((memberName.get(id) as string | undefined) ?? null),
  };
}

export function loginLinksRepo(db: Db) {
  const insert = db.prepare(
    'INSERT INTO login_links (token_hash, created_at, expires_at) VALUES (?, ?, ?)',
  );
  /** Marks a live link used: true once, for the first caller only. */
  const use = db.prepare(
    'UPDATE login_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?',
  );
  return {
    insert: (hash: string, at: number, expiresAt: number) => insert.run(hash, at, expiresAt),
    use: (hash: string, at: number) => use.run(at, hash, at).changes > 0,
  };
}

/** Sign-in records past any use are kept this long after they end (then swept). */
export const ENDED_SIGN_IN_KEPT_MS = 30 * 24 * 3600 * 1000;

/**
 * Retention's sweep of sign-in records (jobs/retention.ts): sessions that ended (or expired
 * unused) 30 days ago, spent or expired one-click links after a day, and invites 30 days after
 * they were accepted, withdrawn or expired. A batch of each per run.
 */
export function signInSweeper(db: Db, now: () => number, idleMs: number, absoluteMs: number) {
  const sessions = db.prepare(
    `DELETE FROM sessions WHERE id IN (SELECT id FROM sessions
       WHERE coalesce(ended_at, min(last_seen_at + ?, created_at + ?)) < ? LIMIT ?)`,
  );
  const links = db.prepare(
    `DELETE FROM login_links WHERE token_hash IN (SELECT token_hash FROM login_links
       WHERE expires_at < ? LIMIT ?)`,
  );
  const invites = db.prepare(
    `DELETE FROM invites WHERE id IN (SELECT id FROM invites
       WHERE coalesce(accepted_at, revoked_at, expires_at) < ? LIMIT ?)`,
  );
  return (limit: number): number => {
    const t = now();
    const before = t - ENDED_SIGN_IN_KEPT_MS;
    return (
      sessions.run(idleMs, absoluteMs, before, limit).changes +
      links.run(t - 24 * 3600 * 1000, limit).changes +
      invites.run(before, limit).changes
    );
  };
}
