import {
  Fragment,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ClipboardEvent,
} from 'react';
import type { Message } from '../../../shared/schemas/index.ts';
import { SERVICE_WINDOW_MS, type MessageListView } from '../stores/message-list.ts';
import type { SearchMatch } from '../stores/thread-search.ts';
import { selectMemberId, useSession } from '../stores/session.ts';
import { notify, notifyError } from '../stores/toasts.ts';
import { ImageViewer } from './media/image-viewer.tsx';
import { hasMedia, type MediaMessage } from './media/message-media.tsx';
import { REACT_WINDOW_CLOSED, type ServiceWindow } from './media/reactions.tsx';
import { dayKey, dayLabel, isNote, MessageBubble } from './message-bubble.tsx';
import { useNow } from './use-now.ts';

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
/** Older pages read, at most, to find a quoted message. */
const JUMP_PAGES = 10;
/** How long a message a quote jumped to stays marked (ms). */
const JUMP_MARK_MS = 1600;

/** The service window as the loaded messages tell it: open until 24 h after the last inbound. */
function windowFromMessages(messages: readonly Message[], now: number): ServiceWindow {
  let last = Number.NEGATIVE_INFINITY;
  for (const m of messages) {
    if (m.direction === 'inbound' && !isNote(m)) last = Math.max(last, Date.parse(m.createdAt));
  }
  return { open: last + SERVICE_WINDOW_MS > now, reason: REACT_WINDOW_CLOSED };
}

/** Whether the signed-in agent wrote `message` (a reply or a note). */
const sentBy = (message: Message, meId: string | null): boolean =>
  (message.direction === 'outbound' || isNote(message)) &&
  message.sentBy === 'agent' &&
  message.agentId === meId;

/** Resolves once React has had a frame to draw what a store just changed. */
const nextFrame = (): Promise<void> =>
  new Promise((resolve) => requestAnimationFrame(() => resolve()));

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
  /** The customer's name, for what they sent (a photo's alt text, a quote's author). */
  contactName?: string | undefined;
  /** Whether the business may write (React); by default read from the loaded messages. */
  serviceWindow?: ServiceWindow | undefined;
  /** Offers "Reply" on each message, handing it to the composer as a quote. */
  onReply?: ((message: Message) => void) | undefined;
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
  contactName,
  serviceWindow,
  onReply,
}: MessageListProps) {
  // A reaction the business sent shows on the message it reacts to, not as a bubble.
  const shown = useMemo(() => messages.filter((m) => m.type !== 'reaction'), [messages]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const anchor = useRef<{ firstId: string | undefined; height: number }>({
    firstId: undefined,
    height: 0,
  });

  const meId = useSession(selectMemberId);
  const lastId = useRef<string | undefined>(undefined);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const last = shown[shown.length - 1];
    // What the agent sends shows where they are typing: the thread goes down to it.
    if (last && lastId.current && last.id !== lastId.current && sentBy(last, meId)) {
      pinned.current = true;
    }
    lastId.current = last?.id;
    const firstId = shown[0]?.id;
    if (anchor.current.firstId && firstId !== anchor.current.firstId && !pinned.current) {
      // Older messages were prepended: keep the one that was on screen where it was.
      el.scrollTop += el.scrollHeight - anchor.current.height;
    } else if (pinned.current) {
      el.scrollTop = el.scrollHeight;
    }
    anchor.current = { firstId, height: el.scrollHeight };
  }, [shown, meId]);

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

  const byId = useMemo(() => new Map(shown.map((m) => [m.id, m])), [shown]);
  const authorOf = useCallback(
    (message: Message): string =>
      message.direction === 'inbound'
        ? (contactName ?? message.phone)
        : (senderOf?.(message) ?? 'You'),
    [contactName, senderOf],
  );

  // The photos the viewer steps through: this conversation's, as far as it is loaded.
  const images = useMemo(
    () =>
      shown.filter(
        (m): m is MediaMessage =>
          hasMedia(m) && m.media.type === 'image' && m.media.status === 'ready',
      ),
    [shown],
  );
  const [viewing, setViewing] = useState<string | null>(null);

  const clock = useNow(60_000);
  const window_ = useMemo(
    () => serviceWindow ?? windowFromMessages(shown, now ?? clock),
    [serviceWindow, shown, now, clock],
  );

  // A quote's click: go to the quoted message, reading older pages until it is loaded.
  const [jump, setJump] = useState<{ id: string; at: number } | null>(null);
  const latest = useRef({ shown, nextCursor, loadOlder });
  useLayoutEffect(() => {
    latest.current = { shown, nextCursor, loadOlder };
  });
  const jumpTo = useCallback(async (id: string) => {
    pinned.current = false;
    for (let page = 0; ; page++) {
      const { shown: loaded, nextCursor: cursor, loadOlder: older } = latest.current;
      if (loaded.some((m) => m.id === id)) {
        setJump({ id, at: Date.now() });
        return;
      }
      if (!cursor || page === JUMP_PAGES) break;
      try {
        await older();
      } catch (e) {
        notifyError(e);
        return;
      }
      for (let frame = 0; frame < 10 && latest.current.shown === loaded; frame++) {
        await nextFrame();
      }
    }
    notify(
      'info',
      latest.current.nextCursor
        ? 'The quoted message is further back than the messages loaded: scroll up to read on.'
        : 'The quoted message is not in this thread.',
    );
  }, []);
  useLayoutEffect(() => {
    if (!jump) return;
    const el = scrollRef.current?.querySelector(`[data-message-id="${CSS.escape(jump.id)}"]`);
    if (!el) return;
    pinned.current = false;
    el.scrollIntoView({ block: 'center' });
  }, [jump]);
  useEffect(() => {
    if (!jump) return;
    const timer = window.setTimeout(() => setJump(null), JUMP_MARK_MS);
    return () => window.clearTimeout(timer);
  }, [jump]);
  const onJump = useCallback((id: string) => void jumpTo(id), [jumpTo]);
  const quoteOf = (message: Message) => {
    if (!message.context) return undefined;
    const quoted = message.context.messageId ? byId.get(message.context.messageId) : undefined;
    return { message: quoted, author: quoted ? authorOf(quoted) : null };
  };

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
    <>
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
        {status === 'loading' && shown.length === 0 ? (
          <p className="wa-placeholder">Loading messages…</p>
        ) : null}
        {status === 'ready' && shown.length === 0 ? (
          <p className="wa-placeholder" data-testid="thread-empty">
            {emptyText}
          </p>
        ) : null}
        {shown.map((message, i) => {
          const previous = shown[i - 1];
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
                author={authorOf(message)}
                quoted={quoteOf(message)}
                onJump={onJump}
                onOpenImage={setViewing}
                serviceWindow={window_}
                onReply={onReply}
                jumped={jump?.id === message.id}
                highlight={
                  search?.query
                    ? {
                        query: search.query,
                        current:
                          search.current?.messageId === message.id
                            ? search.current.occurrence
                            : null,
                      }
                    : null
                }
              />
            </Fragment>
          );
        })}
      </div>
      {viewing !== null && images.some((m) => m.id === viewing) ? (
        <ImageViewer
          images={images}
          startId={viewing}
          authorOf={authorOf}
          onClose={() => setViewing(null)}
        />
      ) : null}
    </>
  );
}
