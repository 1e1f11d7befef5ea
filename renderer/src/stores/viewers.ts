import { create } from 'zustand';
import { api, scopeGeneration } from '../api/client.ts';
import { events } from '../api/events.ts';
import { useAgents } from './agents.ts';
import { registerScopedStore } from './scope.ts';
import {
  addSignal,
  createThrottle,
  nextExpiry,
  pruneSignals,
  SIGNAL_EVERY_MS,
  type SignalKind,
  type SignalMap,
} from './viewer-signals.ts';

/**
 * Who else is viewing or typing in each conversation (README "Working together"): fed by the
 * `conversation.viewing` / `conversation.typing` signals on the stream and, for the conversation
 * just opened, by GET /conversations/:id/viewers. Each signal lasts 6 s; the store forgets it then.
 * The core never sends a member their own signals, so "me" is never here.
 */
interface ViewersState {
  signals: SignalMap;
  /** Names the viewers read gave (the stream carries ids only; the agents list names them too). */
  names: Readonly<Record<string, string>>;
  signal: (conversationId: string, memberId: string, kind: SignalKind, at?: number) => void;
  /** Reads who is in a conversation now (when it opens). */
  loadViewers: (conversationId: string) => Promise<void>;
  reset: () => void;
}

export const useViewers = create<ViewersState>()((set, get) => {
  let timer: number | null = null;

  /** Forgets expired signals, then waits for the next one to expire. */
  const sweep = (): void => {
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
    const now = Date.now();
    const signals = pruneSignals(get().signals, now);
    if (signals !== get().signals) set({ signals });
    const next = nextExpiry(signals);
    if (next !== null) timer = window.setTimeout(sweep, Math.max(0, next - now) + 20);
  };

  return {
    signals: {},
    names: {},

    signal: (conversationId, memberId, kind, at = Date.now()) => {
      set((s) => ({ signals: addSignal(s.signals, conversationId, memberId, kind, at) }));
      sweep();
      useAgents.getState().ensureKnown(memberId);
    },

    loadViewers: async (conversationId) => {
      const generation = scopeGeneration();
      try {
        const page = await api.conversations.viewers(conversationId);
        if (generation !== scopeGeneration()) return;
        // Seen just now, by this window's clock (the core's may differ a little).
        const now = Date.now();
        set((s) => {
          let signals = s.signals;
          const names = { ...s.names };
          for (const v of page.data) {
            signals = addSignal(signals, conversationId, v.memberId, 'viewing', now);
            if (v.typing) signals = addSignal(signals, conversationId, v.memberId, 'typing', now);
            names[v.memberId] = v.name;
          }
          return { signals, names };
        });
        sweep();
      } catch {
        // Nobody shown until the stream says otherwise.
      }
    },

    reset: () => {
      if (timer !== null) window.clearTimeout(timer);
      timer = null;
      set({ signals: {}, names: {} });
    },
  };
});

registerScopedStore(() => useViewers.getState().reset());

events.subscribeEphemeral('conversation.viewing', (event) => {
  useViewers.getState().signal(event.data.conversationId, event.data.memberId, 'viewing');
});
events.subscribeEphemeral('conversation.typing', (event) => {
  useViewers.getState().signal(event.data.conversationId, event.data.memberId, 'typing');
});

const typingThrottle = createThrottle(SIGNAL_EVERY_MS, () => Date.now());

/** The composer's keystroke: tells the others this member is typing (at most every 3 s). */
export function signalTyping(conversationId: string): void {
  if (!typingThrottle(conversationId)) return;
  api.conversations.typing(conversationId).catch(() => {
    // A missed signal only means the others see "typing" a moment later.
  });
}
