import { create } from 'zustand';
import type { Right } from '../../../shared/permissions.ts';
import type { Me, Workspace } from '../../../shared/schemas/index.ts';
import {
  api,
  ApiRequestError,
  errorMessage,
  onConnectionSignal,
  scopeGeneration,
  setScope,
  type Environment,
  type LoginBody,
} from '../api/client.ts';
import { events } from '../api/events.ts';
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

/**
 * How the UI stands with the core, beyond one request's error:
 * - `signed_out`: the core refused the session (a browser that has not signed in, or whose
 *   sign-in no longer holds);
 * - `unreachable`: the core does not answer (stopped, restarting); the event stream keeps trying;
 * - `restarted`: it answers again, but it is a new start of the core (its boot id changed);
 * - `stale`: the event stream could not resume where it stopped, so updates were missed.
 */
export type Connection = 'ok' | 'signed_out' | 'unreachable' | 'restarted' | 'stale';

/** Bounds of the /health probe while the core does not answer. */
const PROBE_MIN_MS = 500;
const PROBE_MAX_MS = 5_000;

interface SessionState {
  connection: Connection;
  /** True once the session was accepted in this tab: a later refusal means it has ended. */
  wasSignedIn: boolean;
  environment: Environment;
  workspaceId: string | null;
  me: Me | null;
  workspaces: Workspace[];
  status: LoadStatus;
  error: string | null;
  bootstrap: () => Promise<void>;
  /** A member's sign-in (POST /login), then the app loads as them. */
  signIn: (body: LoginBody) => Promise<void>;
  /** After a sign-in made elsewhere (an accepted invite): drops what was shown, loads afresh. */
  signedIn: () => Promise<void>;
  /** Ends this browser session (POST /logout): the sign-in form shows. */
  signOut: () => Promise<void>;
  /** This session was ended on purpose (signed out, revoked here): nothing of it stays. */
  forget: () => void;
  /**
   * Reads who is signed in again, quietly (an admin may have changed their role or rights since):
   * the screens stay as they are unless someone else is signed in now.
   */
  refreshMe: () => Promise<void>;
  /** Puts a fresher copy of the signed-in member in place (their name, email, password). */
  setMember: (member: SignedInMember) => void;
  setEnvironment: (environment: Environment) => void;
  setWorkspace: (workspaceId: string) => void;
}

