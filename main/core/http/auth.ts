import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../shared/errors.ts';
import { environmentSchema } from '../../../shared/schemas/common.ts';
import type { Role, RouteRight } from '../../../shared/permissions.ts';
import { PUBLIC, refusal } from '../../../shared/permissions.ts';
import type { KeysService } from '../modules/keys/service.ts';
import type { WorkspacesService } from '../modules/workspaces/service.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { BrowserSession } from './session.ts';
import { sameSecret } from './session.ts';
import type { Scope } from '../runtime.ts';

/**
 * Who is calling, resolved once per request on the server: the credential, its role in the
 * permission matrix (shared/permissions.ts), the scope every query of the request is limited
 * to, and the agent it acts as.
 */
export interface Principal extends Scope {
  kind: 'api_key' | 'session';
  role: Role;
  keyId: string | null;
  keyPrefix: string | null;
  /**
   * The agent the caller acts as (`X-Parley-Agent`, checked against the workspace's agents):
   * `id` null when the header names none of them (`named` keeps what it said), or both null
   * without the header.
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
  const why = refusal(principal.role, right, principal.environment);
  if (why) throw new ApiError('forbidden', why, { details: { requires: right } });
}

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function createAuthenticator(deps: {
  keys: KeysService;
  workspaces: WorkspacesService;
  /** The desktop window's per-launch token (`X-Parley-Session`), or null. */
  sessionToken: string | null;
  /** The browser sign-in cookie of headless serve, or null when disabled. */
  browserSession: BrowserSession | null;
  /** One bucket per API key id. */
  rateLimit: RateLimiter;
  /** One bucket for the UI session, whichever way it authenticated. */
  sessionRateLimit: RateLimiter;
  /** Requests without a valid credential, per client address. */
  anonymousRateLimit: RateLimiter;
  /** An agent of the workspace by id, or null (the acting agent's check). */
  findAgent: (workspaceId: string, id: string) => { id: string } | null;
}) {
  /** `X-Parley-Agent`, checked once here; where it matters is the route's to say. */
  const actingAgent = (req: FastifyRequest, workspaceId: string): Principal['agent'] => {
    const named = header(req, 'x-parley-agent') || null;
    if (named === null) return { id: null, named: null };
    return { id: deps.findAgent(workspaceId, named)?.id ?? null, named };
  };
  const refuse = (req: FastifyRequest): never => {
    // A flood of bad credentials is throttled too: it answers 429 once its bucket is empty.
    deps.anonymousRateLimit(clientKey(req));
    throw new ApiError('invalid_api_key');
  };
  return (req: FastifyRequest): Principal => {
    // X-API-Key wins when both are sent: the playground sends keys from inside the dashboard.
    const key = header(req, 'x-api-key');
    if (key !== undefined) {
      const p = deps.keys.authenticate(key.trim());
      if (!p) return refuse(req);
      deps.rateLimit(p.keyId);
      return { ...p, kind: 'api_key', role: 'api_key', agent: actingAgent(req, p.workspaceId) };
    }
    const session = header(req, 'x-parley-session');
    const byHeader =
      session !== undefined && deps.sessionToken !== null && sameSecret(session, deps.sessionToken);
    if (byHeader || deps.browserSession?.verify(req)) {
      deps.sessionRateLimit('session');
      const env = environmentSchema.safeParse(header(req, 'x-parley-environment') ?? 'test');
      if (!env.success) {
        throw new ApiError('validation_error', 'X-Parley-Environment must be test or live', {
          param: 'X-Parley-Environment',
        });
      }
      const workspaceId = header(req, 'x-parley-workspace');
      const workspace = deps.workspaces.resolve(workspaceId || undefined);
      return {
        kind: 'session',
        // The desk's own session is its owner's (members and their roles join with sign-in).
        role: 'owner',
        workspaceId: workspace.id,
        environment: env.data,
        keyId: null,
        keyPrefix: null,
        agent: actingAgent(req, workspace.id),
      };
    }
    return refuse(req);
  };
}

/** The bucket of a client without credentials: its address. */
export const clientKey = (req: FastifyRequest): string => `client:${req.ip}`;
