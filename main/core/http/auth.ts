import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../../shared/errors.ts';
import { environmentSchema } from '../../../shared/schemas/common.ts';
import type { KeysService } from '../modules/keys/service.ts';
import type { WorkspacesService } from '../modules/workspaces/service.ts';
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

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function createAuthenticator(deps: {
  keys: KeysService;
  workspaces: WorkspacesService;
  sessionToken: string | null;
  rateLimit: (keyId: string) => void;
}) {
  return (req: FastifyRequest): Principal => {
    // X-API-Key wins when both are sent: the playground sends keys from inside the dashboard.
    const key = header(req, 'x-api-key');
    if (key !== undefined) {
      const p = deps.keys.authenticate(key.trim());
      if (!p) throw new ApiError('invalid_api_key');
      deps.rateLimit(p.keyId);
      return { ...p, kind: 'api_key' };
    }
    const session = header(req, 'x-parley-session');
    if (session !== undefined && deps.sessionToken && sameSecret(session, deps.sessionToken)) {
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
    throw new ApiError('invalid_api_key');
  };
}
