/**
 * WhatsApp's chat formatting, as the channel itself applies it, so that what an agent reads is
 * what the customer wrote: `*bold*`, `_italic_`, `~strike~`, ```` ```monospace``` ```` and
 * `` `code` ``, plus links for URLs and e-mail addresses.
 *
 * The rules that keep ids, addresses and arithmetic intact (`ORD_2026_A`, `john_doe_99@x.com`,
 * `2*3*4 = 24`):
 * - a marker opens only after the start, whitespace or punctuation, and before a non-space;
 * - it closes only after a non-space, and before the end, whitespace or punctuation;
 * - bold, italic, strike and code stay on one line; monospace may span lines;
 * - a marker never nests inside itself (other markers may nest: `*_both_*`);
 * - nothing is formatted inside a URL, an e-mail address or a code/monospace span.
 *
 * Pure: no DOM, no Node, so the renderer draws it with React and tests run it anywhere.
 */

export type ChatStyle = 'bold' | 'italic' | 'strike';

export type ChatSegment =
  | { kind: 'text'; text: string }
  | { kind: ChatStyle; children: ChatSegment[] }
  | { kind: 'code' | 'monospace'; text: string }
  | { kind: 'link'; text: string; href: string };

const STYLE_OF = new Map<string, ChatStyle>([
  ['*', 'bold'],
  ['_', 'italic'],
  ['~', 'strike'],
]);

const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;

const isWord = (ch: string | undefined): boolean => ch !== undefined && WORD.test(ch);
const isSpace = (ch: string | undefined): boolean => ch !== undefined && SPACE.test(ch);

/** What may stand before an opening marker: the start, whitespace or punctuation. */
const opensAfter = (text: string, i: number): boolean => i === 0 || !isWord(text[i - 1]);
/** What may stand after a closing marker: the end, whitespace or punctuation. */
const closesBefore = (text: string, i: number): boolean => i >= text.length || !isWord(text[i]);

/** A span the emphasis markers cannot reach into: a link or a code/monospace span. */
interface Atom {
  start: number;
  end: number;
  segment: ChatSegment;
}

// A URL runs to the next whitespace; trailing punctuation belongs to the sentence, not the URL.
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>]+/giu;
const EMAIL_RE = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const TRAILING_PUNCTUATION = /[.,:;!?'")\]}*_~>]+$/u;

function linkAtoms(text: string): Atom[] {
  const atoms: Atom[] = [];
  for (const match of text.matchAll(URL_RE)) {
    const start = match.index ?? 0;
    if (start > 0 && (isWord(text[start - 1]) || text[start - 1] === '@')) continue;
    let url = match[0].replace(TRAILING_PUNCTUATION, '');
    // "(see https://x.org/a_(b))" keeps its balanced closing parenthesis.
    const opened = (url.match(/\(/g) ?? []).length;
    const closed = (url.match(/\)/g) ?? []).length;
    if (opened > closed && match[0].charAt(url.length) === ')') url += ')';
    if (url.length === 0) continue;
    const href = /^www\./i.test(url) ? `https://${url}` : url;
    atoms.push({ start, end: start + url.length, segment: { kind: 'link', text: url, href } });
  }
  for (const match of text.matchAll(EMAIL_RE)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (atoms.some((a) => start < a.end && end > a.start)) continue;
    const address = match[0].replace(/^[._%+-]+/u, '');
    const from = end - address.length;
    atoms.push({
      start: from,
      end,
      segment: { kind: 'link', text: address, href: `mailto:${address}` },
    });
  }
  return atoms.sort((a, b) => a.start - b.start);
}

/**
 * Where a code span (`` `x` ``, one line) or monospace block (```` ```x``` ````) that opens at
 * `i` closes, or -1. Their content is shown verbatim: no markers, no links inside.
 */
function codeEnd(text: string, i: number, fence: string): number {
  const inner = i + fence.length;
  if (!opensAfter(text, i) || inner >= text.length || isSpace(text[inner])) return -1;
  // "``x``" and "````" are runs of backticks, not a span opening with one.
  if (text[inner] === '`') return -1;
  for (let j = text.indexOf(fence, inner + 1); j !== -1; j = text.indexOf(fence, j + 1)) {
    if (fence === '`' && text.slice(inner, j).includes('\n')) return -1;
    // "``` ```" or "`` ``" are not spans; a closing fence is not preceded by a space.
    if (isSpace(text[j - 1])) continue;
    // A longer run of backticks closes on its last fence.
    if (text[j + fence.length] === '`') continue;
    if (fence === '`' && text[j - 1] === '`') continue;
    if (closesBefore(text, j + fence.length)) return j;
  }
  return -1;
}

/** Code spans first (nothing inside them is a link), then links in what is left. */
function findAtoms(text: string): Atom[] {
  const code: Atom[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '`') continue;
    const fence = text.startsWith('```', i) ? '```' : '`';
    const end = codeEnd(text, i, fence);
    if (end === -1) {
      // A run of backticks that does not open a span is literal as a whole.
      while (text[i + 1] === '`') i++;
      continue;
    }
    code.push({
      start: i,
      end: end + fence.length,
      segment: {
        kind: fence === '```' ? 'monospace' : 'code',
        text: text.slice(i + fence.length, end),
      },
    });
    i = end + fence.length - 1;
  }
  const links = linkAtoms(text).filter(
    (link) => !code.some((c) => link.start < c.end && link.end > c.start),
  );
  return [...code, ...links].sort((a, b) => a.start - b.start);
}

