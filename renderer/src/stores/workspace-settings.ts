import { create } from 'zustand';
import {
  api,
  errorMessage,
  type BusinessHoursBody,
  type BusinessHoursState,
  type Retention,
  type WorkspaceSettings,
  type WorkspaceSettingsBody,
} from '../api/client.ts';
import { createRequestGuard, registerScopedStore, type LoadStatus } from './scope.ts';
import { useSession } from './session.ts';
import { useWallet } from './wallet.ts';

/** One record as loaded: its data, and how its read went. */
interface Loaded<T> {
  data: T | null;
  status: LoadStatus;
  error: string | null;
}

const idle = <T>(): Loaded<T> => ({ data: null, status: 'idle', error: null });

interface WorkspaceSettingsState {
  /** GET /api/workspace/settings: Settings → Workspace, and the Team screen's assignment. */
  settings: Loaded<WorkspaceSettings>;
  /** GET /api/workspace/retention: the desk's periods (read-only). */
  retention: Loaded<Retention>;
  /** GET /settings/business-hours: the hours, open now or not, the next change. */
  hours: Loaded<BusinessHoursState>;
  load: () => Promise<void>;
  loadRetention: () => Promise<void>;
  loadHours: () => Promise<void>;
  saveHours: (body: BusinessHoursBody) => Promise<BusinessHoursState>;
  /** Saves the fields given; the answer is what the core now has (in force at once). */
  update: (patch: WorkspaceSettingsBody) => Promise<WorkspaceSettings>;
  reset: () => void;
}

/**
 * A rename is shown at once wherever the app names the workspace or its business account (the
 * top bar, its workspace picker, previews): the session's copy of them follows the answer.
 */
function showNames(id: string, { name, businessAccountName }: WorkspaceSettings): void {
  useSession.setState((s) => {
    // Another workspace is shown by now: its names are its own.
    if (s.me?.workspace.id !== id) return {};
    return {
      me: {
        ...s.me,
        workspace: { ...s.me.workspace, name },
        businessAccount: { ...s.me.businessAccount, name: businessAccountName },
      },
      workspaces: s.workspaces.map((w) => (w.id === id ? { ...w, name } : w)),
    };
  });
}

/**
 * The workspace's settings, one record for every screen that shows a part of it (Settings →
 * Workspace, Settings → Team), so a change on one is what the other shows.
 */
export const useWorkspaceSettings = create<WorkspaceSettingsState>()((set) => {
  const guards = {
    settings: createRequestGuard(),
    retention: createRequestGuard(),
    hours: createRequestGuard(),
  };

  async function read<K extends keyof typeof guards>(
    key: K,
    fetch: () => Promise<NonNullable<WorkspaceSettingsState[K]['data']>>,
  ): Promise<void> {
    const isCurrent = guards[key].restart();
    set(
      (s) =>
        ({
          [key]: { ...s[key], status: 'loading', error: null },
        }) as Partial<WorkspaceSettingsState>,
    );
    try {
      const data = await fetch();
      if (isCurrent()) set({ [key]: { data, status: 'ready', error: null } });
    } catch (e) {
      if (isCurrent()) {
        set(
          (s) =>
            ({
              [key]: { ...s[key], status: 'error', error: errorMessage(e) },
            }) as Partial<WorkspaceSettingsState>,
        );
      }
    }
  }

  return {
    settings: idle(),
    retention: idle(),
    hours: idle(),

    load: () => read('settings', () => api.workspace.settings()),
    loadRetention: () => read('retention', () => api.workspace.retention()),
    loadHours: () => read('hours', () => api.workspace.businessHours()),

    saveHours: async (body) => {
      const saved = await api.workspace.setBusinessHours(body);
      guards.hours.invalidate();
      set({ hours: { data: saved, status: 'ready', error: null } });
      return saved;
    },

    update: async (patch) => {
      const workspaceId = useSession.getState().me?.workspace.id ?? null;
      const saved = await api.workspace.updateSettings(patch);
      // A read still on its way is older than this answer.
      guards.settings.invalidate();
      set({ settings: { data: saved, status: 'ready', error: null } });
      // The top bar's low-balance warning compares the balance with the threshold.
      if (patch.lowBalanceThresholdMicros !== undefined) void useWallet.getState().refreshBalance();
      if (patch.name !== undefined || patch.businessAccountName !== undefined) {
        if (workspaceId) showNames(workspaceId, saved);
      }
      return saved;
    },

    reset: () => {
      for (const guard of Object.values(guards)) guard.invalidate();
      set({ settings: idle(), retention: idle(), hours: idle() });
    },
  };
});

registerScopedStore(() => useWorkspaceSettings.getState().reset());
