import { create } from 'zustand';
import type { Agent } from '../../../shared/schemas/index.ts';
import { api, currentScope, errorMessage, scopeGeneration, setAgent } from '../api/client.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

/**
 * Who the desk acts as: the workspace's agents and the one chosen on this machine. The choice is
 * remembered per workspace; with none remembered (or a remembered one that no longer exists) the
 * first agent is taken, so the inbox never waits on a prompt when agents exist.
 */
interface AgentsState {
  agents: Agent[];
  /** The agent this desk acts as; null until agents are loaded, or when there are none. */
  meId: string | null;
  status: LoadStatus;
  error: string | null;
  /** Loads once per scope; later calls are no-ops (a failed load is retried on request). */
  ensureLoaded: () => void;
  load: () => Promise<void>;
  create: (body: { name: string; email: string }) => Promise<Agent>;
  choose: (id: string) => void;
  reset: () => void;
}

const storageKey = (): string => `parley.agent.${currentScope().workspaceId ?? 'default'}`;

function remembered(): string | null {
  try {
    return localStorage.getItem(storageKey());
  } catch {
    return null;
  }
}

function remember(id: string): void {
  try {
    localStorage.setItem(storageKey(), id);
  } catch {
    // Without storage the choice lasts this session.
  }
}

export const useAgents = create<AgentsState>()((set, get) => {
  const actAs = (id: string | null): void => {
    setAgent(id);
    set({ meId: id });
  };

  return {
    agents: [],
    meId: null,
    status: 'idle',
    error: null,

    ensureLoaded: () => {
      const { status, load } = get();
      if (status === 'idle') void load();
    },

    load: async () => {
      const generation = scopeGeneration();
      if (get().status !== 'ready') set({ status: 'loading', error: null });
      try {
        const page = await api.agents.list();
        if (generation !== scopeGeneration()) return;
        const agents = page.data;
        const stored = remembered();
        const current = get().meId ?? stored;
        const me = agents.find((a) => a.id === current) ?? agents[0] ?? null;
        actAs(me?.id ?? null);
        set({ agents, status: 'ready' });
      } catch (e) {
        if (generation === scopeGeneration()) set({ status: 'error', error: errorMessage(e) });
      }
    },

    create: async (body) => {
      const agent = await api.agents.create(body);
      set((s) => ({ agents: [...s.agents.filter((a) => a.id !== agent.id), agent] }));
      return agent;
    },

    choose: (id) => {
      if (!get().agents.some((a) => a.id === id)) return;
      remember(id);
      actAs(id);
    },

    reset: () => {
      setAgent(null);
      set({ agents: [], meId: null, status: 'idle', error: null });
    },
  };
});

registerScopedStore(() => useAgents.getState().reset());

export const selectMe = (s: AgentsState): Agent | null =>
  s.agents.find((a) => a.id === s.meId) ?? null;

/** Up to two initials for an avatar: "Ann Lee" → "AL". */
export const initialsOf = (name: string): string =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part.charAt(0).toUpperCase())
    .join('') || '?';
