import { create } from 'zustand';
import { errorMessage, isAbortError } from '../api/client.ts';

export type ToastKind = 'error' | 'success' | 'info';

export interface ToastAction {
  label: string;
  onSelect: () => void;
  /**
   * What the action acts on (e.g. the conversation it opens). A notice with an action is counted
   * with an earlier one only when both name the same target: two customers who share a name and
   * a greeting are two notices, each opening its own conversation.
   */
  key?: string;
}

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  action?: ToastAction;
  /** How many times the same notice came while it was shown (1: once). */
  count: number;
}

interface ToastState {
  /** Oldest first. The toaster shows the newest few and folds the rest into "+N more". */
  toasts: Toast[];
  /**
   * The viewport's y (px) the stack must stay above: the top of the inbox's reply composer while
   * it is on screen, so notices never cover Send; null elsewhere.
   */
  floor: number | null;
  /** All notices are shown, not only the newest few (until the stack is short again). */
  expanded: boolean;
  push: (kind: ToastKind, message: string, action?: ToastAction) => void;
  dismiss: (id: number) => void;
  dismissAll: () => void;
  setFloor: (floor: number | null) => void;
  setExpanded: (expanded: boolean) => void;
}

/**
 * How long a notice stays. Errors wait to be read; information and success notices go quickly so
 * a burst of them does not linger over the work.
 */
export const VISIBLE_MS: Record<ToastKind, number> = { error: 8000, success: 3000, info: 4000 };
/** A notice with an action waits a little longer: it may be read after coming back. */
const ACTION_FACTOR = 1.5;
/** Notices shown at once; the rest fold into "+N more". */
export const MAX_VISIBLE_TOASTS = 3;
/** Notices kept at all (the oldest go first). */
const MAX_TOASTS = 20;
let nextId = 1;
const timers = new Map<number, number>();

const lifetime = (kind: ToastKind, action: boolean): number =>
  VISIBLE_MS[kind] * (action ? ACTION_FACTOR : 1);

/**
 * Whether a notice pushed now repeats `shown`: the same kind and words, and either no action on
 * both or actions with the same label that say they act on the same target (without a `key`, two
 * actions may open different things, so they are never counted as one).
 */
function isSameNotice(
  shown: Toast,
  kind: ToastKind,
  message: string,
  action: ToastAction | undefined,
): boolean {
  if (shown.kind !== kind || shown.message !== message) return false;
  if (!shown.action || !action) return !shown.action && !action;
  return (
    shown.action.label === action.label &&
    action.key !== undefined &&
    shown.action.key === action.key
  );
}

export const useToasts = create<ToastState>()((set, get) => {
  const schedule = (id: number, ms: number): void => {
    const old = timers.get(id);
    if (old !== undefined) window.clearTimeout(old);
    timers.set(
      id,
      window.setTimeout(() => get().dismiss(id), ms),
    );
  };
  return {
    toasts: [],
    floor: null,
    expanded: false,
    push: (kind, message, action) => {
      // The same notice again is counted, moved to the front of the stack and given its full
      // time again, not stacked twice (its action, if any, is the newest one).
      const same = get().toasts.find((t) => isSameNotice(t, kind, message, action));
      if (same) {
        const again: Toast = action
          ? { ...same, action, count: same.count + 1 }
          : { ...same, count: same.count + 1 };
        set((s) => ({ toasts: [...s.toasts.filter((t) => t.id !== same.id), again] }));
        schedule(same.id, lifetime(kind, Boolean(action)));
        return;
      }
      const id = nextId++;
      const toast: Toast = action
        ? { id, kind, message, action, count: 1 }
        : { id, kind, message, count: 1 };
      set((s) => {
        const toasts = [...s.toasts, toast];
        for (const gone of toasts.slice(0, Math.max(0, toasts.length - MAX_TOASTS))) {
          window.clearTimeout(timers.get(gone.id));
          timers.delete(gone.id);
        }
        return { toasts: toasts.slice(-MAX_TOASTS) };
      });
      schedule(id, lifetime(kind, Boolean(action)));
    },
    dismiss: (id) => {
      window.clearTimeout(timers.get(id));
      timers.delete(id);
      set((s) => {
        const toasts = s.toasts.filter((t) => t.id !== id);
        // Folded again once the burst is over.
        return { toasts, expanded: s.expanded && toasts.length > MAX_VISIBLE_TOASTS };
      });
    },
    dismissAll: () => {
      for (const timer of timers.values()) window.clearTimeout(timer);
      timers.clear();
      set({ toasts: [], expanded: false });
    },
    setFloor: (floor) => {
      if (get().floor !== floor) set({ floor });
    },
    setExpanded: (expanded) => set({ expanded }),
  };
});

export const notify = (kind: ToastKind, message: string): void =>
  useToasts.getState().push(kind, message);

/** Shows the API's `error.message` (or a plain-language fallback) for a failed action. */
export function notifyError(e: unknown): void {
  if (isAbortError(e)) return;
  notify('error', errorMessage(e));
}
