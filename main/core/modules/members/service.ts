/**
 * Members, invites and sessions (design.md §6, README "Security"). A member is a person of the
 * workspace: assignable, and able to sign in once they have a password. A session is a random
 * 256-bit id the browser keeps in an HttpOnly cookie; the store keeps only its SHA-256, and it
 * ends after 12 h idle or 30 days in all, on sign-out, revoke, deactivation or a password change —
 * the member's event streams close with it.
 */
import type { Database as Db } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { ApiError } from '../../../../shared/errors.ts';
import { passwordProblem } from '../../../../shared/passwords.ts';
import type { AssignableRole, Grant } from '../../../../shared/permissions.ts';
import { GRANTS } from '../../../../shared/permissions.ts';
import type { Agent } from '../../../../shared/schemas/conversations.ts';
import type {
  CreatedInvite,
  Invite,
  InvitePreview,
  Member,
  Session,
} from '../../../../shared/schemas/members.ts';
import type { Clock, IdGenerator, Random } from '../../runtime.ts';
import { iso, isoOrNull, randomBase62 } from '../../runtime.ts';
import type { AuditActor, AuditService } from '../audit/service.ts';
import { DESK_WIDE } from '../audit/service.ts';
import type { ScryptCost } from './passwords.ts';
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts';
import type { InviteRow, MemberRow, SessionRow } from './repo.ts';
import { invitesRepo, loginLinksRepo, membersRepo, sessionsRepo } from './repo.ts';
import { createSignInThrottle } from './throttle.ts';

/** Retention sweeps sign-in records with the rest (services.ts wires it). */
export { signInSweeper } from './repo.ts';

export const SESSION_IDLE_MS = 12 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
export const LOGIN_LINK_TTL_MS = 10 * 60 * 1000;
export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;
/** A session's last-seen time is written at most this often (the idle clock's precision). */
const TOUCH_EVERY_MS = 60 * 1000;

/** Who asks, as the routes know it: the acting member, their session, where from. */
export interface MemberContext {
  workspaceId: string;
  actor: AuditActor;
  memberId: string | null;
  sessionId: string | null;
  address: string | null;
}

/** Where a sign-in comes from: recorded on the session and in the audit trail. */
export interface Client {
  address: string;
  userAgent: string;
}

/** A session the cookie named, as the authenticator needs it. */
export interface ResolvedSession {
  sessionId: string;
  member: MemberRow;
  grants: Grant[];
}

export const tokenHash = (token: string): string =>
  createHash('sha256').update(token).digest('hex');

export const grantsOf = (json: string): Grant[] => {
  const parsed = JSON.parse(json) as unknown;
  return Array.isArray(parsed) ? GRANTS.filter((g) => (parsed as unknown[]).includes(g)) : [];
};

export const toMember = (r: MemberRow, lastSeenAt: number | null = null): Member => ({
  id: r.id,
  name: r.name,
  email: r.email,
  role: r.role,
  rights: r.role === 'agent' ? grantsOf(r.rights) : [],
  active: r.active === 1,
  canSignIn: r.password_hash !== null,
  createdAt: iso(r.created_at),
  lastSeenAt: isoOrNull(lastSeenAt),
});

export const toAgent = (r: MemberRow): Agent => ({
  id: r.id,
  name: r.name,
  email: r.email,
  role: r.role,
  active: r.active === 1,
  createdAt: iso(r.created_at),
});

/** "Chrome on Linux": enough to tell one's sessions apart, never the whole User-Agent. */
export function deviceLabel(userAgent: string): string {
  const ua = userAgent.slice(0, 500);
  const browser = /Electron\//.test(ua)
    ? 'Parley app'
    : /Edg\//.test(ua)
      ? 'Edge'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Chrom(e|ium)\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : /curl\//.test(ua)
              ? 'curl'
              : null;
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Mac OS X|Macintosh/.test(ua)
        ? 'macOS'
        : /Android/.test(ua)
          ? 'Android'
          : /Linux|X11/.test(ua)
            ? 'Linux'
            : null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? (ua.trim() ? ua.trim().slice(0, 60) : 'Unknown device');
}