interface Parser {
  text: string;
  /** The atom that starts at an index, if any. */
  atomAt: Map<number, Atom>;
}

/** Where the marker opened at `i` closes within [i, end), or -1. */
function closerOf(p: Parser, i: number, end: number): number {
  const { text } = p;
  const marker = text[i]!;
  for (let j = i + 1; j < end; j++) {
    const atom = p.atomAt.get(j);
    if (atom) {
      j = atom.end - 1;
      continue;
    }
    const ch = text[j];
    if (ch === '\n') return -1;
    if (ch !== marker) continue;
    if (j === i + 1 || isSpace(text[j - 1])) continue;
    if (closesBefore(text, j + 1)) return j;
  }
  return -1;
}

function parseRange(p: Parser, from: number, to: number, open: ReadonlySet<string>): ChatSegment[] {
  const out: ChatSegment[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
  };
  for (let i = from; i < to; i++) {
    const atom = p.atomAt.get(i);
    if (atom && atom.end <= to) {
      flush();
      out.push(atom.segment);
      i = atom.end - 1;
      continue;
    }
    const ch = p.text[i]!;
    const style = STYLE_OF.get(ch);
    if (style && !open.has(ch) && opensAfter(p.text, i) && !isSpace(p.text[i + 1])) {
      const close = closerOf(p, i, to);
      if (close !== -1) {
        flush();
        const nested = new Set(open).add(ch);
        out.push({ kind: style, children: parseRange(p, i + 1, close, nested) });
        i = close;
        continue;
      }
    }
    plain += ch;
  }
  flush();
  return out;
}

/** The message as segments to draw; joined back (see `visibleText`) minus the markers. */
export function parseChat(text: string): ChatSegment[] {
  const atomAt = new Map(findAtoms(text).map((a) => [a.start, a]));
  return parseRange({ text, atomAt }, 0, text.length, new Set());
}

/** What a reader sees: the text without the formatting markers. */
export function visibleText(segments: readonly ChatSegment[]): string {
  return segments.map((s) => ('children' in s ? visibleText(s.children) : s.text)).join('');
}

/**
 * The same length as the input, lower-cased where that keeps each character one code unit
 * long, so offsets found in the folded text point into the original.
 */
function fold(text: string): string {
  let out = '';
  for (const ch of text) {
    const lower = ch.toLowerCase();
    out += lower.length === ch.length ? lower : ch;
  }
  return out;
}

/** Case-insensitive occurrences of `query` in `text` as [start, end) offsets, left to right. */
export function findMatches(text: string, query: string): [number, number][] {
  const needle = fold(query.trim());
  if (!needle) return [];
  const haystack = fold(text);
  const found: [number, number][] = [];
  for (
    let i = haystack.indexOf(needle);
    i !== -1;
    i = haystack.indexOf(needle, i + needle.length)
  ) {
    found.push([i, i + needle.length]);
  }
  return found;
}
