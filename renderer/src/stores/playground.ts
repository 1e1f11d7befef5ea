import { create } from 'zustand';
import { api, errorMessage, type Environment, type RawResponse } from '../api/client.ts';
import { parseEndpoints, type EndpointGroup } from '../api/openapi.ts';
import type { LoadStatus } from './scope.ts';

/** A request the playground sent. Never holds the API key: only its environment. */
export interface PlaygroundEntry {
  id: number;
  at: number;
  endpointKey: string;
  method: string;
  /** The path as sent, with its parameters and query string. */
  path: string;
  environment: Environment | null;
  requestBody: string | undefined;
  response: RawResponse | null;
  /** Set when nothing answered (the core is not reachable). */
  error: string | null;
}

interface PlaygroundState {
  groups: EndpointGroup[];
  specStatus: LoadStatus;
  specError: string | null;
  history: PlaygroundEntry[];
  loadSpec: () => Promise<void>;
  record: (entry: Omit<PlaygroundEntry, 'id' | 'at'>) => PlaygroundEntry;
  clearHistory: () => void;
}

/** The last requests of this session, in memory only. */
export const HISTORY_SIZE = 20;
let nextId = 1;

export const usePlayground = create<PlaygroundState>()((set, get) => ({
  groups: [],
  specStatus: 'idle',
  specError: null,
  history: [],

  // The reference is the same for every workspace and mode: fetched once per launch.
  loadSpec: async () => {
    if (get().specStatus === 'loading' || get().specStatus === 'ready') return;
    set({ specStatus: 'loading', specError: null });
    try {
      const doc = await api.openapi();
      set({ groups: parseEndpoints(doc), specStatus: 'ready' });
    } catch (e) {
      set({ specStatus: 'error', specError: errorMessage(e) });
    }
  },

  record: (entry) => {
    const full: PlaygroundEntry = { ...entry, id: nextId++, at: Date.now() };
    set((s) => ({ history: [full, ...s.history].slice(0, HISTORY_SIZE) }));
    return full;
  },

  clearHistory: () => set({ history: [] }),
}));
