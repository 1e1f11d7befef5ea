import { create } from 'zustand';
import type { Contact, UpsertContactBody } from '../../../shared/schemas/index.ts';
import { api, type ContactPage } from '../api/client.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

export interface ContactFilters {
  q: string;
  label: string;
}

interface ContactsState extends PagedListMeta {
  contacts: Contact[];
  /** How many contacts match the filters (all pages), once the first page told. */
  total: number | null;
  filters: ContactFilters;
  setFilters: (filters: Partial<ContactFilters>) => void;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  upsert: (body: UpsertContactBody) => Promise<{ contact: Contact; created: boolean }>;
  reset: () => void;
}

export const CONTACTS_PAGE_SIZE = 100;

const emptyList = (): Pick<ContactsState, 'contacts' | 'total' | keyof PagedListMeta> => ({
  ...emptyPagedList(),
  contacts: [],
  total: null,
});

export const useContacts = create<ContactsState>()((set, get) => {
  const query = () => {
    const { q, label } = get().filters;
    return { q: q.trim(), label: label.trim(), limit: CONTACTS_PAGE_SIZE };
  };

  // A slow answer for an old search or scope is dropped.
  const list = createPagedList<ContactsState, Contact, ContactPage>({
    set,
    get,
    first: () => api.contacts.list(query()),
    next: (cursor) => api.contacts.list({ ...query(), cursor }),
    rows: (s) => s.contacts,
    withRows: (contacts) => ({ contacts }),
    onFirst: (page) => ({ total: page.total ?? null }),
  });

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

    load: list.load,
    loadMore: list.loadMore,

    upsert: async (body) => {
      const result = await api.contacts.upsert(body);
      void get().load();
      return result;
    },

    reset: () => {
      list.invalidate();
      set(emptyList());
    },
  };
});

registerScopedStore(() => useContacts.getState().reset());

export const selectHasFilters = (s: ContactsState): boolean =>
  s.filters.q.trim() !== '' || s.filters.label.trim() !== '';
