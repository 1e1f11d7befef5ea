import { Fragment, useLayoutEffect, useMemo, useRef, type ClipboardEvent } from 'react';
import type { Message } from '../../../shared/schemas/index.ts';
import type { MessageListView } from '../stores/message-list.ts';
import type { SearchMatch } from '../stores/thread-search.ts';
import { notifyError } from '../stores/toasts.ts';
import { dayKey, dayLabel, isNote, MessageBubble } from './message-bubble.tsx';

/** A search to mark in the thread, and the match to show. */
export interface ThreadSearchView {
  query: string;
  current: SearchMatch | null;
}

const BODY_SELECTOR = '[data-testid="message-text"]';

/**
 * What a copy of the selection puts on the clipboard: for each message it touches, the text as
 * written (markers included) when the whole message is selected, else the selected part as
 * shown. Null when the selection touches no message text (the browser's copy is fine then).
 */
function copiedText(container: HTMLElement, messages: readonly Message[]): string | null {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  const bodies = [...container.querySelectorAll<HTMLElement>(BODY_SELECTOR)].filter((body) =>
    range.intersectsNode(body),
  );
  if (bodies.length === 0) return null;
  const byId = new Map(messages.map((m) => [m.id, m.text]));
  return bodies
    .map((body) => {
      const whole = document.createRange();
      whole.selectNodeContents(body);
      const part = range.cloneRange();
      if (part.compareBoundaryPoints(Range.START_TO_START, whole) < 0) {
        part.setStart(whole.startContainer, whole.startOffset);
      }
      if (part.compareBoundaryPoints(Range.END_TO_END, whole) > 0) {
        part.setEnd(whole.endContainer, whole.endOffset);
      }
      const shown = part.toString();
      const id = body.closest('[data-message-id]')?.getAttribute('data-message-id');
      const raw = id ? byId.get(id) : undefined;
      return raw !== undefined && shown === whole.toString() ? raw : shown;
    })
    .join('\n');
}

/** Load older messages once the top is this close (px) while scrolling up (`endless`). */
const LOAD_OLDER_AT = 120;
/** Within this distance (px) of the bottom, the list follows new messages. */
const PINNED_WITHIN = 48;

interface MessageListProps {
  list: MessageListView;
  className: string;
  testId: string;
  /** Shown once loaded when there is no message. */
  emptyText: string;
  /** Loads older pages by itself near the top, and marks where the conversation starts. */
  endless?: boolean;
  /** Who sent an outbound message or wrote a note, labelled once above a run of them. */
  senderOf?: (message: Message) => string | null;
  /** The time "Today" and "Yesterday" are judged against. */
  now?: number;
  /** Matches to mark; the current one is scrolled into view. */
  search?: ThreadSearchView | null;
}

/** A chat, oldest at the top, split by day; stays pinned to the newest unless scrolled up. */
export function MessageList({
  list: { messages, status, nextCursor, loadingOlder, loadOlder },
  className,
  testId,
  emptyText,
  endless = false,
  senderOf,
  now,
  search = null,
}: MessageListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const anchor = useRef<{ firstId: string | undefined; height: number }>({
    firstId: undefined,
    height: 0,
  });

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const firstId = messages[0]?.id;
    if (anchor.current.firstId && firstId !== anchor.current.firstId && !pinned.current) {
      // Older messages were prepended: keep the one that was on screen where it was.
      el.scrollTop += el.scrollHeight - anchor.current.height;
    } else if (pinned.current) {
      el.scrollTop = el.scrollHeight;
    }
    anchor.current = { firstId, height: el.scrollHeight };
  }, [messages]);

  // After the scroll position is settled above: bring the current search match into view.
  const currentMessageId = search?.current?.messageId;
  const currentOccurrence = search?.current?.occurrence;
  useLayoutEffect(() => {
    if (currentMessageId === undefined) return;
    const mark = scrollRef.current?.querySelector('[data-testid="search-match-current"]');
    if (!mark) return;
    pinned.current = false;
    mark.scrollIntoView({ block: 'center' });
  }, [currentMessageId, currentOccurrence, messages]);

  // The lists this thread sent, by id: a customer's pick names the list it came from.
  const sentLists = useMemo(() => {
    const names = new Map<string, string>();
    for (const message of messages) if (message.list) names.set(message.list.id, message.list.name);
    return names;
  }, [messages]);

  const onCopy = (event: ClipboardEvent<HTMLDivElement>) => {
    const text = copiedText(event.currentTarget, messages);
    if (text === null) return;
    event.clipboardData.setData('text/plain', text);
    event.preventDefault();
  };

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < PINNED_WITHIN;
    if (
      endless &&
      el.scrollTop < LOAD_OLDER_AT &&
      nextCursor &&
      !loadingOlder &&
      status === 'ready'
    ) {
      loadOlder().catch(notifyError);
    }
  };

  return (
    <div
      className={className}
      ref={scrollRef}
      onScroll={onScroll}
      onCopy={onCopy}
      data-testid={testId}
    >
      {nextCursor ? (
        <div className="thread-older">
          <button
            type="button"
            className="button button-small"
            disabled={loadingOlder}
            onClick={() => {
              pinned.current = false;
              loadOlder().catch(notifyError);
            }}
            data-testid="load-older"
          >
            {loadingOlder ? 'Loading…' : 'Load older messages'}
          </button>
        </div>
      ) : endless && status === 'ready' && messages.length > 0 ? (
        <div className="thread-start">Start of the conversation</div>
      ) : null}
      {status === 'loading' && messages.length === 0 ? (
        <p className="wa-placeholder">Loading messages…</p>
      ) : null}
      {status === 'ready' && messages.length === 0 ? (
        <p className="wa-placeholder" data-testid="thread-empty">
          {emptyText}
        </p>
      ) : null}
      {messages.map((message, i) => {
        const previous = messages[i - 1];
        const newDay = !previous || dayKey(previous.createdAt) !== dayKey(message.createdAt);
        const sender = senderOf?.(message) ?? null;
        // A run of messages from one sender is labelled once.
        const sameSender =
          !newDay &&
          previous !== undefined &&
          !isNote(previous) &&
          !isNote(message) &&
          previous.direction === message.direction &&
          senderOf?.(previous) === sender;
        return (
          <Fragment key={message.id}>
            {newDay ? (
              <div className="wa-day" data-testid="day-separator">
                {dayLabel(message.createdAt, now)}
              </div>
            ) : null}
            <MessageBubble
              message={message}
              sender={sameSender ? undefined : (sender ?? undefined)}
              listName={message.listReply ? sentLists.get(message.listReply.listId) : undefined}
              highlight={
                search?.query
                  ? {
                      query: search.query,
                      current:
                        search.current?.messageId === message.id ? search.current.occurrence : null,
                    }
                  : null
              }
            />
          </Fragment>
        );
      })}
    </div>
  );
}
