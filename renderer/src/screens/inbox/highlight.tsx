import type { ReactNode } from 'react';
import { findMatches } from '../../../../shared/chat-format.ts';

/**
 * Where the words of a list search occur in `text`: each word (as the search takes them, split on
 * spaces) found case-insensitively, overlapping finds merged, left to right.
 */
export function searchRanges(text: string, query: string): [number, number][] {
  const found = query
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => findMatches(text, word))
    .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const [start, end] of found) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** A match further in than this many characters would be cut off a one-line preview. */
const SNIPPET_LEAD = 24;
/** How much of the text before the first match a shortened preview keeps. */
const SNIPPET_CONTEXT = 10;

/**
 * `text` with the search's words in <mark>: built as React elements from plain strings, so
 * whatever a customer wrote is shown as text, never read as HTML. With `snippet`, a text whose
 * first match lies past what a one-line preview shows starts shortly before it ("…I ordered").
 */
export function Highlighted({
  text: full,
  query,
  snippet = false,
}: {
  text: string;
  query: string;
  snippet?: boolean;
}): ReactNode {
  let text = full;
  let ranges = query ? searchRanges(text, query) : [];
  if (ranges.length === 0) return text;
  if (snippet && ranges[0]![0] > SNIPPET_LEAD) {
    // Start at a word near the match, so the cut does not fall mid-word.
    const from = ranges[0]![0] - SNIPPET_CONTEXT;
    const space = text.indexOf(' ', from);
    let cut = space >= 0 && space < ranges[0]![0] ? space + 1 : from;
    // Never between the two halves of an emoji.
    if (/[\uDC00-\uDFFF]/.test(text[cut] ?? '')) cut -= 1;
    text = `…${text.slice(cut)}`;
    ranges = ranges.map(([s, e]) => [s - cut + 1, e - cut + 1]);
  }
  const out: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) out.push(text.slice(at, start));
    out.push(
      <mark key={start} className="search-hit" data-testid="search-hit">
        {text.slice(start, end)}
      </mark>,
    );
    at = end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}
