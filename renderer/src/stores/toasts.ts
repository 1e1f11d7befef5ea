import { create } from 'zustand';
import { errorMessage, isAbortError } from '../api/client.ts';

export type ToastKind = 'error' | 'success' | 'info';

export interface ToastAction {
  label: string;
  onSelect: () => void;
}

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  action?: ToastAction;
}

interface ToastState {
  toasts: Toast[];
  push: (kind: ToastKind, message: string, action?: ToastAction) => void;
  dismiss: (id: number) => void;
}

const VISIBLE_MS: Record<ToastKind, number> = { error: 8000, success: 4000, info: 5000 };
const MAX_TOASTS = 4;
let nextId = 1;

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  push: (kind, message, action) => {
    const id = nextId++;
    const toast: Toast = action ? { id, kind, message, action } : { id, kind, message };
    set((s) => ({ toasts: [...s.toasts, toast].slice(-MAX_TOASTS) }));
    // A notice with an action waits longer: it may be read after coming back to the window.
    window.setTimeout(() => get().dismiss(id), VISIBLE_MS[kind] * (action ? 3 : 1));
  },
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
}));

export const notify = (kind: ToastKind, message: string): void =>
  useToasts.getState().push(kind, message);

/** Shows the API's `error.message` (or a plain-language fallback) for a failed action. */
export function notifyError(e: unknown): void {
  if (isAbortError(e)) return;
  notify('error', errorMessage(e));
}
