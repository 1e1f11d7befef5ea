import { create } from 'zustand';
import type { Group, ImportResult } from '../../../shared/schemas/index.ts';
import { api, errorMessage, isAbortError, scopeGeneration } from '../api/client.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

export type ImportPhase = 'idle' | 'reading' | 'importing' | 'done' | 'failed';

interface ContactImportState {
  phase: ImportPhase;
  fileName: string | null;
  processed: number;
  total: number;
  result: ImportResult | null;
  error: string | null;
  groups: Group[];
  groupsStatus: LoadStatus;
  loadGroups: () => Promise<void>;
  createGroup: (name: string) => Promise<Group>;
  /** Reads and uploads the file; resolves with the result (null if it failed or was cancelled). */
  start: (file: File, groupId: string | null) => Promise<ImportResult | null>;
  cancel: () => void;
  clear: () => void;
  reset: () => void;
}

const idle = {
  phase: 'idle',
  fileName: null,
  processed: 0,
  total: 0,
  result: null,
  error: null,
} as const;

export const useContactImport = create<ContactImportState>()((set, get) => {
  let controller: AbortController | null = null;

  return {
    ...idle,
    groups: [],
    groupsStatus: 'idle',

    loadGroups: async () => {
      const generation = scopeGeneration();
      set({ groupsStatus: 'loading' });
      try {
        const page = await api.groups.list({ limit: 200 });
        if (generation === scopeGeneration()) set({ groups: page.data, groupsStatus: 'ready' });
      } catch {
        // Groups are optional for an import; without them the selector just offers "No group".
        if (generation === scopeGeneration()) set({ groupsStatus: 'error' });
      }
    },

    createGroup: async (name) => {
      const group = await api.groups.create(name);
      set((s) => ({ groups: [...s.groups.filter((g) => g.id !== group.id), group] }));
      return group;
    },

    start: async (file, groupId) => {
      controller?.abort();
      const mine = new AbortController();
      controller = mine;
      set({ ...idle, phase: 'reading', fileName: file.name });
      try {
        const csv = await file.text();
        if (mine.signal.aborted) return null;
        set({ phase: 'importing' });
        const result = await api.contacts.import(csv, {
          groupId,
          signal: mine.signal,
          onProgress: (processed, total) => {
            if (controller === mine) set({ processed, total });
          },
        });
        if (controller !== mine) return null;
        set({ phase: 'done', result, processed: result.total, total: result.total });
        return result;
      } catch (e) {
        if (controller === mine) {
          set(
            isAbortError(e)
              ? {
                  ...idle,
                  fileName: file.name,
                  error: 'Import cancelled. Rows processed before that may already be saved.',
                }
              : { phase: 'failed', error: errorMessage(e) },
          );
        }
        return null;
      } finally {
        if (controller === mine) controller = null;
      }
    },

    cancel: () => controller?.abort(),

    clear: () => {
      if (get().phase !== 'reading' && get().phase !== 'importing') set({ ...idle });
    },

    reset: () => {
      controller?.abort();
      controller = null;
      set({ ...idle, groups: [], groupsStatus: 'idle' });
    },
  };
});

registerScopedStore(() => useContactImport.getState().reset());

export const selectImportBusy = (s: ContactImportState): boolean =>
  s.phase === 'reading' || s.phase === 'importing';

/** 0–1 share of rows processed, or null while the total is not known yet. */
export const selectImportFraction = (s: ContactImportState): number | null =>
  s.total > 0 ? Math.min(1, s.processed / s.total) : null;
