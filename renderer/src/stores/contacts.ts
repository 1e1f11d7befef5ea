import { create } from 'zustand';
import type { Contact, UpsertContactBody } from '../../../shared/schemas/index.ts';
import { api, errorMessage, scopeGeneration } from '../api/client.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

export interface ContactFilters {
  q: string;
  label: string;
}

interface ContactsState {
  contacts: Contact[];
  nextCursor: string | null;
  status: LoadStatus;
  loadingMore: boolean;
  error: string | null;
  filters: ContactFilters;
  setFilters: (filters: Partial<ContactFilters>) => void;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  upsert: (body: UpsertContactBody) => Promise<{ contact: Contact; created: boolean }>;
  reset: () => void;
}

export const CONTACTS_PAGE_SIZE = 100;

type ListData = Pick<ContactsState, 'contacts' | 'nextCursor' | 'status' | 'loadingMore' | 'error'>;
const emptyList = (): ListData => ({
  contacts: [],
  nextCursor: null,
  status: 'idle',
  loadingMore: false,
  error: null,
});

export const useContacts = create<ContactsState>()((set, get) => {
  // Bumped by every new first-page load, so a slow answer for an old search or scope is dropped.
  let listSeq = 0;
  const isCurrent = (seq: number, generation: number): boolean =>
    seq === listSeq && generation === scopeGeneration();

  const query = () => {
    const { q, label } = get().filters;
    return { q: q.trim(), label: label.trim(), limit: CONTACTS_PAGE_SIZE };
  };

  return {
    ...emptyList(),
    filters: { q: '', label: '' },

    setFilters: (filters) => {
      const next = { ...get().filters, ...filters };
      const current = get().filters;
      if (next.q === current.q && next.label === current.label) return;
      set({ filters: next });
      void get().load();
    },

    load: async () => {
      const seq = ++listSeq;
      const generation = scopeGeneration();
      set({ status: 'loading', error: null, loadingMore: false });
      try {
        const page = await api.contacts.list(query());
        if (!isCurrent(seq, generation)) return;
        set({ contacts: page.data, nextCursor: page.nextCursor, status: 'ready' });
      } catch (e) {
        if (isCurrent(seq, generation)) set({ status: 'error', error: errorMessage(e) });
      }
    },

    loadMore: async () => {
      const { nextCursor, loadingMore, status } = get();
      if (!nextCursor || loadingMore || status !== 'ready') return;
      const seq = listSeq;
      const generation = scopeGeneration();
      set({ loadingMore: true });
      try {
        const page = await api.contacts.list({ ...query(), cursor: nextCursor });
        if (!isCurrent(seq, generation)) return;
        set((s) => {
          const seen = new Set(s.contacts.map((c) => c.id));
          return {
            contacts: [...s.contacts, ...page.data.filter((c) => !seen.has(c.id))],
            nextCursor: page.nextCursor,
          };
        });
      } finally {
        if (isCurrent(seq, generation)) set({ loadingMore: false });
      }
    },

    upsert: async (body) => {
      const result = await api.contacts.upsert(body);
      void get().load();
      return result;
    },

    reset: () => {
      listSeq += 1;
      set(emptyList());
    },
  };
});

registerScopedStore(() => useContacts.getState().reset());

export const selectHasFilters = (s: ContactsState): boolean =>
  s.filters.q.trim() !== '' || s.filters.label.trim() !== '';
