import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../shared/errors.ts';
import { environmentSchema } from '../../../shared/schemas/common.ts';
import type { KeysService } from '../modules/keys/service.ts';
import type { WorkspacesService } from '../modules/workspaces/service.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { BrowserSession } from './session.ts';
import { sameSecret } from './session.ts';
import type { Scope } from '../runtime.ts';

/** Who is calling, and the scope every query of the request is limited to. */
export interface Principal extends Scope {
  kind: 'api_key' | 'session';
  keyId: string | null;
  keyPrefix: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Only the desktop UI's session may call it (key management, wallet top-up). */
    dashboardOnly?: boolean;
    /** Test-environment only: 403 with a live key (simulator routes). */
    testOnly?: boolean;
  }
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
}) {
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
      return { ...p, kind: 'api_key' };
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
        workspaceId: workspace.id,
        environment: env.data,
        keyId: null,
        keyPrefix: null,
      };
    }
    return refuse(req);
  };
}

/** The bucket of a client without credentials: its address. */
export const clientKey = (req: FastifyRequest): string => `client:${req.ip}`;
