import { create } from 'zustand';
import type { Environment } from '../../../shared/schemas/index.ts';

/**
 * What every request is scoped to (the environment and, once known, the workspace) and the agent
 * the desk acts as: the one copy, read by the API client for each request's headers and by the
 * event stream. The session store changes the scope through `setScope`, the agents store the
 * agent through `setAgent` (both in api/client.ts), so the client itself holds no state.
 */
export interface RequestScope {
  environment: Environment;
  workspaceId: string | null;
  /** The agent the desk acts as (`X-Parley-Agent`), once chosen and known to the workspace. */
  agentId: string | null;
  /**
   * Bumped by every `setScope`, so that answers to requests sent under the previous scope can be
   * recognised and dropped instead of showing one environment's data in the other.
   */
  generation: number;
}

export const useRequestScope = create<RequestScope>()(() => ({
  environment: 'test',
  workspaceId: null,
  agentId: null,
  generation: 0,
}));
