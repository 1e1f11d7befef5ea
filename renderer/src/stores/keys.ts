import { create } from 'zustand';
import type { ApiKey, CreatedKey, CreateKeyBody } from '../../../shared/schemas/index.ts';
import { api } from '../api/client.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

interface KeysState extends PagedListMeta {
  keys: ApiKey[];
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  /** Resolves with the created key; only its non-secret fields are kept in the store. */
  create: (body: CreateKeyBody) => Promise<CreatedKey>;
  revoke: (id: string) => Promise<ApiKey>;
  reset: () => void;
}

const PAGE_SIZE = 100;
const initial = (): Pick<KeysState, 'keys' | keyof PagedListMeta> => ({
  ...emptyPagedList(),
  keys: [],
});

const withoutSecret = ({ key: _key, ...rest }: CreatedKey): ApiKey => rest;

export const useKeys = create<KeysState>()((set, get) => {
  const list = createPagedList({
    set,
    get,
    first: () => api.keys.list({ limit: PAGE_SIZE }),
    next: (cursor) => api.keys.list({ limit: PAGE_SIZE, cursor }),
    rows: (s) => s.keys,
    withRows: (keys) => ({ keys }),
  });

  return {
    ...initial(),

    load: list.load,
    loadMore: list.loadMore,

    create: async (body) => {
      const created = await api.keys.create(body);
      set((s) => ({
        keys: [withoutSecret(created), ...s.keys.filter((k) => k.id !== created.id)],
      }));
      return created;
    },

    revoke: async (id) => {
      const revoked = await api.keys.revoke(id);
      set((s) => ({ keys: s.keys.map((k) => (k.id === revoked.id ? revoked : k)) }));
      return revoked;
    },

    reset: () => {
      list.invalidate();
      set(initial());
    },
  };
});

registerScopedStore(() => useKeys.getState().reset());

export const selectActiveKeyCount = (s: KeysState): number =>
  s.keys.filter((k) => k.revokedAt === null).length;
