import { Fragment, useMemo, type ReactNode } from 'react';
import {
  findMatches,
  parseChat,
  visibleText,
  type ChatSegment,
} from '../../../shared/chat-format.ts';
import './chat-format.css';

/** Search matches to mark in a message: the query, and which occurrence is the current one. */
export interface ChatHighlight {
  query: string;
  /** Index of the current match among this message's matches, or null when it is elsewhere. */
  current: number | null;
}

/** Cuts [from, from + text.length) of the visible text into plain runs and marked matches. */
function marked(
  text: string,
  from: number,
  matches: readonly [number, number][],
  current: number | null,
): ReactNode {
  if (matches.length === 0) return text;
  const to = from + text.length;
  const out: ReactNode[] = [];
  let at = from;
  matches.forEach(([start, end], i) => {
    if (end <= from || start >= to) return;
    const s = Math.max(start, from);
    const e = Math.min(end, to);
    if (s > at) out.push(text.slice(at - from, s - from));
    out.push(
      <mark
        key={s}
        className={i === current ? 'chat-match chat-match-current' : 'chat-match'}
        data-testid={i === current ? 'search-match-current' : 'search-match'}
      >
        {text.slice(s - from, e - from)}
      </mark>,
    );
    at = e;
  });
  if (at < to) out.push(text.slice(at - from));
  return out;
}

/**
 * Draws parsed segments as React elements (never HTML strings), marking search matches. `offset`
 * walks the visible text, so a match may run across a bold word into plain text.
 */
function draw(
  segments: readonly ChatSegment[],
  offset: { at: number },
  matches: readonly [number, number][],
  current: number | null,
): ReactNode[] {
  return segments.map((segment, i) => {
    if ('children' in segment) {
      const inner = draw(segment.children, offset, matches, current);
      if (segment.kind === 'bold') return <strong key={i}>{inner}</strong>;
      if (segment.kind === 'italic') return <em key={i}>{inner}</em>;
      return <s key={i}>{inner}</s>;
    }
    const from = offset.at;
    offset.at += segment.text.length;
    const content = marked(segment.text, from, matches, current);
    switch (segment.kind) {
      case 'code':
        return (
          <code key={i} className="chat-code">
            {content}
          </code>
        );
      case 'monospace':
        return (
          <code key={i} className="chat-mono">
            {content}
          </code>
        );
      case 'link':
        return (
          <a key={i} href={segment.href} target="_blank" rel="noopener noreferrer">
            {content}
          </a>
        );
      default:
        return <Fragment key={i}>{content}</Fragment>;
    }
  });
}

/** A message's text with WhatsApp's formatting (shared/chat-format.ts) and search marks. */
export function ChatText({ text, highlight }: { text: string; highlight?: ChatHighlight | null }) {
  const segments = useMemo(() => parseChat(text), [text]);
  const query = highlight?.query ?? '';
  const visible = useMemo(() => visibleText(segments), [segments]);
  const matches = useMemo(() => (query ? findMatches(visible, query) : []), [visible, query]);
  return <>{draw(segments, { at: 0 }, matches, highlight?.current ?? null)}</>;
}
