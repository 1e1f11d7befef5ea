/**
 * The note composer's `@` autocomplete: where an `@name` being typed starts, and which members
 * it may mean. The core reads the finished note with shared/mentions.ts; this only helps type a
 * name it will recognise (the full name, inserted as the member spells it).
 */
import type { Mentionable } from '../../../../shared/mentions.ts';

/** Letters, digits and `_`: an `@` right after one is part of a word (an email address). */
const WORD = /[\p{L}\p{N}_]/u;
/** How far back from the caret an `@` may be (the longest name worth completing). */
const MAX_QUERY = 40;

export interface MentionTrigger {
  /** Where the `@` is. */
  start: number;
  /** The caret: the mention typed so far runs from `start` to here. */
  end: number;
  /** What follows the `@` (may hold a space: "Ana Ma"). */
  query: string;
}

/**
 * Case and accents aside, for finding a name as it is typed ("@lopez" finds Ana López); what is
 * inserted is the name as spelled, which the core matches.
 */
const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();

/** The `@name` the caret is in, or null. */
export function mentionTriggerAt(text: string, caret: number): MentionTrigger | null {
  const from = Math.max(0, caret - MAX_QUERY - 1);
  const at = text.lastIndexOf('@', caret - 1);
  if (at < from || at < 0) return null;
  const query = text.slice(at + 1, caret);
  if (query.includes('\n') || /^\s/.test(query)) return null;
  const before = at > 0 ? text.charAt(at - 1) : '';
  if (before && (WORD.test(before) || before === '@')) return null;
  return { start: at, end: caret, query };
}

/**
 * The members the query may mean: those whose name starts with it, then (for one word) those
 * with a later name starting with it ("@lo" → Ana López); by name within each. All for "".
 */
export function matchMembers<M extends Mentionable>(
  members: readonly M[],
  query: string,
  limit = 8,
): M[] {
  const q = fold(query);
  const byName = (a: M, b: M) => a.name.localeCompare(b.name);
  if (!q) return [...members].sort(byName).slice(0, limit);
  const first: M[] = [];
  const later: M[] = [];
  for (const m of members) {
    const name = fold(m.name.trim().replace(/\s+/g, ' '));
    if (name.startsWith(q)) first.push(m);
    else if (!q.includes(' ') && name.split(' ').some((word) => word.startsWith(q))) later.push(m);
  }
  return [...first.sort(byName), ...later.sort(byName)].slice(0, limit);
}

/** The text with the trigger replaced by the member's name and a space, and where the caret goes. */
export function insertMention(
  text: string,
  trigger: MentionTrigger,
  name: string,
): { text: string; caret: number } {
  const inserted = `@${name} `;
  const rest = text.slice(trigger.end);
  // A space already follows: do not add a second one.
  const piece = rest.startsWith(' ') ? inserted.trimEnd() : inserted;
  return {
    text: text.slice(0, trigger.start) + piece + rest,
    caret: trigger.start + piece.length + (rest.startsWith(' ') ? 1 : 0),
  };
}
