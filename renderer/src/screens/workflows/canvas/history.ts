/**
 * Undo and redo for an editor: every edit records the state it left; typing into one field is
 * one edit until a pause (edits with the same tag within COALESCE_MS merge). A small zustand
 * store per editor holds it; the transitions are plain functions, tested on their own.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';

export const COALESCE_MS = 1_000;
export const MAX_UNDO = 200;

export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** The last edit's tag and time: the next edit with that tag soon after merges into it. */
  last: { tag: string; at: number } | null;
}

export const startHistory = <T>(present: T): History<T> => ({
  past: [],
  present,
  future: [],
  last: null,
});

/** The state after an edit; `tag` names what was edited (a field), so typing is one step. */
export function record<T>(h: History<T>, next: T, tag: string | null, now: number): History<T> {
  if (Object.is(next, h.present)) return h;
  const merge = tag !== null && h.last?.tag === tag && now - h.last.at < COALESCE_MS;
  return {
    past: merge ? h.past : [...h.past, h.present].slice(-MAX_UNDO),
    present: next,
    future: [],
    last: tag === null ? null : { tag, at: now },
  };
}

export function undo<T>(h: History<T>): History<T> {
  const previous = h.past[h.past.length - 1];
  if (h.past.length === 0) return h;
  return {
    past: h.past.slice(0, -1),
    present: previous as T,
    future: [h.present, ...h.future],
    last: null,
  };
}

export function redo<T>(h: History<T>): History<T> {
  if (h.future.length === 0) return h;
  const [next, ...rest] = h.future;
  return { past: [...h.past, h.present], present: next as T, future: rest, last: null };
}

export interface HistoryState<T> {
  history: History<T>;
  /** An edit: `update` from the present state; `tag` merges typing into one step. */
  edit: (update: (present: T) => T, tag?: string | null) => void;
  undo: () => void;
  redo: () => void;
  /** Starts afresh from `present` (a workflow loaded or saved): nothing to undo. */
  reset: (present: T) => void;
}

export function createHistoryStore<T>(
  initial: T,
  now: () => number = () => Date.now(),
): StoreApi<HistoryState<T>> {
  return createStore<HistoryState<T>>()((set) => ({
    history: startHistory(initial),
    edit: (update, tag = null) =>
      set((s) => ({ history: record(s.history, update(s.history.present), tag, now()) })),
    undo: () => set((s) => ({ history: undo(s.history) })),
    redo: () => set((s) => ({ history: redo(s.history) })),
    reset: (present) => set({ history: startHistory(present) }),
  }));
}
