import { create } from 'zustand';
import type { AuditEntry } from '../../../shared/schemas/members.ts';
import { api, type AuditQuery } from '../api/client.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

/** The audit screen's filters: '' for any. `since` is a day (`YYYY-MM-DD`, local time). */
export interface AuditFilters {
  actor: string;
  action: string;
  since: string;
}

interface AuditState extends PagedListMeta {
  entries: AuditEntry[];
  filters: AuditFilters;
  setFilters: (next: Partial<AuditFilters>) => void;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  reset: () => void;
}

const PAGE_SIZE = 50;
const NO_FILTERS: AuditFilters = { actor: '', action: '', since: '' };

/** The filters as the API takes them (a day starts at local midnight). */
export function auditQuery(filters: AuditFilters): AuditQuery {
  const since = filters.since ? new Date(`${filters.since}T00:00:00`) : null;
  return {
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(since && !Number.isNaN(since.getTime()) ? { since: since.toISOString() } : {}),
  };
}

/** Settings → Audit: who did what, newest first, a page at a time. */
export const useAudit = create<AuditState>()((set, get) => {
  const read = (cursor?: string) =>
    api.audit.list({
      ...auditQuery(get().filters),
      limit: PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
  const list = createPagedList({
    set,
    get,
    first: () => read(),
    next: (cursor) => read(cursor),
    rows: (s) => s.entries,
    withRows: (entries) => ({ entries }),
  });

  return {
    ...emptyPagedList(),
    entries: [],
    filters: NO_FILTERS,

    setFilters: (next) => {
      set((s) => ({ filters: { ...s.filters, ...next } }));
      void list.load();
    },
    load: list.load,
    loadMore: list.loadMore,
    reset: () => {
      list.invalidate();
      set({ ...emptyPagedList(), entries: [], filters: NO_FILTERS });
    },
  };
});

registerScopedStore(() => useAudit.getState().reset());
