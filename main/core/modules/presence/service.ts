/**
 * Who is here and what they are doing (design.md §6 "Working together"): each member's presence
 * (`online`, `away`, `offline`), and who is viewing or typing in a conversation. All of it lives
 * in this process's memory and travels as ephemeral events on the stream (events/hub.ts): never
 * stored, never replayed, never a webhook. Nothing here writes to the database.
 *
 * Presence is derived, on the injected clock, from the member's open event streams and the
 * activity their clients report, per client (a browser session, or the desktop window):
 * - `offline`: no client of theirs has an event stream open;
 * - `online`: a client with a stream open had input in the last 5 minutes and did not say idle;
 * - `away`: streams open, but no such input.
 * Each transition is published as `presence.updated` to the workspace's streams.
 */
import type { PresenceStatus } from '../../../../shared/schemas/events.ts';
import type { Hub } from '../../events/hub.ts';
import type { Clock, Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { MembersService } from '../members/service.ts';

/** No input for this long: away. */
export const AWAY_AFTER_MS = 5 * 60_000;
/** A client sends viewing/typing at most this often; repeats within it are dropped here too. */
export const ACTIVITY_EVERY_MS = 3_000;
/** Receivers forget a viewing/typing signal this long after it came. */
export const ACTIVITY_TTL_MS = 6_000;
/** How often away transitions and stale signals are looked for while anyone is tracked. */
const SWEEP_MS = 5_000;

const ENVIRONMENTS = ['test', 'live'] as const;

/** A signed-in member's client, as the routes know it from the principal. */
export interface PresenceClient {
  workspaceId: string;
  memberId: string;
  name: string;
  /** The browser session's id, or `desktop` for the desktop window. */
  clientId: string;
}

interface ClientState {
  streams: number;
  lastActiveAt: number;
  /** The client said its person is idle (no input), until it reports activity again. */
  idle: boolean;
}

interface MemberState {
  workspaceId: string;
  clients: Map<string, ClientState>;
  status: PresenceStatus;
  lastActiveAt: number;
}

interface Signal {
  name: string;
  viewedAt: number;
  typedAt: number | null;
  /** When this member's viewing / typing was last published for the conversation. */
  viewingSentAt: number;
  typingSentAt: number;
}

export interface MemberPresence {
  memberId: string;
  status: PresenceStatus;
  lastActiveAt: string | null;
}

export interface Viewer {
  memberId: string;
  name: string;
  typing: boolean;
  lastSeenAt: string;
}

export function presenceService(d: {
  clock: Clock;
  hub: Pick<Hub, 'publish'>;
  members: Pick<MembersService, 'agents'>;
}) {
  const { clock, hub } = d;
  const members = new Map<string, MemberState>();
  /** conversationId → memberId → what they did there lately. */
  const signals = new Map<string, Map<string, Signal>>();
  let timer: NodeJS.Timeout | null = null;

  function statusOf(m: MemberState, now: number): PresenceStatus {
    let open = false;
    for (const c of m.clients.values()) {
      if (c.streams === 0) continue;
      open = true;
      if (!c.idle && now - c.lastActiveAt < AWAY_AFTER_MS) return 'online';
    }
    return open ? 'away' : 'offline';
  }

  /** Re-derives a member's status; a change goes to every stream of their workspace. */
  function settle(memberId: string, m: MemberState, now: number): PresenceStatus {
    const status = statusOf(m, now);
    if (status !== m.status) {
      m.status = status;
      for (const environment of ENVIRONMENTS) {
        hub.publish({ workspaceId: m.workspaceId, environment }, 'presence.updated', {
          memberId,
          status,
        });
      }
    }
    return status;
  }

  function stateOf(who: PresenceClient, now: number): { m: MemberState; c: ClientState } {
    let m = members.get(who.memberId);
    if (!m) {
      m = {
        workspaceId: who.workspaceId,
        clients: new Map(),
        status: 'offline',
        lastActiveAt: now,
      };
      members.set(who.memberId, m);
    }
    let c = m.clients.get(who.clientId);
    if (!c) {
      c = { streams: 0, lastActiveAt: now, idle: false };
      m.clients.set(who.clientId, c);
    }
    keepSweeping();
    return { m, c };
  }

  function keepSweeping() {
    if (timer) return;
    timer = setInterval(sweep, SWEEP_MS);
    timer.unref();
  }

  /**
   * Publishes the transitions time made (online → away), and forgets clients without a stream
   * whose activity has gone stale and viewing/typing signals past their 6 s.
   */
  function sweep(): void {
    const now = clock.now();
    for (const [memberId, m] of members) {
      for (const [id, c] of m.clients) {
        if (c.streams === 0 && now - c.lastActiveAt >= AWAY_AFTER_MS) m.clients.delete(id);
      }
      settle(memberId, m, now);
      if (m.clients.size === 0) members.delete(memberId);
    }
    for (const [conversationId, byMember] of signals) {
      for (const [memberId, s] of byMember) {
        if (now - s.viewedAt >= ACTIVITY_TTL_MS) byMember.delete(memberId);
      }
      if (byMember.size === 0) signals.delete(conversationId);
    }
    if (members.size === 0 && signals.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  }

  /** Publishes a viewing or typing signal unless the same one went out in the last 3 s. */
  function signal(
    scope: Scope,
    who: PresenceClient,
    conversationId: string,
    kind: 'viewing' | 'typing',
  ): boolean {
    const now = clock.now();
    let byMember = signals.get(conversationId);
    if (!byMember) signals.set(conversationId, (byMember = new Map()));
    let s = byMember.get(who.memberId);
    if (!s) {
      s = {
        name: who.name,
        viewedAt: now,
        typedAt: null,
        viewingSentAt: -Infinity,
        typingSentAt: -Infinity,
      };
      byMember.set(who.memberId, s);
    }
    s.name = who.name;
    s.viewedAt = now;
    if (kind === 'typing') s.typedAt = now;
    keepSweeping();
    const sentAt = kind === 'typing' ? s.typingSentAt : s.viewingSentAt;
    if (now - sentAt < ACTIVITY_EVERY_MS) return false;
    if (kind === 'typing') s.typingSentAt = now;
    else s.viewingSentAt = now;
    // Typing is input: the member is here. (An open conversation is not: it may be left open.)
    const m = kind === 'typing' ? members.get(who.memberId) : undefined;
    const c = m?.clients.get(who.clientId);
    if (m && c) {
      c.lastActiveAt = now;
      c.idle = false;
      m.lastActiveAt = now;
      settle(who.memberId, m, now);
    }
    const type = kind === 'typing' ? 'conversation.typing' : 'conversation.viewing';
    // Everyone in the scope hears it but the member who sent it (all of their windows).
    hub.publish(
      scope,
      type,
      { conversationId, memberId: who.memberId },
      { exclude: [who.memberId] },
    );
    return true;
  }

  return {
    /** One more event stream of this client: opening the desk counts as input. */
    streamOpened(who: PresenceClient): void {
      const now = clock.now();
      const { m, c } = stateOf(who, now);
      c.streams++;
      c.lastActiveAt = now;
      c.idle = false;
      m.lastActiveAt = now;
      settle(who.memberId, m, now);
    },

    /** A stream of this client closed: with none left anywhere, the member is offline at once. */
    streamClosed(who: PresenceClient): void {
      const m = members.get(who.memberId);
      const c = m?.clients.get(who.clientId);
      if (!m || !c) return;
      c.streams = Math.max(0, c.streams - 1);
      settle(who.memberId, m, clock.now());
    },

    /** `POST /api/presence`: the client had input (`active`) or has had none for a while (`idle`). */
    report(who: PresenceClient, state: 'active' | 'idle'): PresenceStatus {
      const now = clock.now();
      const { m, c } = stateOf(who, now);
      c.idle = state === 'idle';
      if (state === 'active') {
        c.lastActiveAt = now;
        m.lastActiveAt = now;
      }
      return settle(who.memberId, m, now);
    },

    /** A member's status now (transitions time made are published on the way). */
    statusOf(memberId: string): PresenceStatus {
      const m = members.get(memberId);
      return m ? settle(memberId, m, clock.now()) : 'offline';
    },

    /** Every member of the workspace (deactivated ones aside) with their status. */
    list(workspaceId: string): MemberPresence[] {
      const now = clock.now();
      return d.members
        .agents(workspaceId)
        .filter((a) => a.active)
        .map((a) => {
          const m = members.get(a.id);
          return {
            memberId: a.id,
            status: m ? settle(a.id, m, now) : 'offline',
            lastActiveAt: m ? isoOrNull(m.lastActiveAt) : null,
          };
        });
    },

    /** The workspace's members who are online now. */
    online(workspaceId: string): Set<string> {
      const now = clock.now();
      const out = new Set<string>();
      for (const [memberId, m] of members) {
        if (m.workspaceId === workspaceId && settle(memberId, m, now) === 'online') {
          out.add(memberId);
        }
      }
      return out;
    },

    sweep,

    /** `POST /conversations/:id/viewing`; false when dropped as a repeat within 3 s. */
    viewing: (scope: Scope, who: PresenceClient, conversationId: string): boolean =>
      signal(scope, who, conversationId, 'viewing'),

    /** `POST /conversations/:id/typing`; false when dropped as a repeat within 3 s. */
    typing: (scope: Scope, who: PresenceClient, conversationId: string): boolean =>
      signal(scope, who, conversationId, 'typing'),

    /** Who else viewed the conversation in the last 6 s (and typed in it, when they did). */
    viewers(conversationId: string, exceptMemberId: string | null): Viewer[] {
      const now = clock.now();
      const byMember = signals.get(conversationId);
      if (!byMember) return [];
      const out: Viewer[] = [];
      for (const [memberId, s] of byMember) {
        if (memberId === exceptMemberId || now - s.viewedAt >= ACTIVITY_TTL_MS) continue;
        out.push({
          memberId,
          name: s.name,
          typing: s.typedAt !== null && now - s.typedAt < ACTIVITY_TTL_MS,
          lastSeenAt: iso(s.viewedAt),
        });
      }
      return out.sort(
        (a, b) => a.name.localeCompare(b.name) || a.memberId.localeCompare(b.memberId),
      );
    },

    /** Stops the sweep (the core's shutdown). */
    stop(): void {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
export type PresenceService = ReturnType<typeof presenceService>;
