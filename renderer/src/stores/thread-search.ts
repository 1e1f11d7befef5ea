/**
 * Search inside the open conversation: the query typed in the thread header and the match the
 * agent is on, which the thread highlights and scrolls to. Matches are found in what the agent
 * reads (formatting markers left out), across the messages loaded so far; older pages are read
 * on demand when the agent steps past the oldest loaded match.
 */
import { create } from 'zustand';
import type { Message } from '../../../shared/schemas/index.ts';
import { findMatches, parseChat, visibleText } from '../../../shared/chat-format.ts';

/** One occurrence: the message and which of its matches (0 = first in its text). */
export interface SearchMatch {
  messageId: string;
  occurrence: number;
}

interface ThreadSearchState {
  /** The conversation the search belongs to; null while closed. */
  conversationId: string | null;
  query: string;
  current: SearchMatch | null;
  /** Older pages are being read to find more matches. */
  searchingOlder: boolean;
  /** Bumped on every request to focus the field (Ctrl/Cmd+F while it is already open). */
  focusRequest: number;
  show: (conversationId: string) => void;
  close: () => void;
  setQuery: (query: string) => void;
  setCurrent: (match: SearchMatch | null) => void;
  setSearchingOlder: (searching: boolean) => void;
}

export const useThreadSearch = create<ThreadSearchState>()((set) => ({
  conversationId: null,
  query: '',
  current: null,
  searchingOlder: false,
  focusRequest: 0,
  show: (conversationId) =>
    set((s) =>
      s.conversationId === conversationId
        ? { focusRequest: s.focusRequest + 1 }
        : {
            conversationId,
            query: '',
            current: null,
            searchingOlder: false,
            focusRequest: s.focusRequest + 1,
          },
    ),
  close: () => set({ conversationId: null, query: '', current: null, searchingOlder: false }),
  setQuery: (query) => set({ query, current: null }),
  setCurrent: (current) => set({ current }),
  setSearchingOlder: (searchingOlder) => set({ searchingOlder }),
}));

// Parsing is cheap but runs for every loaded message on each keystroke: keep the visible text
// of each message text. Bounded, so a long session does not keep every text ever seen.
const visibleCache = new Map<string, string>();
const CACHE_LIMIT = 5000;

function visibleOf(text: string): string {
  let visible = visibleCache.get(text);
  if (visible === undefined) {
    visible = visibleText(parseChat(text));
    if (visibleCache.size >= CACHE_LIMIT) visibleCache.clear();
    visibleCache.set(text, visible);
  }
  return visible;
}

/** Every match of `query` in `messages`, oldest message first. */
export function matchesIn(messages: readonly Message[], query: string): SearchMatch[] {
  if (!query.trim()) return [];
  const out: SearchMatch[] = [];
  for (const message of messages) {
    const count = findMatches(visibleOf(message.text), query).length;
    for (let occurrence = 0; occurrence < count; occurrence++) {
      out.push({ messageId: message.id, occurrence });
    }
  }
  return out;
}

export const sameMatch = (a: SearchMatch | null, b: SearchMatch | null): boolean =>
  a !== null && b !== null && a.messageId === b.messageId && a.occurrence === b.occurrence;
