import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../../shared/errors.ts';
import { environmentSchema } from '../../../shared/schemas/common.ts';
import type { Grant, Role, RouteRight } from '../../../shared/permissions.ts';
import { PUBLIC, refusal } from '../../../shared/permissions.ts';
import type { KeysService } from '../modules/keys/service.ts';
import type { WorkspacesService } from '../modules/workspaces/service.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { MembersService } from '../modules/members/service.ts';
import type { MemberRow } from '../modules/members/repo.ts';
import { sessionCookie } from './session.ts';
import type { Scope } from '../runtime.ts';

/**
 * Who is calling, resolved once per request on the server: the credential, its role in the
 * permission matrix (shared/permissions.ts), the scope every query of the request is limited
 * to, and the agent it acts as.
 */
export interface Principal extends Scope {
  kind: 'api_key' | 'session';
  role: Role;
  /** Extra rights an admin granted the signed-in agent (design.md §6). */
  grants: readonly Grant[];
  keyId: string | null;
  keyPrefix: string | null;
  /** The signed-in member (a session; the desktop window is the workspace's owner), or null for a key. */
  member: { id: string; name: string } | null;
  /** The browser session (its public id), or null for the desktop window and API keys. */
  sessionId: string | null;
  /**
   * The member the caller acts as: a session's own member; for an API key, the member
   * `X-Parley-Agent` names (`id` null when it names no active member, `named` keeps what it
   * said), or both null without the header.
   */
  agent: { id: string | null; named: string | null };
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyInstance {
    /** Every route with the right it declared (app.ts), in registration order. */
    routeRights: readonly { method: string; url: string; right: RouteRight }[];
  }
  interface FastifyContextConfig {
    /** What a caller needs to reach the route (shared/permissions.ts), or `public`. */
    right?: RouteRight;
  }
}

/** The one check of a route's right: 403 `forbidden` naming what it requires. */
export function authorize(principal: Principal, right: RouteRight | undefined): void {
  // app.ts refuses to start with a route that declares no right; should one slip through, it
  // is refused, never let pass unchecked.
  if (right === undefined) throw new ApiError('forbidden', 'this route declares no right');
  if (right === PUBLIC) return;
  const why = refusal(principal.role, right, principal.environment, principal.grants);
  if (why) throw new ApiError('forbidden', why, { details: { requires: right } });
}

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function createAuthenticator(deps: {
  keys: KeysService;
  workspaces: WorkspacesService;
  members: MembersService;
  /** The desktop window's per-launch token (`X-Parley-Session`), or null. */
  sessionToken: string | null;
  /** One bucket per API key id. */
  rateLimit: RateLimiter;
  /** One bucket per signed-in member (all their sessions), one for the desktop window. */
  sessionRateLimit: RateLimiter;
  /** Requests without a valid credential, per client address. */
  anonymousRateLimit: RateLimiter;
}) {
  /** `X-Parley-Agent` of an API key, checked once here; where it matters is the route's to say. */
  const actingAgent = (req: FastifyRequest, workspaceId: string): Principal['agent'] => {
    const named = header(req, 'x-parley-agent') || null;
    if (named === null) return { id: null, named: null };
    return { id: deps.members.findActive(workspaceId, named)?.id ?? null, named };
  };
  const refuse = (req: FastifyRequest, message?: string): never => {
    // A flood of bad credentials is throttled too: it answers 429 once its bucket is empty.
    deps.anonymousRateLimit(clientKey(req));
    throw new ApiError('invalid_api_key', message);
  };
  const environmentOf = (req: FastifyRequest) => {
    const env = environmentSchema.safeParse(header(req, 'x-parley-environment') ?? 'test');
    if (!env.success) {
      throw new ApiError('validation_error', 'X-Parley-Environment must be test or live', {
        param: 'X-Parley-Environment',
      });
    }
    return env.data;
  };
  /**
   * The owner of the workspace asked for (the first one when none is): one joined read; when it
   * finds none, the workspace's own lookup says why (the same 404 as ever).
   */
  const ownerIn = (workspaceId: string | undefined): MemberRow =>
    deps.members.ownerIn(workspaceId) ??
    deps.members.ownerOf(deps.workspaces.resolve(workspaceId).id);
  /** A member's session principal; the owner may work in every workspace of the desk. */
  const memberPrincipal = (
    req: FastifyRequest,
    m: MemberRow,
    grants: readonly Grant[],
    sessionId: string | null,
  ): Principal => {
    const asked = header(req, 'x-parley-workspace') || undefined;
    let member = m;
    if (asked !== undefined && asked !== m.workspace_id) {
      if (m.role !== 'owner') {
        throw new ApiError('forbidden', 'You are a member of another workspace only.', {
          param: 'X-Parley-Workspace',
        });
      }
      member = ownerIn(asked);
    }
    return {
      kind: 'session',
      role: member.role,
      grants: member.role === 'agent' ? grants : [],
      workspaceId: member.workspace_id,
      environment: environmentOf(req),
      keyId: null,
      keyPrefix: null,
      member: { id: member.id, name: member.name },
      sessionId,
      // A session acts as its own member: X-Parley-Agent is for API keys only.
      agent: { id: member.id, named: member.id },
    };
  };
  return (req: FastifyRequest): Principal => {
    // X-API-Key wins when both are sent: the playground sends keys from inside the dashboard.
    const key = header(req, 'x-api-key');
    if (key !== undefined) {
      const p = deps.keys.authenticate(key.trim());
      if (!p) return refuse(req);
      deps.rateLimit(p.keyId);
      return {
        ...p,
        kind: 'api_key',
        role: 'api_key',
        grants: [],
        member: null,
        sessionId: null,
        agent: actingAgent(req, p.workspaceId),
      };
    }
    const token = header(req, 'x-parley-session');
    if (token !== undefined && deps.sessionToken !== null && sameSecret(token, deps.sessionToken)) {
      // The desktop window: its owner, in the workspace it asks for.
      deps.sessionRateLimit('desktop');
      return memberPrincipal(
        req,
        ownerIn(header(req, 'x-parley-workspace') || undefined),
        [],
        null,
      );
    }
    const cookie = sessionCookie(req);
    if (cookie !== undefined) {
      const s = deps.members.resolveSession(cookie);
      if (s) {
        // One bucket per member, whatever device or tab: a team's members do not share one,
        // and a member's many sessions do not get many.
        deps.sessionRateLimit(`member:${s.member.id}`);
        return memberPrincipal(req, s.member, s.grants, s.sessionId);
      }
      // Same code as any missing credential (the API's one 401), in words for a person.
      return refuse(req, 'Your session has ended (signed out, expired or revoked): sign in again.');
    }
    return refuse(req);
  };
}

/** The bucket of a client without credentials: its address. */
export const clientKey = (req: FastifyRequest): string => `client:${req.ip}`;

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
