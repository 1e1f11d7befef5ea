import { create } from 'zustand';
import type { PresenceStatus } from '../../../shared/schemas/index.ts';
import { api, onConnectionSignal, scopeGeneration } from '../api/client.ts';
import { events } from '../api/events.ts';
import { createActivityReporter } from './activity-reporter.ts';
import { useAgents } from './agents.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

/**
 * Who is online, away or offline (README "Working together"): read once with GET /api/presence,
 * then kept by `presence.updated` on the stream. A member not listed is offline.
 */
interface PresenceState {
  statuses: Readonly<Record<string, PresenceStatus>>;
  status: LoadStatus;
  ensureLoaded: () => void;
  load: () => Promise<void>;
  apply: (memberId: string, status: PresenceStatus) => void;
  reset: () => void;
}

export const usePresence = create<PresenceState>()((set, get) => {
  // Changes that came while a read was on its way are newer than its answer.
  let arrivedDuringLoad: Record<string, PresenceStatus> | null = null;

  return {
    statuses: {},
    status: 'idle',

    ensureLoaded: () => {
      if (get().status === 'idle') void get().load();
    },

    load: async () => {
      const generation = scopeGeneration();
      arrivedDuringLoad = {};
      if (get().status !== 'ready') set({ status: 'loading' });
      try {
        const page = await api.presence.list();
        if (generation !== scopeGeneration()) return;
        const statuses: Record<string, PresenceStatus> = {};
        for (const p of page.data) statuses[p.memberId] = p.status;
        set({ statuses: { ...statuses, ...arrivedDuringLoad }, status: 'ready' });
      } catch {
        // Dots stay as they were (or grey): presence is a nicety, never in the way.
        if (generation === scopeGeneration() && get().status !== 'ready') set({ status: 'error' });
      } finally {
        arrivedDuringLoad = null;
      }
    },

    apply: (memberId, status) => {
      if (arrivedDuringLoad) arrivedDuringLoad[memberId] = status;
      if (get().statuses[memberId] === status) return;
      set((s) => ({ statuses: { ...s.statuses, [memberId]: status } }));
    },

    reset: () => {
      arrivedDuringLoad = null;
      set({ statuses: {}, status: 'idle' });
    },
  };
});

registerScopedStore(() => usePresence.getState().reset());

events.subscribeEphemeral('presence.updated', (event) => {
  usePresence.getState().apply(event.data.memberId, event.data.status);
  // A teammate who joined since the assignee list was read: the pickers should offer them.
  useAgents.getState().ensureKnown(event.data.memberId);
});

// Changes are not replayed after a reconnect: read the list again once the stream is back.
onConnectionSignal((signal) => {
  if (signal === 'stream-open' && usePresence.getState().status !== 'idle') {
    void usePresence.getState().load();
  }
});

/** A member's presence; offline when unknown. */
export const selectPresence =
  (memberId: string | null | undefined) =>
  (s: PresenceState): PresenceStatus =>
    (memberId && s.statuses[memberId]) || 'offline';

/**
 * Reports this window's activity to the core while a member is signed in (`active` on input, at
 * most once a minute; `idle` after 5 min without input or when hidden). Returns the stop.
 */
export function startPresenceReporting(): () => void {
  const reporter = createActivityReporter({
    now: () => Date.now(),
    report: (state) => {
      api.presence.report(state).catch(() => {
        // Presence is best effort: the next input or the stream itself says it again.
      });
    },
    setTimer: (run, ms) => window.setTimeout(run, ms),
    clearTimer: (timer) => window.clearTimeout(timer as number),
  });
  const onInput = (): void => {
    if (document.visibilityState === 'visible') reporter.input();
  };
  const onVisibility = (): void => {
    if (document.visibilityState === 'hidden') reporter.hidden();
    else reporter.input();
  };
  const inputs = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart'] as const;
  for (const type of inputs) window.addEventListener(type, onInput, { passive: true });
  window.addEventListener('focus', onInput);
  document.addEventListener('visibilitychange', onVisibility);
  // Opening the app is input: the person is here now.
  onInput();
  return () => {
    reporter.stop();
    for (const type of inputs) window.removeEventListener(type, onInput);
    window.removeEventListener('focus', onInput);
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
