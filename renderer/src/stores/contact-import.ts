import { create } from 'zustand';
import type {
  ColumnMapping,
  Group,
  ImportPreview,
  ImportResult,
} from '../../../shared/schemas/index.ts';
import { emptyColumnMapping } from '../../../shared/import-fields.ts';
import {
  api,
  ApiRequestError,
  errorMessage,
  isAbortError,
  scopeGeneration,
} from '../api/client.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

/**
 * idle → checking (dry run of the chosen file) → mapping (columns shown, the user may change
 * them; each change re-checks) → importing → done | failed.
 */
export type ImportPhase = 'idle' | 'checking' | 'mapping' | 'importing' | 'done' | 'failed';

interface ContactImportState {
  /** The import dialog is open (other screens open it too, e.g. the inbox's first-run steps). */
  dialogOpen: boolean;
  setDialogOpen: (open: boolean) => void;
  phase: ImportPhase;
  file: File | null;
  fileName: string | null;
  /** The header row: from the dry run, or from the error that found no phone column. */
  columns: string[];
  mapping: ColumnMapping | null;
  /** The last dry run's answer for the current mapping (null while none is known). */
  preview: ImportPreview | null;
  /** A dry run for a changed mapping is under way. */
  rechecking: boolean;
  /** Why the file cannot be imported as mapped (e.g. no phone column), shown in the mapping step. */
  problem: string | null;
  processed: number;
  total: number;
  result: ImportResult | null;
  error: string | null;
  groups: Group[];
  groupsStatus: LoadStatus;
  loadGroups: () => Promise<void>;
  createGroup: (name: string) => Promise<Group>;
  /** Reads the file's header and first rows (a dry run) and guesses the mapping. */
  choose: (file: File | null) => Promise<void>;
  /** Changes the mapping and checks the file against it again. */
  setMapping: (mapping: ColumnMapping) => Promise<void>;
  /** Imports the chosen file with the current mapping; resolves with the result (or null). */
  start: (groupId: string | null) => Promise<ImportResult | null>;
  cancel: () => void;
  clear: () => void;
  reset: () => void;
}

type ImportData = Pick<
  ContactImportState,
  | 'phase'
  | 'file'
  | 'fileName'
  | 'columns'
  | 'mapping'
  | 'preview'
  | 'rechecking'
  | 'problem'
  | 'processed'
  | 'total'
  | 'result'
  | 'error'
>;

const idle: ImportData = {
  phase: 'idle',
  file: null,
  fileName: null,
  columns: [],
  mapping: null,
  preview: null,
  rechecking: false,
  problem: null,
  processed: 0,
  total: 0,
  result: null,
  error: null,
};

/** The columns an error answer lists (no phone column found, unknown mapped column). */
const columnsOf = (e: unknown): string[] | null => {
  if (!(e instanceof ApiRequestError) || e.status !== 400) return null;
  const columns = e.details?.columns;
  return Array.isArray(columns) && columns.every((c) => typeof c === 'string') ? columns : null;
};

export const useContactImport = create<ContactImportState>()((set, get) => {
  /** The running import (cancel aborts it). */
  let controller: AbortController | null = null;
  /** The running dry run: a newer file or mapping supersedes it. */
  let checker: AbortController | null = null;

  async function check(file: File, mapping: ColumnMapping | null): Promise<void> {
    checker?.abort();
    const mine = new AbortController();
    checker = mine;
    try {
      const preview = await api.contacts.previewImport(file, mapping, mine.signal);
      if (checker !== mine) return;
      set({
        phase: 'mapping',
        preview,
        columns: preview.columns,
        mapping: preview.mapping,
        rechecking: false,
        problem: null,
        error: null,
      });
    } catch (e) {
      if (checker !== mine || isAbortError(e)) return;
      const columns = columnsOf(e);
      if (columns) {
        // The file reads fine but the mapping misses (no phone column): let the user choose.
        set({
          phase: 'mapping',
          preview: null,
          columns,
          mapping: mapping ?? emptyColumnMapping(),
          rechecking: false,
          problem: errorMessage(e),
        });
      } else {
        set({ phase: 'failed', rechecking: false, error: errorMessage(e) });
      }
    } finally {
      if (checker === mine) checker = null;
    }
  }

  return {
    dialogOpen: false,
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

    choose: async (file) => {
      checker?.abort();
      checker = null;
      if (!file) {
        set({ ...idle });
        return;
      }
      set({ ...idle, phase: 'checking', file, fileName: file.name });
      await check(file, null);
    },

    setMapping: async (mapping) => {
      const { file } = get();
      if (!file) return;
      set({ mapping, rechecking: true });
      if (mapping.phone.length === 0) {
        checker?.abort();
        checker = null;
        set({
          rechecking: false,
          preview: null,
          problem: 'Choose the column that holds the phone numbers.',
        });
        return;
      }
      await check(file, mapping);
    },

    start: async (groupId) => {
      const { file, mapping } = get();
      if (!file || !mapping || mapping.phone.length === 0) return null;
      controller?.abort();
      const mine = new AbortController();
      controller = mine;
      set({ phase: 'importing', processed: 0, total: 0, error: null });
      try {
        const result = await api.contacts.import(file, {
          mapping,
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
                  phase: 'mapping',
                  error:
                    'Import cancelled. Valid rows are saved all at once when the whole file has been read, so either none or all of them were saved: the list shows which.',
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

    setDialogOpen: (open) => set({ dialogOpen: open }),

    clear: () => {
      if (get().phase === 'importing') return;
      checker?.abort();
      checker = null;
      set({ ...idle });
    },

    reset: () => {
      controller?.abort();
      controller = null;
      checker?.abort();
      checker = null;
      set({ ...idle, groups: [], groupsStatus: 'idle', dialogOpen: false });
    },
  };
});

registerScopedStore(() => useContactImport.getState().reset());

export const selectImportBusy = (s: ContactImportState): boolean => s.phase === 'importing';

/** A file is checked and its phone column chosen: it may be imported. */
export const selectImportReady = (s: ContactImportState): boolean =>
  s.phase === 'mapping' && !s.rechecking && s.preview !== null && !!s.mapping?.phone.length;

/** 0–1 share of rows processed, or null while the total is not known yet. */
export const selectImportFraction = (s: ContactImportState): number | null =>
  s.total > 0 ? Math.min(1, s.processed / s.total) : null;
