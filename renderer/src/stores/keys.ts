import { create } from 'zustand';
import type { ApiKey, CreatedKey, CreateKeyBody } from '../../../shared/schemas/index.ts';
import { api, errorMessage, scopeGeneration } from '../api/client.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

interface KeysState {
  keys: ApiKey[];
  nextCursor: string | null;
  status: LoadStatus;
  loadingMore: boolean;
  error: string | null;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  /** Resolves with the created key; only its non-secret fields are kept in the store. */
  create: (body: CreateKeyBody) => Promise<CreatedKey>;
  revoke: (id: string) => Promise<ApiKey>;
  reset: () => void;
}

const PAGE_SIZE = 100;
type KeysData = Pick<KeysState, 'keys' | 'nextCursor' | 'status' | 'loadingMore' | 'error'>;
const initial = (): KeysData => ({
  keys: [],
  nextCursor: null,
  status: 'idle',
  loadingMore: false,
  error: null,
});

const withoutSecret = ({ key: _key, ...rest }: CreatedKey): ApiKey => rest;

export const useKeys = create<KeysState>()((set, get) => ({
  ...initial(),

  load: async () => {
    const generation = scopeGeneration();
    set({ status: 'loading', error: null });
    try {
      const page = await api.keys.list({ limit: PAGE_SIZE });
      if (generation !== scopeGeneration()) return;
      set({ keys: page.data, nextCursor: page.nextCursor, status: 'ready' });
    } catch (e) {
      if (generation === scopeGeneration()) set({ status: 'error', error: errorMessage(e) });
    }
  },

  loadMore: async () => {
    const { nextCursor, loadingMore } = get();
    if (!nextCursor || loadingMore) return;
    const generation = scopeGeneration();
    set({ loadingMore: true });
    try {
      const page = await api.keys.list({ limit: PAGE_SIZE, cursor: nextCursor });
      if (generation !== scopeGeneration()) return;
      set((s) => ({ keys: [...s.keys, ...page.data], nextCursor: page.nextCursor }));
    } finally {
      if (generation === scopeGeneration()) set({ loadingMore: false });
    }
  },

  create: async (body) => {
    const created = await api.keys.create(body);
    set((s) => ({ keys: [withoutSecret(created), ...s.keys.filter((k) => k.id !== created.id)] }));
    return created;
  },

  revoke: async (id) => {
    const revoked = await api.keys.revoke(id);
    set((s) => ({ keys: s.keys.map((k) => (k.id === revoked.id ? revoked : k)) }));
    return revoked;
  },

  reset: () => set(initial()),
}));

registerScopedStore(() => useKeys.getState().reset());

export const selectActiveKeyCount = (s: KeysState): number =>
  s.keys.filter((k) => k.revokedAt === null).length;
