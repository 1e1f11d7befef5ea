import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../../shared/errors.ts';
import { idParams, page } from '../../../../shared/schemas/common.ts';
import { agentSchema, createAgentBody } from '../../../../shared/schemas/conversations.ts';
import {
  acceptInviteBody,
  changePasswordBody,
  createdInviteSchema,
  invitePreviewSchema,
  inviteBody,
  inviteSchema,
  inviteTokenBody,
  loginBody,
  memberSchema,
  sessionSchema,
  sessionsQuery,
  updateMeBody,
  updateMemberBody,
} from '../../../../shared/schemas/members.ts';
import { can } from '../../../../shared/permissions.ts';
import type { Principal } from '../../http/auth.ts';
import { clearSessionCookie, clientOf, setSessionCookie, uiBaseUrl } from '../../http/session.ts';
import type { RegisterRoutes, ZodApp } from '../../http/types.ts';
import type { Services } from '../../services.ts';
import type { AuditActor } from '../audit/service.ts';
import type { MemberContext } from './service.ts';

const tags = ['Members'];

/** Who did it, as the audit trail names them. */
export function actorOf(p: Principal): AuditActor {
  if (p.kind === 'api_key') return { kind: 'api_key', id: p.keyId, name: p.keyPrefix };
  return { kind: 'member', id: p.member?.id ?? null, name: p.member?.name ?? null };
}

export const contextOf = (req: FastifyRequest): MemberContext => ({
  workspaceId: req.principal.workspaceId,
  actor: actorOf(req.principal),
  memberId: req.principal.member?.id ?? null,
  sessionId: req.principal.sessionId,
  address: req.ip,
});

/**
 * The base URL of an invite link: the one the caller reached us by (the guard has checked the
 * Host is ours), moved to the UI's own host name on loopback (session.ts), where the invitee's
 * cookie will reach no other local server.
 */
const baseUrlOf = (req: FastifyRequest): string =>
  uiBaseUrl(`${req.protocol}://${req.headers.host ?? '127.0.0.1'}`);

/** Where a shared desk's invite links point and the fingerprint they pin (modules/team). */
export type TeamInviteOrigin = () => { baseUrl: string; fingerprint: string } | null;

/**
 * Members, invites and sessions: admins manage members; every member their own sessions. While
 * the desk is shared on the network, invite links point at its team address and carry the
 * certificate's fingerprint (`…/join#token=…&fp=sha256:…`, design.md §6), wherever the admin
 * invited from; otherwise at the address the admin uses.
 */
export const membersRoutes =
  (teamOrigin: TeamInviteOrigin): RegisterRoutes =>
  (app, services) =>
    registerMembersRoutes(app, services, teamOrigin);

