import { create } from 'zustand';
import type { Me, Workspace } from '../../../shared/schemas/index.ts';
import { api, ApiRequestError, errorMessage, setScope, type Environment } from '../api/client.ts';
import { resetScopedStores, type LoadStatus } from './scope.ts';
import { notifyError } from './toasts.ts';

const ENVIRONMENT_KEY = 'parley.environment';
const WORKSPACE_KEY = 'parley.workspaceId';

function readSetting(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeSetting(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage can be unavailable (private windows, file:// pages); the choice then lasts a session.
  }
}

const storedEnvironment = (): Environment =>
  readSetting(ENVIRONMENT_KEY) === 'live' ? 'live' : 'test';

interface SessionState {
  environment: Environment;
  workspaceId: string | null;
  me: Me | null;
  workspaces: Workspace[];
  status: LoadStatus;
  error: string | null;
  bootstrap: () => Promise<void>;
  setEnvironment: (environment: Environment) => void;
  setWorkspace: (workspaceId: string) => void;
}

export const useSession = create<SessionState>()((set, get) => {
  // Only the latest bootstrap may write: a quick double switch must not end on the first answer.
  let bootstrapSeq = 0;

  const loadMe = async (): Promise<Me> => {
    try {
      return await api.me();
    } catch (e) {
      // A remembered workspace may have been deleted or belong to another data dir: fall back
      // to the core's default workspace rather than locking the user out.
      const stale = e instanceof ApiRequestError && [400, 403, 404].includes(e.status);
      if (!stale || get().workspaceId === null) throw e;
      writeSetting(WORKSPACE_KEY, null);
      set({ workspaceId: null });
      setScope({ workspaceId: null });
      return api.me();
    }
  };

  return {
    environment: storedEnvironment(),
    workspaceId: readSetting(WORKSPACE_KEY),
    me: null,
    workspaces: [],
    status: 'idle',
    error: null,

    bootstrap: async () => {
      const seq = ++bootstrapSeq;
      const { environment, workspaceId, me: previous } = get();
      setScope({ environment, workspaceId });
      set({ status: previous ? 'ready' : 'loading', error: null });
      try {
        const me = await loadMe();
        if (seq !== bootstrapSeq) return;
        if (me.workspace.id !== get().workspaceId) {
          writeSetting(WORKSPACE_KEY, me.workspace.id);
          setScope({ workspaceId: me.workspace.id });
        }
        set({ me, workspaceId: me.workspace.id, status: 'ready' });
      } catch (e) {
        if (seq === bootstrapSeq) set({ status: 'error', error: errorMessage(e) });
        return;
      }
      try {
        const workspaces = await api.workspaces({ limit: 200 });
        if (seq === bootstrapSeq) set({ workspaces: workspaces.data });
      } catch (e) {
        if (seq === bootstrapSeq) notifyError(e);
      }
    },

    setEnvironment: (environment) => {
      if (environment === get().environment) return;
      writeSetting(ENVIRONMENT_KEY, environment);
      setScope({ environment });
      set({ environment });
      resetScopedStores();
      void get().bootstrap();
    },

    setWorkspace: (workspaceId) => {
      if (workspaceId === get().workspaceId) return;
      writeSetting(WORKSPACE_KEY, workspaceId);
      setScope({ workspaceId });
      set({ workspaceId });
      resetScopedStores();
      void get().bootstrap();
    },
  };
});

export const selectWorkspaceName = (s: SessionState): string => s.me?.workspace.name ?? '…';
export const selectIsTestMode = (s: SessionState): boolean => s.environment === 'test';
