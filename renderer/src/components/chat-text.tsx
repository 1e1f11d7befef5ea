import { Fragment, useMemo, type ReactNode } from 'react';
import {
  findMatches,
  parseChat,
  visibleText,
  type ChatSegment,
} from '../../../shared/chat-format.ts';
import { findMentionRanges, type Mentionable } from '../../../shared/mentions.ts';
import './chat-format.css';

/** Search matches to mark in a message: the query, and which occurrence is the current one. */
export interface ChatHighlight {
  query: string;
  /** Index of the current match among this message's matches, or null when it is elsewhere. */
  current: number | null;
}

/** A note's mentions to mark: the members its names may mean, and the ids the core found. */
export interface ChatMentions {
  members: readonly Mentionable[];
  ids: readonly string[];
}

type Ranges = readonly [number, number][];

/**
 * Cuts [from, from + text.length) of the visible text at the mentions, each mention in its own
 * span, and marks the search matches in every piece.
 */
function withMentions(
  text: string,
  from: number,
  mentions: Ranges,
  matches: Ranges,
  current: number | null,
): ReactNode {
  const to = from + text.length;
  const inside = mentions.filter(([start, end]) => end > from && start < to);
  if (inside.length === 0) return marked(text, from, matches, current);
  const out: ReactNode[] = [];
  let at = from;
  for (const [start, end] of inside) {
    const s = Math.max(start, from);
    const e = Math.min(end, to);
    if (s > at) {
      out.push(
        <Fragment key={`text-${at}`}>
          {marked(text.slice(at - from, s - from), at, matches, current)}
        </Fragment>,
      );
    }
    out.push(
      <span key={`mention-${s}`} className="mention" data-testid="mention">
        {marked(text.slice(s - from, e - from), s, matches, current)}
      </span>,
    );
    at = e;
  }
  if (at < to) {
    out.push(
      <Fragment key={`text-${at}`}>{marked(text.slice(at - from), at, matches, current)}</Fragment>,
    );
  }
  return out;
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
  matches: Ranges,
  current: number | null,
  mentions: Ranges,
): ReactNode[] {
  return segments.map((segment, i) => {
    if ('children' in segment) {
      const inner = draw(segment.children, offset, matches, current, mentions);
      if (segment.kind === 'bold') return <strong key={i}>{inner}</strong>;
      if (segment.kind === 'italic') return <em key={i}>{inner}</em>;
      return <s key={i}>{inner}</s>;
    }
    const from = offset.at;
    offset.at += segment.text.length;
    const content = withMentions(segment.text, from, mentions, matches, current);
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

const NO_RANGES: Ranges = [];

/**
 * A message's text with WhatsApp's formatting (shared/chat-format.ts), search marks, and a
 * note's `@name` mentions (shared/mentions.ts reads them as the core did).
 */
export function ChatText({
  text,
  highlight,
  mentions,
}: {
  text: string;
  highlight?: ChatHighlight | null;
  mentions?: ChatMentions | null;
}) {
  const segments = useMemo(() => parseChat(text), [text]);
  const query = highlight?.query ?? '';
  const visible = useMemo(() => visibleText(segments), [segments]);
  const matches = useMemo(() => (query ? findMatches(visible, query) : []), [visible, query]);
  const marks = useMemo<Ranges>(() => {
    if (!mentions || mentions.ids.length === 0) return NO_RANGES;
    return findMentionRanges(visible, mentions.members)
      .filter((r) => mentions.ids.includes(r.id))
      .map((r) => [r.start, r.end]);
  }, [visible, mentions]);
  return <>{draw(segments, { at: 0 }, matches, highlight?.current ?? null, marks)}</>;
}
