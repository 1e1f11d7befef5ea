import { create } from 'zustand';
import type { Agent } from '../../../shared/schemas/index.ts';
import { api, errorMessage, scopeGeneration } from '../api/client.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

/**
 * The workspace's members as assignees (GET /agents): the assignee pickers offer the active
 * ones, and the names of deactivated ones still resolve on conversations and messages they
 * handled. Who the desk acts as is not here: a session acts as its signed-in member
 * (`selectMemberId` in the session store).
 */
interface AgentsState {
  agents: Agent[];
  status: LoadStatus;
  error: string | null;
  /** Loads once per scope; later calls are no-ops (a failed load is retried on request). */
  ensureLoaded: () => void;
  /**
   * Someone this list does not know showed up (a teammate who joined since it was read, seen
   * on the stream): reads it again, once per such member.
   */
  ensureKnown: (memberId: string) => void;
  load: () => Promise<void>;
  reset: () => void;
}

const askedAbout = new Set<string>();

export const useAgents = create<AgentsState>()((set, get) => ({
  agents: [],
  status: 'idle',
  error: null,

  ensureLoaded: () => {
    const { status, load } = get();
    if (status === 'idle') void load();
  },

  ensureKnown: (memberId) => {
    const { status, agents, load } = get();
    if (status !== 'ready' || askedAbout.has(memberId)) return;
    if (agents.some((a) => a.id === memberId)) return;
    askedAbout.add(memberId);
    void load();
  },

  load: async () => {
    const generation = scopeGeneration();
    if (get().status !== 'ready') set({ status: 'loading', error: null });
    try {
      const page = await api.agents.list();
      if (generation !== scopeGeneration()) return;
      set({ agents: page.data, status: 'ready' });
    } catch (e) {
      if (generation === scopeGeneration()) set({ status: 'error', error: errorMessage(e) });
    }
  },

  reset: () => {
    askedAbout.clear();
    set({ agents: [], status: 'idle', error: null });
  },
}));

registerScopedStore(() => useAgents.getState().reset());

/**
 * Whether a conversation may be assigned to them: a deactivated member keeps their name on what
 * they handled but is no longer offered.
 */
export const isAssignable = (agent: Agent): boolean => agent.active;

/** Up to two initials for an avatar: "Ann Lee" → "AL". */
export const initialsOf = (name: string): string =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part.charAt(0).toUpperCase())
    .join('') || '?';