function registerMembersRoutes(
  app: ZodApp,
  { members }: Services,
  teamOrigin: TeamInviteOrigin,
): void {
  app.get(
    '/agents',
    {
      config: { right: 'inbox' },
      schema: {
        operationId: 'listAgents',
        tags: ['Conversations'],
        summary: 'The workspace’s members, as the assignee list (active ones are assignable)',
        response: { 200: z.object({ data: z.array(agentSchema), nextCursor: z.null() }) },
      },
    },
    async (req) => ({ data: members.agents(req.principal.workspaceId), nextCursor: null }),
  );

  app.post(
    '/agents',
    {
      config: { right: 'members' },
      schema: {
        operationId: 'createAgent',
        tags: ['Conversations'],
        summary: 'Add an agent who cannot sign in yet (assignable; invite them to sign in)',
        body: createAgentBody,
        response: { 201: agentSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return members.createAgent(contextOf(req), req.body);
    },
  );

  app.get(
    '/members',
    {
      config: { right: 'members' },
      schema: {
        operationId: 'listMembers',
        tags,
        summary: 'The workspace’s members (owner first, then by name; deactivated ones included)',
        response: { 200: page(memberSchema) },
      },
    },
    async (req) => ({ data: members.list(req.principal.workspaceId), nextCursor: null }),
  );

  app.patch(
    '/members/:id',
    {
      config: { right: 'members', docs: { errors: ['invalid_state'] } },
      schema: {
        operationId: 'updateMember',
        tags,
        summary: 'Change a member’s name, role, extra rights, or deactivate / reactivate them',
        description:
          'Deactivating a member ends their sessions and closes their event streams at once. The owner cannot be changed here, and nobody deactivates or demotes themselves (409 `invalid_state`).',
        params: idParams,
        body: updateMemberBody,
        response: { 200: memberSchema },
      },
    },
    async (req) => members.update(contextOf(req), req.params.id, req.body),
  );

  app.get(
    '/members/invites',
    {
      config: { right: 'members' },
      schema: {
        operationId: 'listInvites',
        tags,
        summary: 'Invites not yet accepted, withdrawn or expired',
        response: { 200: page(inviteSchema) },
      },
    },
    async (req) => ({ data: members.pendingInvites(req.principal.workspaceId), nextCursor: null }),
  );

  app.post(
    '/members/invites',
    {
      config: { right: 'members', docs: { errors: ['invalid_state'] } },
      schema: {
        operationId: 'inviteMember',
        tags,
        summary: 'Invite a member: a one-use link valid 7 days (emailed when SMTP is set up)',
        description:
          'The link is in the answer only (it is stored hashed): hand it over, or rely on the email when `emailed` is true. A new invite to the same address withdraws the earlier one.',
        body: inviteBody,
        response: { 201: createdInviteSchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      const team = teamOrigin();
      return team
        ? members.invite(contextOf(req), req.body, team.baseUrl, team.fingerprint)
        : members.invite(contextOf(req), req.body, baseUrlOf(req));
    },
  );

  app.delete(
    '/members/invites/:id',
    {
      config: { right: 'members', docs: { errors: ['invalid_state'] } },
      schema: {
        operationId: 'revokeInvite',
        tags,
        summary: 'Withdraw an invite',
        params: idParams,
        response: { 204: z.null() },
      },
    },
    async (req, reply) => {
      members.revokeInvite(contextOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/invites/preview',
    {
      config: { right: 'public', docs: { errors: ['not_found'] } },
      schema: {
        operationId: 'previewInvite',
        tags,
        summary: 'What an invite link is for (the join page shows it before accepting)',
        security: [],
        body: inviteTokenBody,
        response: { 200: invitePreviewSchema },
      },
    },
    async (req) => members.previewInvite(req.body.token),
  );

  app.post(
    '/invites/accept',
    {
      config: { right: 'public', docs: { errors: ['not_found', 'invalid_state'] } },
      schema: {
        operationId: 'acceptInvite',
        tags,
        summary: 'Accept an invite with a name and a password: signs in (sets the session cookie)',
        security: [],
        body: acceptInviteBody,
        response: { 201: memberSchema },
      },
    },
    async (req, reply) => {
      const accepted = await members.acceptInvite(req.body, clientOf(req));
      setSessionCookie(reply, req, accepted.token);
      return reply.code(201).send(accepted.member);
    },
  );

  app.post(
    '/login',
    {
      config: { right: 'public', docs: { errors: ['invalid_credentials'] } },
      schema: {
        operationId: 'signIn',
        tags,
        summary: 'A member’s sign-in: sets the session cookie',
        description:
          'Answers 401 `invalid_credentials` whatever was wrong. From the 5th failure for an address or an account, sign-in waits (429 `rate_limited` with `Retry-After`), twice as long after each further failure. A sign-in always opens a new session.',
        security: [],
        body: loginBody,
        response: { 204: z.null() },
      },
    },
    async (req, reply) => {
      const session = await members.signIn(req.body, clientOf(req));
      setSessionCookie(reply, req, session.token);
      return reply.code(204).header('cache-control', 'no-store').send(null);
    },
  );

  app.post(
    '/logout',
    {
      config: { right: 'sessions' },
      schema: {
        operationId: 'signOut',
        tags,
        summary: 'Sign out: ends this session (its event streams close) and clears the cookie',
        response: { 204: z.null() },
      },
    },
    async (req, reply) => {
      const { sessionId } = req.principal;
      if (sessionId) members.endSession(contextOf(req), sessionId, 'session.sign_out');
      clearSessionCookie(reply, req);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/sessions',
    {
      config: { right: 'sessions' },
      schema: {
        operationId: 'listSessions',
        tags,
        summary: 'Your open sessions, or (admins) another member’s',
        querystring: sessionsQuery,
        response: { 200: page(sessionSchema) },
      },
    },
    async (req) => {
      const p = req.principal;
      const memberId = req.query.memberId ?? p.member!.id;
      if (memberId !== p.member!.id && !can(p.role, 'members', p.grants)) {
        throw new ApiError('forbidden', 'Only an admin sees another member’s sessions.', {
          details: { requires: 'members' },
        });
      }
      return { data: members.sessions(contextOf(req), memberId), nextCursor: null };
    },
  );

  app.delete(
    '/sessions/:id',
    {
      config: { right: 'sessions' },
      schema: {
        operationId: 'revokeSession',
        tags,
        summary: 'End a session: yours, or (admins) another member’s. It answers 401 at once',
        params: idParams,
        response: { 204: z.null() },
      },
    },
    async (req, reply) => {
      const p = req.principal;
      const owner = members.sessionOwner(p.workspaceId, req.params.id);
      if (owner !== p.member!.id && !can(p.role, 'members', p.grants)) {
        throw new ApiError('forbidden', 'Only an admin ends another member’s sessions.', {
          details: { requires: 'members' },
        });
      }
      members.endSession(contextOf(req), req.params.id, 'session.revoked');
      if (req.params.id === p.sessionId) clearSessionCookie(reply, req);
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/api/me',
    {
      config: { right: 'sessions' },
      schema: {
        operationId: 'updateMe',
        tags,
        summary: 'Your name and sign-in address',
        body: updateMeBody,
        response: { 200: memberSchema },
      },
    },
    async (req) => members.updateMe(contextOf(req), req.body),
  );

  app.post(
    '/api/me/password',
    {
      config: { right: 'sessions', docs: { errors: ['invalid_credentials'] } },
      schema: {
        operationId: 'changePassword',
        tags,
        summary: 'Set or change your password: every other session of yours ends',
        description:
          'At least 12 characters, not a common password. `currentPassword` is needed once a password is set. Every session of yours ends (their event streams close); the browser that asked gets a new one.',
        body: changePasswordBody,
        response: { 204: z.null() },
      },
    },
    async (req, reply) => {
      const { token } = await members.changePassword(contextOf(req), req.body, clientOf(req));
      if (token) setSessionCookie(reply, req, token);
      return reply.code(204).send(null);
    },
  );
}
