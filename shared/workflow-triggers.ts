/**
 * How a `message_received` trigger reads a customer's message (design.md §7), shared by the
 * core (which compiles each active workflow's matcher once) and the builder (which can show
 * what would match). Keywords and messages are compared with accents and case aside and spaces
 * collapsed (`normalizeText`): `any` finds a keyword anywhere, `whole_word` as a word (letters
 * and digits around it end it), `exact` as the whole message (punctuation and symbols around it
 * aside: "Order!" is "order"). No keywords: every message matches. No zod, no Node, no DOM.
 */
import type { KeywordMatch } from './workflow-rules.ts';
import { normalizeText } from './workflow-rules.ts';

const EDGES = /^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A compiled keyword test: takes the message as `normalizeText` left it. */
export type KeywordTest = (normalized: string) => boolean;

export function keywordMatcher(
  keywords: readonly string[] | undefined,
  match: KeywordMatch = 'any',
): KeywordTest {
  const words = [...new Set((keywords ?? []).map(normalizeText).filter((k) => k !== ''))];
  if (words.length === 0) return () => true;
  switch (match) {
    case 'exact': {
      const set = new Set(words.map((w) => w.replace(EDGES, '')).filter((w) => w !== ''));
      const all = new Set(words);
      return (text) => all.has(text) || set.has(text.replace(EDGES, ''));
    }
    case 'whole_word': {
      const re = new RegExp(
        `(?<![\\p{L}\\p{N}])(?:${words.map(escape).join('|')})(?![\\p{L}\\p{N}])`,
        'u',
      );
      return (text) => re.test(text);
    }
    case 'any':
      return (text) => words.some((w) => text.includes(w));
  }
}

/** Whether a message matches keywords (both as written): what the builder's preview asks. */
export const matchesKeywords = (
  text: string,
  keywords: readonly string[] | undefined,
  match?: KeywordMatch,
): boolean => keywordMatcher(keywords, match)(normalizeText(text));