export interface MembersDeps {
  db: Db;
  clock: Clock;
  random: Random;
  ids: IdGenerator;
  audit: AuditService;
  scrypt: ScryptCost;
  /** Closes the event streams of ended sessions (the hub's). */
  closeSessions: (sessionIds: readonly string[]) => void;
  /** Sends an invite by email when the workspace has SMTP set up; false when it cannot. */
  emailInvite: (workspaceId: string, to: string, subject: string, text: string) => boolean;
  /** The workspace's name, for invites. */
  workspaceName: (workspaceId: string) => string;
  /** The workspace a one-click link signs into: the desk's first. */
  defaultWorkspace: () => string;
}

export function membersService(d: MembersDeps) {
  const { db, clock, random, ids, audit } = d;
  const members = membersRepo(db);
  const sessions = sessionsRepo(db);
  const invites = invitesRepo(db);
  const links = loginLinksRepo(db);
  const throttle = createSignInThrottle(clock);
  let decoy: Promise<string> | null = null;

  const memberActor = (m: MemberRow): AuditActor => ({ kind: 'member', id: m.id, name: m.name });

  function require(workspaceId: string, id: string): MemberRow {
    const m = members.byId(workspaceId, id);
    if (!m) throw new ApiError('not_found', `no member ${id}`);
    return m;
  }

  function checkPassword(password: string, param = 'password'): void {
    const problem = passwordProblem(password);
    if (problem) throw new ApiError('validation_error', problem, { param });
  }

  /** Ends sessions and closes their streams (after the transaction that ended them commits). */
  function endSessions(memberId: string, reason: string, except: string | null = null): string[] {
    return sessions.endMember(memberId, clock.now(), reason, except);
  }

  /** Opens a session for a member: a fresh id every time (no fixation), only its hash kept. */
  function openSession(m: MemberRow, client: Client): { token: string; sessionId: string } {
    const token = randomBase62(random, 43);
    const now = clock.now();
    const row: SessionRow = {
      id: ids('ses'),
      token_hash: tokenHash(token),
      member_id: m.id,
      workspace_id: m.workspace_id,
      device: deviceLabel(client.userAgent),
      address: client.address,
      created_at: now,
      last_seen_at: now,
      ended_at: null,
      end_reason: null,
    };
    sessions.insert(row);
    return { token, sessionId: row.id };
  }

  const toInvite = (r: InviteRow, invitedBy: string | null): Invite => ({
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    rights: grantsOf(r.rights),
    invitedBy,
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
  });

  /** A pending invite by its token, or a 404 in words the invitee can act on. */
  function liveInvite(token: string): InviteRow {
    const r = invites.byToken(tokenHash(token));
    const ask = 'ask your admin for a new invite';
    if (!r) throw new ApiError('not_found', `This invite link is not valid: ${ask}.`);
    if (r.accepted_at !== null) {
      throw new ApiError('not_found', 'This invite was used already: sign in instead.');
    }
    if (r.revoked_at !== null)
      throw new ApiError('not_found', `This invite was withdrawn: ${ask}.`);
    if (r.expires_at <= clock.now())
      throw new ApiError('not_found', `This invite expired: ${ask}.`);
    return r;
  }

  const service = {
    // ——— members ———
    list: (workspaceId: string): Member[] =>
      members.of(workspaceId).map((r) => toMember(r, r.last_seen_at)),
    agents: (workspaceId: string): Agent[] => members.of(workspaceId).map(toAgent),
    get: (workspaceId: string, id: string): MemberRow | null =>
      members.byId(workspaceId, id) ?? null,
    /** An active member by id: who may be assigned work or named by `X-Parley-Agent`. */
    findActive(workspaceId: string, id: string): MemberRow | null {
      const m = members.byId(workspaceId, id);
      return m && m.active === 1 ? m : null;
    },
    ownerOf(workspaceId: string): MemberRow {
      const m = members.owner(workspaceId);
      if (!m) throw new ApiError('not_found', `workspace ${workspaceId} has no owner`);
      return m;
    },
    /**
     * The owner of a workspace, or of the first one when none is named (as `workspaces.resolve`
     * picks it), in one read; null when there is no such workspace or it has no owner.
     */
    ownerIn: (workspaceId?: string): MemberRow | null =>
      members.ownerIn(workspaceId || null) ?? null,

    /** `POST /agents`: a member who cannot sign in yet (assignable; invite them to sign in). */
    createAgent(ctx: MemberContext, body: { name: string; email: string }): Agent {
      const email = body.email.toLowerCase();
      return db.transaction(() => {
        if (members.byEmail(ctx.workspaceId, email)) {
          throw new ApiError('validation_error', `a member with email ${email} exists already`, {
            param: 'email',
          });
        }
        const now = clock.now();
        const row: MemberRow = {
          id: ids('agt'),
          workspace_id: ctx.workspaceId,
          name: body.name,
          email,
          role: 'agent',
          rights: '[]',
          password_hash: null,
          active: 1,
          created_at: now,
          updated_at: now,
        };
        members.insert(row);
        audit.append({
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: 'member.added',
          target: { type: 'member', id: row.id, label: row.name },
          address: ctx.address,
          details: { role: 'agent' },
        });
        return toAgent(row);
      })();
    },

    /** `PATCH /members/:id`: role, grants, name, active — never the owner, never locking yourself out. */
    update(
      ctx: MemberContext,
      id: string,
      patch: { name?: string; role?: AssignableRole; rights?: Grant[]; active?: boolean },
    ): Member {
      const ended: string[] = [];
      const member = db.transaction(() => {
        const m = require(ctx.workspaceId, id);
        if (m.role === 'owner') {
          throw new ApiError(
            'invalid_state',
            'The owner’s role and access cannot be changed; the owner edits their own name under Your account.',
          );
        }
        if (m.id === ctx.memberId && (patch.active === false || patch.role === 'agent')) {
          throw new ApiError(
            'invalid_state',
            'You cannot deactivate or demote yourself: ask another admin.',
            { param: patch.active === false ? 'active' : 'role' },
          );
        }
        const role = patch.role ?? m.role;
        const next: MemberRow = {
          ...m,
          name: patch.name ?? m.name,
          role,
          rights: role === 'agent' ? JSON.stringify(patch.rights ?? grantsOf(m.rights)) : '[]',
          active: patch.active === undefined ? m.active : patch.active ? 1 : 0,
          updated_at: clock.now(),
        };
        members.update(next);
        if (m.active === 1 && next.active === 0) ended.push(...endSessions(m.id, 'deactivated'));
        const action =
          m.active === 1 && next.active === 0
            ? 'member.deactivated'
            : m.active === 0 && next.active === 1
              ? 'member.reactivated'
              : 'member.updated';
        const details: Record<string, unknown> = {};
        if (next.role !== m.role) details.role = { from: m.role, to: next.role };
        if (next.rights !== m.rights) {
          details.rights = { from: grantsOf(m.rights), to: grantsOf(next.rights) };
        }
        if (next.name !== m.name) details.name = { from: m.name, to: next.name };
        audit.append({
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action,
          target: { type: 'member', id: m.id, label: next.name },
          address: ctx.address,
          details,
        });
        return toMember(next);
      })();
      d.closeSessions(ended);
      return member;
    },

    /** `PATCH /api/me`: one's own name and sign-in address. */
    updateMe(ctx: MemberContext, patch: { name?: string; email?: string }): Member {
      if (!ctx.memberId) throw new ApiError('forbidden', 'Only a member has an account to edit.');
      return db.transaction(() => {
        const m = require(ctx.workspaceId, ctx.memberId!);
        const email = patch.email?.toLowerCase();
        if (email !== undefined && email !== m.email) {
          const other = members.byEmail(ctx.workspaceId, email);
          if (other) {
            throw new ApiError('validation_error', `another member uses ${email}`, {
              param: 'email',
            });
          }
        }
        const next: MemberRow = {
          ...m,
          name: patch.name ?? m.name,
          email: email ?? m.email,
          updated_at: clock.now(),
        };
        members.update(next);
        audit.append({
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: 'member.updated',
          target: { type: 'member', id: m.id, label: next.name },
          address: ctx.address,
          details: { fields: Object.keys(patch) },
        });
        return toMember(next);
      })();
    },

    /**
     * `POST /api/me/password`: every session of the member ends (and its streams close); a
     * browser session that asked gets a new one, so the page that changed it stays signed in.
     */
    async changePassword(
      ctx: MemberContext,
      body: { currentPassword?: string | undefined; password: string },
      client: Client,
    ): Promise<{ token: string | null }> {
      if (!ctx.memberId) throw new ApiError('forbidden', 'Only a member has a password.');
      checkPassword(body.password);
      const before = require(ctx.workspaceId, ctx.memberId);
      if (before.password_hash !== null) {
        const ok =
          body.currentPassword !== undefined &&
          (await verifyPassword(body.currentPassword, before.password_hash));
        if (!ok) {
          throw new ApiError('invalid_credentials', 'The current password is not right.', {
            param: 'currentPassword',
          });
        }
      }
      if (before.email === null) {
        throw new ApiError(
          'validation_error',
          'Set your email address first: it is how you sign in.',
          {
            param: 'email',
          },
        );
      }
      const hash = await hashPassword(body.password, d.scrypt);
      let ended: string[] = [];
      const result = db.transaction(() => {
        const m = require(ctx.workspaceId, ctx.memberId!);
        members.update({ ...m, password_hash: hash, updated_at: clock.now() });
        ended = endSessions(m.id, 'password_changed');
        audit.append({
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: 'member.password_changed',
          target: { type: 'member', id: m.id, label: m.name },
          address: ctx.address,
        });
        return ctx.sessionId ? openSession(m, client).token : null;
      })();
      d.closeSessions(ended);
      return { token: result };
    },

    // ——— invites ———
    pendingInvites: (workspaceId: string): Invite[] =>
      invites.pending(workspaceId, clock.now()).map((r) => toInvite(r, r.invited_by_name)),

    invite(
      ctx: MemberContext,
      body: { email: string; name: string; role: AssignableRole; rights?: Grant[] | undefined },
      baseUrl: string,
      /** The shared desk's certificate fingerprint, which the link carries for the joiner to pin. */
      pin: string | null = null,
    ): CreatedInvite {
      const email = body.email.toLowerCase();
      const token = randomBase62(random, 43);
      const now = clock.now();
      const row = db.transaction(() => {
        const existing = members.byEmail(ctx.workspaceId, email);
        if (existing && existing.password_hash !== null && existing.active === 1) {
          throw new ApiError('invalid_state', `${email} is a member already and can sign in.`, {
            param: 'email',
          });
        }
        if (existing?.role === 'owner') {
          throw new ApiError('invalid_state', `${email} is the owner’s address.`, {
            param: 'email',
          });
        }
        invites.supersede(ctx.workspaceId, email, now);
        const r: InviteRow = {
          id: ids('inv'),
          workspace_id: ctx.workspaceId,
          token_hash: tokenHash(token),
          email,
          name: body.name,
          role: body.role,
          rights: JSON.stringify(body.role === 'agent' ? (body.rights ?? []) : []),
          invited_by: ctx.memberId,
          created_at: now,
          expires_at: now + INVITE_TTL_MS,
          accepted_at: null,
          revoked_at: null,
        };
        invites.insert(r);
        audit.append({
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: 'member.invited',
          target: { type: 'invite', id: r.id, label: email },
          address: ctx.address,
          details: { role: r.role, rights: grantsOf(r.rights) },
        });
        return r;
      })();
      const inviteUrl = `${baseUrl.replace(/\/+$/, '')}/join#token=${token}${pin ? `&fp=${pin}` : ''}`;
      const by = ctx.actor.name ?? 'Your admin';
      const workspace = d.workspaceName(ctx.workspaceId);
      let emailed: boolean;
      try {
        emailed = d.emailInvite(
          ctx.workspaceId,
          email,
          `${by} invited you to ${workspace} on Parley`,
          `Hello ${body.name},\n\n${by} invited you to join ${workspace} on Parley as ${body.role === 'admin' ? 'an admin' : 'an agent'}.\n\nOpen this link to choose your password (it works once, for 7 days):\n${inviteUrl}\n`,
        );
      } catch {
        emailed = false;
      }
      return {
        invite: toInvite(row, ctx.actor.kind === 'member' ? ctx.actor.name : null),
        inviteUrl,
        expiresAt: iso(row.expires_at),
        emailed,
      };
    },

    revokeInvite(ctx: MemberContext, id: string): void {
      db.transaction(() => {
        const r = invites.byId(ctx.workspaceId, id);
        if (!r) throw new ApiError('not_found', `no invite ${id}`);
        if (!invites.revoke(id, clock.now())) {
          throw new ApiError('invalid_state', 'This invite was used or withdrawn already.');
        }
        audit.append({
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action: 'member.invite_revoked',
          target: { type: 'invite', id, label: r.email },
          address: ctx.address,
        });
      })();
    },

    previewInvite(token: string): InvitePreview {
      const r = liveInvite(token);
      return {
        workspace: d.workspaceName(r.workspace_id),
        email: r.email,
        name: r.name,
        role: r.role,
        invitedBy: invites.memberName(r.invited_by),
        expiresAt: iso(r.expires_at),
      };
    },

    /** `POST /invites/accept`: the invitee becomes a member (or an agent record gains sign-in). */
    async acceptInvite(
      body: { token: string; name: string; password: string },
      client: Client,
    ): Promise<{ member: Member; token: string; sessionId: string }> {
      liveInvite(body.token);
      checkPassword(body.password);
      const hash = await hashPassword(body.password, d.scrypt);
      return db.transaction(() => {
        // Checked again inside the transaction: two accepts of one link, one member.
        const r = liveInvite(body.token);
        if (!invites.accept(r.id, clock.now())) {
          throw new ApiError('not_found', 'This invite was used already: sign in instead.');
        }
        const now = clock.now();
        const existing = members.byEmail(r.workspace_id, r.email);
        let m: MemberRow;
        if (existing) {
          if (existing.password_hash !== null && existing.active === 1) {
            throw new ApiError('invalid_state', `${r.email} is a member already: sign in instead.`);
          }
          // The owner took this address after the invite was sent: an invite never changes
          // the owner (their role, their password).
          if (existing.role === 'owner') {
            throw new ApiError('invalid_state', `${r.email} is the owner’s address.`);
          }
          m = {
            ...existing,
            name: body.name,
            role: r.role,
            rights: r.rights,
            password_hash: hash,
            active: 1,
            updated_at: now,
          };
          members.update(m);
        } else {
          m = {
            id: ids('agt'),
            workspace_id: r.workspace_id,
            name: body.name,
            email: r.email,
            role: r.role,
            rights: r.rights,
            password_hash: hash,
            active: 1,
            created_at: now,
            updated_at: now,
          };
          members.insert(m);
        }
        const session = openSession(m, client);
        audit.append({
          workspaceId: r.workspace_id,
          actor: memberActor(m),
          action: 'member.joined',
          target: { type: 'member', id: m.id, label: m.name },
          address: client.address,
          details: { role: m.role, invite: r.id },
        });
        return { member: toMember(m, now), ...session };
      })();
    },

    // ——— sign-in and sessions ———
    /**
     * `POST /login`: throttled per address and per account (from the 5th failure on, a wait
     * that doubles), one generic refusal whatever was wrong, every attempt audited.
     */
    async signIn(
      body: { email: string; password: string; workspaceId?: string | undefined },
      client: Client,
    ): Promise<{ token: string; sessionId: string; member: MemberRow }> {
      const email = body.email.toLowerCase();
      throttle.check([`address:${client.address}`, `account:${email}`]);
      const candidates = members
        .signInCandidates(email)
        .filter((m) => !body.workspaceId || m.workspace_id === body.workspaceId);
      let found: MemberRow | null = null;
      for (const m of candidates.slice(0, 5)) {
        if (await verifyPassword(body.password, m.password_hash!)) {
          found = m;
          break;
        }
      }
      if (candidates.length === 0) {
        // As slow as a real check, so the answer's time does not tell which addresses exist.
        decoy ??= decoyHash(d.scrypt);
        await verifyPassword(body.password, await decoy);
      }
      if (!found || found.active !== 1) {
        throttle.fail([`address:${client.address}`, `account:${email}`]);
        audit.append({
          workspaceId: found?.workspace_id ?? candidates[0]?.workspace_id ?? DESK_WIDE,
          actor: found ? memberActor(found) : { kind: 'anonymous', id: null, name: email },
          action: 'session.sign_in_failed',
          target: null,
          address: client.address,
          details: { email, reason: found ? 'deactivated' : 'wrong email or password' },
        });
        throw new ApiError('invalid_credentials');
      }
      throttle.succeed([`account:${email}`]);
      const m = found;
      const session = db.transaction(() => {
        const s = openSession(m, client);
        audit.append({
          workspaceId: m.workspace_id,
          actor: memberActor(m),
          action: 'session.sign_in',
          target: { type: 'session', id: s.sessionId, label: deviceLabel(client.userAgent) },
          address: client.address,
          details: { method: 'password' },
        });
        return s;
      })();
      return { ...session, member: m };
    },

    /** `parley login-url` and `parley serve`: a fresh one-click link, single use, 10 minutes. */
    mintLoginLink(): string {
      const token = randomBase62(random, 43);
      const now = clock.now();
      links.insert(tokenHash(token), now, now + LOGIN_LINK_TTL_MS);
      return token;
    },

    /** Exchanges a one-click link for an ordinary session of the desk's owner; null when spent. */
    useLoginLink(token: string, client: Client): { token: string; sessionId: string } | null {
      return db.transaction(() => {
        if (!links.use(tokenHash(token), clock.now())) return null;
        const owner = service.ownerOf(d.defaultWorkspace());
        const s = openSession(owner, client);
        audit.append({
          workspaceId: owner.workspace_id,
          actor: memberActor(owner),
          action: 'session.sign_in',
          target: { type: 'session', id: s.sessionId, label: deviceLabel(client.userAgent) },
          address: client.address,
          details: { method: 'link' },
        });
        return s;
      })();
    },

    /**
     * The session a cookie names, or null: unknown, ended, idle 12 h, older than 30 days, or its
     * member deactivated. One indexed read; last-seen is written at most once a minute.
     */
    resolveSession(token: string): ResolvedSession | null {
      const row = sessions.byToken(tokenHash(token));
      if (!row) return null;
      const {
        session_id: id,
        session_created_at: createdAt,
        session_last_seen_at: seenAt,
        ...member
      } = row;
      const now = clock.now();
      const expired = now - seenAt >= SESSION_IDLE_MS || now - createdAt >= SESSION_ABSOLUTE_MS;
      if (expired || member.active !== 1) {
        sessions.end(id, now, expired ? 'expired' : 'deactivated');
        d.closeSessions([id]);
        return null;
      }
      if (now - seenAt >= TOUCH_EVERY_MS) sessions.touch(id, now);
      return { sessionId: id, member, grants: grantsOf(member.rights) };
    },

    /** `GET /sessions`: one's own open sessions, or (admins) another member's. */
    sessions(ctx: MemberContext, memberId: string): Session[] {
      require(ctx.workspaceId, memberId);
      const now = clock.now();
      return sessions.open(memberId, now - SESSION_IDLE_MS, now - SESSION_ABSOLUTE_MS).map((s) => ({
        id: s.id,
        memberId: s.member_id,
        device: s.device,
        address: s.address,
        createdAt: iso(s.created_at),
        lastSeenAt: iso(s.last_seen_at),
        expiresAt: iso(
          Math.min(s.last_seen_at + SESSION_IDLE_MS, s.created_at + SESSION_ABSOLUTE_MS),
        ),
        current: s.id === ctx.sessionId,
      }));
    },

    /** Open sessions seen since `since` on the whole desk (`parley team status`: who is online). */
    sessionsSeenSince: (since: number): number =>
      sessions.seenSince(since, clock.now() - SESSION_ABSOLUTE_MS),

    /** Which member a session belongs to (for the route's own-or-admin check), or a 404. */
    sessionOwner(workspaceId: string, sessionId: string): string {
      const s = sessions.byId(sessionId, workspaceId);
      if (!s || s.ended_at !== null)
        throw new ApiError('not_found', `no open session ${sessionId}`);
      return s.member_id;
    },

    /** Ends one session (revoke, or sign-out when it is the caller's own); its streams close. */
    endSession(
      ctx: MemberContext,
      sessionId: string,
      action: 'session.revoked' | 'session.sign_out',
    ) {
      const ended = db.transaction(() => {
        const s = sessions.byId(sessionId, ctx.workspaceId);
        if (
          !s ||
          !sessions.end(
            sessionId,
            clock.now(),
            action === 'session.sign_out' ? 'signed_out' : 'revoked',
          )
        ) {
          throw new ApiError('not_found', `no open session ${sessionId}`);
        }
        audit.append({
          workspaceId: ctx.workspaceId,
          actor: ctx.actor,
          action,
          target: { type: 'session', id: s.id, label: s.device },
          address: ctx.address,
          details: { member: s.member_id },
        });
        return s.id;
      })();
      d.closeSessions([ended]);
    },
  };
  return service;
}
export type MembersService = ReturnType<typeof membersService>;
