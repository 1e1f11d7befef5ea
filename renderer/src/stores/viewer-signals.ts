/**
 * Who else is viewing or typing in which conversation, from the `conversation.viewing` and
 * `conversation.typing` signals (README "Working together"): each one lasts 6 s after it came,
 * so avatars and "is typing…" go away on their own when the signals stop. Pure: times are given.
 */

/** A signal is forgotten this long after it came (the core's receivers' rule). */
export const SIGNAL_TTL_MS = 6_000;
/** Viewing and typing are sent at most this often (the core drops repeats within it). */
export const SIGNAL_EVERY_MS = 3_000;

export type SignalKind = 'viewing' | 'typing';

export interface MemberSignal {
  /** When they came (the order avatars show in). */
  since: number;
  viewedAt: number;
  typedAt: number | null;
}

/** conversation id → member id → their latest signals. */
export type SignalMap = Readonly<Record<string, Readonly<Record<string, MemberSignal>>>>;

export interface ConversationViewer {
  memberId: string;
  typing: boolean;
}

/** The map with one more signal (typing is viewing too). */
export function addSignal(
  map: SignalMap,
  conversationId: string,
  memberId: string,
  kind: SignalKind,
  at: number,
): SignalMap {
  const members = map[conversationId] ?? {};
  const before = members[memberId];
  const next: MemberSignal = {
    since: before?.since ?? at,
    viewedAt: Math.max(before?.viewedAt ?? at, at),
    typedAt: kind === 'typing' ? Math.max(before?.typedAt ?? at, at) : (before?.typedAt ?? null),
  };
  return { ...map, [conversationId]: { ...members, [memberId]: next } };
}

const expired = (at: number, now: number): boolean => now - at >= SIGNAL_TTL_MS;

/**
 * The map without what is older than the TTL: a member whose last signal expired is gone, one
 * who stopped typing but still views stays, not typing (the same map when nothing changed).
 */
export function pruneSignals(map: SignalMap, now: number): SignalMap {
  let changed = false;
  const next: Record<string, Record<string, MemberSignal>> = {};
  for (const [conversationId, members] of Object.entries(map)) {
    const kept: Record<string, MemberSignal> = {};
    for (const [memberId, signal] of Object.entries(members)) {
      // Typing counts as viewing (addSignal), so viewedAt is always the latest of the two.
      if (expired(signal.viewedAt, now)) {
        changed = true;
      } else if (signal.typedAt !== null && expired(signal.typedAt, now)) {
        kept[memberId] = { ...signal, typedAt: null };
        changed = true;
      } else {
        kept[memberId] = signal;
      }
    }
    if (Object.keys(kept).length > 0) next[conversationId] = kept;
  }
  return changed ? next : map;
}

/** When the next signal expires (ms), or null with none. */
export function nextExpiry(map: SignalMap): number | null {
  let soonest: number | null = null;
  for (const members of Object.values(map)) {
    for (const signal of Object.values(members)) {
      const at = (signal.typedAt ?? signal.viewedAt) + SIGNAL_TTL_MS;
      if (soonest === null || at < soonest) soonest = at;
    }
  }
  return soonest;
}

/**
 * Who is in the conversation, in the order they came, and whether they are typing. The map is
 * kept pruned (`pruneSignals` as each signal expires), so what it holds is current.
 */
export function viewersIn(map: SignalMap, conversationId: string): ConversationViewer[] {
  const members = map[conversationId];
  if (!members) return [];
  return Object.entries(members)
    .sort(([a, x], [b, y]) => x.since - y.since || (a < b ? -1 : 1))
    .map(([memberId, s]) => ({ memberId, typing: s.typedAt !== null }));
}

/** "Ana is typing…", "Ana and Ben are typing…", "3 people are typing…"; empty with nobody. */
export function typingText(names: readonly string[]): string {
  if (names.length === 0) return '';
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return `${names.length} people are typing…`;
}

/** "Ana is viewing", "Ana and Ben are viewing", "Ana, Ben and Cy are viewing". */
export function viewingText(names: readonly string[]): string {
  if (names.length === 0) return '';
  const list =
    names.length === 1
      ? names[0]!
      : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
  return `${list} ${names.length === 1 ? 'is' : 'are'} viewing`;
}

/**
 * Lets a signal through at most every `everyMs` per key (per conversation): the composer calls it
 * on each keystroke, the request goes out once every 3 s.
 */
export function createThrottle(everyMs: number, now: () => number) {
  const last = new Map<string, number>();
  return (key: string): boolean => {
    const t = now();
    const previous = last.get(key);
    if (previous !== undefined && t - previous < everyMs) return false;
    last.set(key, t);
    return true;
  };
}
