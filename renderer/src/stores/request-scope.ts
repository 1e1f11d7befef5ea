import { create } from 'zustand';
import type { Environment } from '../../../shared/schemas/index.ts';

/**
 * What every request is scoped to (the environment and, once known, the workspace): the one
 * copy, read by the API client for each request's headers and by the event stream. The session
 * store changes it through `setScope` (api/client.ts), so the client itself holds no state. Who
 * acts is not part of it: a session always acts as its signed-in member.
 */
export interface RequestScope {
  environment: Environment;
  workspaceId: string | null;
  /**
   * Bumped by every `setScope`, so that answers to requests sent under the previous scope can be
   * recognised and dropped instead of showing one environment's data in the other.
   */
  generation: number;
}

export const useRequestScope = create<RequestScope>()(() => ({
  environment: 'test',
  workspaceId: null,
  generation: 0,
}));