export const useSession = create<SessionState>()((set, get) => {
  // Only the latest bootstrap may write: a quick double switch must not end on the first answer.
  let bootstrapSeq = 0;
  // Reads of /api/me under way: their own answer says the core accepts the session again, which
  // must not start yet another bootstrap.
  let readingMe = 0;
  /** The session is accepted again (signed in from another tab): load as on a fresh start. */
  const reloadSignedOut = (): void => {
    if (readingMe === 0) void get().bootstrap();
  };
  let bootId: string | null = null;
  let probeTimer: number | null = null;
  let probeDelay = PROBE_MIN_MS;

  const rememberBoot = (id: string): void => {
    if (bootId === null) bootId = id;
    else if (id !== bootId && get().connection !== 'signed_out') set({ connection: 'restarted' });
  };

  /** One look at /health: the core answers (and is it a new start of it?), or not yet. */
  const checkHealth = (onDown: () => void): void => {
    api.health().then(
      (health) => {
        probeDelay = PROBE_MIN_MS;
        if (get().connection === 'unreachable') set({ connection: 'ok' });
        rememberBoot(health.bootId);
      },
      () => {
        probeDelay = Math.min(PROBE_MAX_MS, probeDelay * 2);
        onDown();
      },
    );
  };

  /** Asks /health until the core answers, then tells a restart from a dropped connection. */
  const probe = (): void => {
    if (probeTimer !== null) return;
    probeTimer = window.setTimeout(() => {
      probeTimer = null;
      checkHealth(() => {
        if (get().connection === 'unreachable') probe();
      });
    }, probeDelay);
  };

  onConnectionSignal((signal) => {
    const { connection } = get();
    if (signal === 'refused') {
      if (connection !== 'signed_out') set({ connection: 'signed_out' });
    } else if (signal === 'stream-open') {
      // The core answers (a refused session is accepted again: load afresh), and every
      // (re)opened stream may be a new start of it, however quickly it came back.
      if (connection === 'signed_out') reloadSignedOut();
      checkHealth(probe);
    } else if (signal === 'stale') {
      if (connection === 'ok') set({ connection: 'stale' });
    } else if (signal === 'unreachable') {
      if (connection === 'ok') set({ connection: 'unreachable' });
      if (get().connection === 'unreachable') probe();
    } else if (connection === 'signed_out') {
      reloadSignedOut();
    } else if (connection === 'unreachable') {
      probe();
    }
  });

  const loadMe = async (): Promise<Me> => {
    readingMe += 1;
    try {
      return await readMe();
    } finally {
      readingMe -= 1;
    }
  };

  const readMe = async (): Promise<Me> => {
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
    connection: 'ok',
    wasSignedIn: false,
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
      if (bootId === null) {
        api.health().then(
          (health) => rememberBoot(health.bootId),
          () => undefined,
        );
      }
      try {
        const me = await loadMe();
        if (seq !== bootstrapSeq) return;
        // Someone else signed in (in this tab or another): nothing of the previous member's stays.
        if (previous && (previous.member?.id ?? null) !== (me.member?.id ?? null)) {
          resetScopedStores();
        }
        if (me.workspace.id !== get().workspaceId) {
          writeSetting(WORKSPACE_KEY, me.workspace.id);
          setScope({ workspaceId: me.workspace.id });
        }
        set({
          me,
          workspaceId: me.workspace.id,
          status: 'ready',
          wasSignedIn: true,
          ...(get().connection === 'signed_out' ? { connection: 'ok' as const } : {}),
        });
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

    signIn: async (body) => {
      await api.auth.login(body);
      await get().signedIn();
    },

    signedIn: async () => {
      resetScopedStores();
      set({ me: null, status: 'loading' });
      await get().bootstrap();
      // The stream was refused meanwhile and is backing off: it may open now.
      events.retryNow();
    },

    signOut: async () => {
      await api.auth.logout();
      get().forget();
    },

    forget: () => {
      resetScopedStores();
      set({ connection: 'signed_out', wasSignedIn: false, me: null, status: 'idle', error: null });
    },

    refreshMe: async () => {
      const { status, connection, me: before } = get();
      if (status !== 'ready' || connection === 'signed_out' || !before) return;
      const generation = scopeGeneration();
      const me = await api.me();
      if (generation !== scopeGeneration() || get().me !== before) return;
      if ((me.member?.id ?? null) !== (before.member?.id ?? null)) return void get().bootstrap();
      // Unchanged (the usual case): nothing re-renders.
      if (JSON.stringify(me) !== JSON.stringify(before)) set({ me });
    },

    setMember: ({ id, name, email, role, canSignIn }) => {
      const { me } = get();
      if (me?.member?.id === id)
        set({ me: { ...me, member: { id, name, email, role, canSignIn } } });
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

/**
 * Re-reads who is signed in whenever the page is shown again, so what it offers follows a role
 * or rights change an admin made meanwhile (the core enforces it from the next request anyway).
 */
export function startMeRefresh(): () => void {
  const onVisible = (): void => {
    if (document.visibilityState === 'visible')
      useSession
        .getState()
        .refreshMe()
        .catch(() => {});
  };
  document.addEventListener('visibilitychange', onVisible);
  window.addEventListener('focus', onVisible);
  return () => {
    document.removeEventListener('visibilitychange', onVisible);
    window.removeEventListener('focus', onVisible);
  };
}

export const selectWorkspaceName = (s: SessionState): string => s.me?.workspace.name ?? '…';
/** The signed-in member (the desktop window's is the workspace's owner). */
export type SignedInMember = NonNullable<Me['member']>;
export const selectMember = (s: SessionState): SignedInMember | null => s.me?.member ?? null;
/** Who "me" is: the Mine filter, "Assign to me", "(you)" beside a name. */
export const selectMemberId = (s: SessionState): string | null => s.me?.member?.id ?? null;
const NO_RIGHTS: readonly Right[] = [];
/** What the signed-in member may do in this environment (the UI hides or disables the rest). */
export const selectRights = (s: SessionState): readonly Right[] => s.me?.rights ?? NO_RIGHTS;
export const selectIsTestMode = (s: SessionState): boolean => s.environment === 'test';
