import { create } from 'zustand';
import type { TeamStatus } from '../../../shared/schemas/team.ts';
import type { ReassignResult, TeamAgent } from '../../../shared/schemas/together.ts';
import { api, errorMessage, type ShareTeamBody } from '../api/client.ts';
import { events } from '../api/events.ts';
import {
  createRequestGuard,
  registerScopedStore,
  type LoadStatus,
  type RequestGuard,
} from './scope.ts';

/** One part of the screen as loaded: its data, and how its read went. */
export interface Part<T> {
  data: T;
  status: LoadStatus;
  error: string | null;
}

interface Parts {
  /** GET /api/team/agents: presence, workload, capacity. */
  agents: Part<TeamAgent[]>;
  /** GET /api/team: whether this desk is shared, where, with which certificate. */
  desk: Part<TeamStatus | null>;
}
type PartKey = keyof Parts;

const idle = (): Parts => ({
  agents: { data: [], status: 'idle', error: null },
  desk: { data: null, status: 'idle', error: null },
});

/**
 * Settings → Team: the admin's view of the team and whether this desk is shared on the network
 * (the assignment settings are the workspace's: stores/workspace-settings.ts). Each part loads
 * on its own: a member may hold the right to one and not another.
 */
interface TeamState extends Parts {
  loadAgents: () => Promise<void>;
  loadDesk: () => Promise<void>;
  setCapacity: (memberId: string, capacity: number) => Promise<TeamAgent>;
  /** `to`: a member id, `unassigned` or `round_robin`. */
  reassignAll: (memberId: string, to: string) => Promise<ReassignResult>;
  share: (body: ShareTeamBody) => Promise<TeamStatus>;
  reset: () => void;
}

export const useTeam = create<TeamState>()((set, get) => {
  const guards: Record<PartKey, RequestGuard> = {
    agents: createRequestGuard(),
    desk: createRequestGuard(),
  };
  const setPart = <K extends PartKey>(key: K, part: Parts[K]): void =>
    set({ [key]: part } as Pick<Parts, K>);

  /** Reads a part; what is shown stays while it is read again, and the latest read wins. */
  const load = async <K extends PartKey>(
    key: K,
    read: () => Promise<Parts[K]['data']>,
  ): Promise<void> => {
    const isCurrent = guards[key].restart();
    const before = get()[key];
    if (before.status !== 'ready') setPart(key, { ...before, status: 'loading', error: null });
    try {
      const data = await read();
      if (isCurrent()) setPart(key, { data, status: 'ready', error: null } as Parts[K]);
    } catch (e) {
      if (isCurrent()) setPart(key, { ...get()[key], status: 'error', error: errorMessage(e) });
    }
  };

  /** What a change answered is the part now (a read still on its way is dropped). */
  const put = <K extends PartKey>(key: K, data: Parts[K]['data']): void => {
    guards[key].invalidate();
    setPart(key, { data, status: 'ready', error: null } as Parts[K]);
  };

  return {
    ...idle(),

    loadAgents: () => load('agents', async () => (await api.team.agents()).data),
    loadDesk: () => load('desk', () => api.team.status()),

    setCapacity: async (memberId, capacity) => {
      const agent = await api.team.setCapacity(memberId, capacity);
      put(
        'agents',
        get().agents.data.map((a) => (a.id === agent.id ? agent : a)),
      );
      return agent;
    },

    reassignAll: async (memberId, to) => {
      const result = await api.team.reassignAll(memberId, to);
      // Everyone's counts moved: read them again.
      void get().loadAgents();
      return result;
    },

    share: async (body) => {
      const desk = await api.team.share(body);
      put('desk', desk);
      return desk;
    },

    reset: () => {
      for (const guard of Object.values(guards)) guard.invalidate();
      set(idle());
    },
  };
});

registerScopedStore(() => useTeam.getState().reset());

/** How long the team view waits after a conversation moved before reading the counts again. */
const RECOUNT_AFTER_MS = 1_000;
let recount: number | null = null;

/**
 * While the team view is loaded, a conversation that changed hands or status changes someone's
 * counts: read them again (once for a burst of changes, e.g. a campaign's replies).
 */
events.subscribe(['conversation.created', 'conversation.updated'], (event) => {
  if (useTeam.getState().agents.status !== 'ready') return;
  const changes = (event.data as { changes?: Record<string, unknown> }).changes;
  if (event.type === 'conversation.updated' && !changes?.assignee && !changes?.status) return;
  if (recount !== null) return;
  recount = window.setTimeout(() => {
    recount = null;
    if (useTeam.getState().agents.status === 'ready') void useTeam.getState().loadAgents();
  }, RECOUNT_AFTER_MS);
});
