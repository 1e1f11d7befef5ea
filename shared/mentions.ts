/**
 * `@name` mentions in a private note (design.md §6): the one reading of them, shared by the core
 * (which stores and notifies them) and the UI (which may highlight them as the agent types).
 *
 * An `@` starts a mention at the start of the text or after a character that is not a letter,
 * digit or `@`, so an email address (`ana@example.com`) mentions nobody. What follows is matched
 * case-insensitively against the members' full names, longest first (`@Ana María López` over
 * `@Ana María`), then against first names that only one member has (`@ana` when there is no other
 * Ana). A name must end where a word ends: `@Anaïs` does not mention Ana.
 */

export interface Mentionable {
  id: string;
  name: string;
}

const WORD = /[\p{L}\p{N}_]/u;

const fold = (s: string) => s.normalize('NFC').toLocaleLowerCase();

/** Where a mention is in a text: `[start, end)` covers the `@` and the name. */
export interface MentionRange {
  start: number;
  end: number;
  id: string;
}

/** The names a mention may use, longest first: full names, then first names only one member has. */
function mentionKeys(members: readonly Mentionable[]): { key: string; id: string }[] {
  const names: { key: string; id: string }[] = [];
  const firstNames = new Map<string, string | null>();
  for (const m of members) {
    const full = fold(m.name.trim().replace(/\s+/g, ' '));
    if (!full) continue;
    names.push({ key: full, id: m.id });
    const first = full.split(' ')[0]!;
    // A first name two members share names neither of them.
    firstNames.set(first, firstNames.has(first) && firstNames.get(first) !== m.id ? null : m.id);
  }
  for (const [first, id] of firstNames) {
    if (id !== null && !names.some((n) => n.key === first)) names.push({ key: first, id });
  }
  return names.sort((a, b) => b.key.length - a.key.length);
}

/** Every mention in the folded text, in order (positions are the folded text's). */
function scan(folded: string, members: readonly Mentionable[]): MentionRange[] {
  const names = mentionKeys(members);
  const found: MentionRange[] = [];
  for (let at = folded.indexOf('@'); at >= 0; at = folded.indexOf('@', at + 1)) {
    const before = at > 0 ? folded[at - 1]! : '';
    if (before && (WORD.test(before) || before === '@')) continue;
    const rest = folded.slice(at + 1);
    const hit = names.find(
      (n) => rest.startsWith(n.key) && !WORD.test(rest.charAt(n.key.length) || ' '),
    );
    if (hit) found.push({ start: at, end: at + 1 + hit.key.length, id: hit.id });
  }
  return found;
}

/** The ids of the members the text mentions, once each, in the order they first appear. */
export function findMentions(text: string, members: readonly Mentionable[]): string[] {
  if (!text.includes('@') || members.length === 0) return [];
  const found: string[] = [];
  for (const { id } of scan(fold(text.normalize('NFC')), members)) {
    if (!found.includes(id)) found.push(id);
  }
  return found;
}

/**
 * Where the text's mentions are, for a UI to mark them. Empty when folding the text changes its
 * length (a rare letter whose lower case is longer): positions would not line up, and marking
 * nothing is better than marking the wrong letters.
 */
export function findMentionRanges(text: string, members: readonly Mentionable[]): MentionRange[] {
  if (!text.includes('@') || members.length === 0) return [];
  const folded = fold(text.normalize('NFC'));
  return folded.length === text.length ? scan(folded, members) : [];
}
