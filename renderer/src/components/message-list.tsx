import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import {
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
import './message-list.css';

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
/** How near its end (px) a thread counts as read at the end. */
const AT_END_PX = 24;
/** How many frames a resized thread is held at its end while its rows are measured again. */
const HOLD_END_FRAMES = 20;
/** Rows drawn beyond each edge of the view. */
const OVERSCAN = 6;
/** Space between rows (px), as the thread's flex gap was. */
const ROW_GAP = 6;
/** Space below the newest message (px): the rows' box holds it, so "the end" includes it. */
const BOTTOM_SPACE = 16;
/**
 * A thread of up to this many rows (its first page) is drawn whole: cheap, and every message
 * of a short thread stays in the page. A longer one is drawn only around the view.
 */
const DRAWN_WHOLE = 30;

const rowsToDraw = (range: Range): number[] =>
  range.count <= DRAWN_WHOLE
    ? Array.from({ length: range.count }, (_, i) => i)
    : defaultRangeExtractor(range);

/** A row's likely height before it is drawn and measured (px). */
function estimateHeight(message: Message): number {
  const lines = Math.ceil(message.text.length / 48) + message.text.split('\n').length - 1;
  const text = 22 + 19 * Math.max(1, lines);
  const caption = message.text ? text : 0;
  switch (message.media?.type) {
    case 'image':
      return 205 + caption;
    case 'video':
      return 160 + caption;
    case 'sticker':
      return 150;
    case 'audio':
      return 64;
    case 'document':
      return 80 + caption;
    default:
      break;
  }
  if (message.type === 'location') return 110;
  if (message.type === 'contacts') return 24 + 100 * (message.contacts?.length ?? 1);
  return text;
}
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
  // What the thread holds now, for work that spans renders (reading older pages, scrolling).
  const latest = useRef({ shown, nextCursor, loadOlder });
  useLayoutEffect(() => {
    latest.current = { shown, nextCursor, loadOlder };
  });
  const scrollRef = useRef<HTMLDivElement>(null);
  const rowsRef = useRef<HTMLDivElement>(null);
  // Where the rows start inside the scroll box (below its padding): the virtualiser counts it in.
  const [rowsTop, setRowsTop] = useState(0);
  useLayoutEffect(() => {
    const rows = rowsRef.current;
    const box = scrollRef.current;
    if (!rows || !box) return;
    const top = Math.round(
      rows.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop,
    );
    if (top !== rowsTop) setRowsTop(top);
  }, [rowsTop, status, shown.length, nextCursor, endless]);

  // One row per message. Past the first page only the rows in view, and a few either side, are
  // drawn: a thread of hundreds of photos keeps a few dozen elements however long it grows.
  // The virtualiser's instance is stable; its methods are fresh each render by design, and
  // nothing here is memoised on them.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => estimateHeight(shown[index]!),
    getItemKey: (index) => shown[index]!.id,
    overscan: OVERSCAN,
    rangeExtractor: rowsToDraw,
    gap: ROW_GAP,
    paddingEnd: BOTTOM_SPACE,
    scrollMargin: rowsTop,
    // A chat: a page of older messages keeps the row being read in place, and at the end the
    // thread follows what arrives.
    anchorTo: 'end',
    followOnAppend: true,
  });

  /**
   * Brings a message into view (a search match, a quote's target): its row first, so that it
   * is drawn, then `selector` inside it to the middle of the thread.
   */
  const reveal = useCallback(
    async (id: string, selector: string) => {
      for (let frame = 0; frame < 12; frame++) {
        const el = scrollRef.current?.querySelector(selector);
        if (el) {
          el.scrollIntoView({ block: 'center' });
          return;
        }
        const index = latest.current.shown.findIndex((m) => m.id === id);
        if (index < 0) return;
        virtualizer.scrollToIndex(index, { align: 'center' });
        await nextFrame();
      }
    },
    [virtualizer],
  );

  // What the agent sends shows where they are typing: the thread goes down to it.
  const meId = useSession(selectMemberId);
  const lastId = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    const last = shown[shown.length - 1];
    if (last && lastId.current && last.id !== lastId.current && sentBy(last, meId)) {
      virtualizer.scrollToIndex(shown.length - 1, { align: 'end' });
    }
    lastId.current = last?.id;
  }, [shown, meId, virtualizer]);

  // Bring the current search match into view, once each time it changes.
  const currentMessageId = search?.current?.messageId;
  const currentOccurrence = search?.current?.occurrence;
  useLayoutEffect(() => {
    if (currentMessageId === undefined) return;
    void reveal(currentMessageId, '[data-testid="search-match-current"]');
  }, [currentMessageId, currentOccurrence, reveal]);

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
  const jumpTo = useCallback(async (id: string) => {
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
    if (jump) void reveal(jump.id, `[data-message-id="${CSS.escape(jump.id)}"]`);
  }, [jump, reveal]);
  useEffect(() => {
    if (!jump) return;
    const timer = window.setTimeout(() => setJump(null), JUMP_MARK_MS);
    return () => window.clearTimeout(timer);
  }, [jump]);
  const onJump = useCallback((id: string) => void jumpTo(id), [jumpTo]);
  // What each reply quotes, kept from render to render so that unchanged bubbles are not drawn
  // again while the thread scrolls.
  const quotes = useMemo(() => {
    const out = new Map<string, { message: Message | undefined; author: string | null }>();
    for (const message of shown) {
      if (!message.context) continue;
      const id = message.context.messageId;
      const quoted = id ? byId.get(id) : undefined;
      out.set(message.id, { message: quoted, author: quoted ? authorOf(quoted) : null });
    }
    return out;
  }, [shown, byId, authorOf]);

  const onCopy = (event: ClipboardEvent<HTMLDivElement>) => {
    const text = copiedText(event.currentTarget, messages);
    if (text === null) return;
    event.clipboardData.setData('text/plain', text);
    event.preventDefault();
  };

  // Older pages load near the top (`endless`), once the thread has first been shown at its end;
  // checked on scroll and again after each page, since a page that lands above the view does
  // not always move it (no scroll event would come to ask for the next).
  const shownAtEnd = useRef(false);
  const loadOlderNearTop = useCallback(() => {
    const el = scrollRef.current;
    if (!el || !endless || status !== 'ready') return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < LOAD_OLDER_AT) shownAtEnd.current = true;
    if (shownAtEnd.current && el.scrollTop < LOAD_OLDER_AT && nextCursor && !loadingOlder) {
      loadOlder().catch(notifyError);
    }
  }, [endless, status, nextCursor, loadingOlder, loadOlder]);
  useEffect(() => {
    if (shown.length === 0) shownAtEnd.current = false;
    else if (!loadingOlder) loadOlderNearTop();
  }, [shown.length, loadingOlder, loadOlderNearTop]);

  // A thread read at its end stays there when its box changes size (a window resize rewraps
  // every row; the simulator strip opens or closes): the rows are measured again over a few
  // frames, so it is held at the end for those frames. Scrolled up, it is left where it is.
  const atEnd = useRef(true);
  const holdingEnd = useRef(false);
  const onScroll = () => {
    const el = scrollRef.current;
    if (el && !holdingEnd.current) {
      atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= AT_END_PX;
    }
    loadOlderNearTop();
  };
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    let frame = 0;
    let first = true;
    const observer = new ResizeObserver(() => {
      // The first call only reports the size the box opened with.
      if (first) return void (first = false);
      if (!atEnd.current) return;
      cancelAnimationFrame(frame);
      let frames = HOLD_END_FRAMES;
      holdingEnd.current = true;
      const hold = () => {
        el.scrollTop = el.scrollHeight;
        if (--frames > 0) frame = requestAnimationFrame(hold);
        else holdingEnd.current = false;
      };
      hold();
    });
    // The agent scrolling (wheel, touch, keys, the scrollbar) takes over at once.
    const letGo = () => {
      cancelAnimationFrame(frame);
      holdingEnd.current = false;
    };
    const inputs = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;
    for (const type of inputs) el.addEventListener(type, letGo, { passive: true });
    observer.observe(el);
    return () => {
      observer.disconnect();
      for (const type of inputs) el.removeEventListener(type, letGo);
      letGo();
    };
  }, []);

  const head = nextCursor ? (
    <div className="thread-older">
      <button
        type="button"
        className="button button-small"
        disabled={loadingOlder}
        onClick={() => loadOlder().catch(notifyError)}
        data-testid="load-older"
      >
        {loadingOlder ? 'Loading…' : 'Load older messages'}
      </button>
    </div>
  ) : endless && status === 'ready' && shown.length > 0 ? (
    <div className="thread-start">Start of the conversation</div>
  ) : null;

  const row = (index: number) => {
    const message = shown[index]!;
    const previous = shown[index - 1];
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
      <>
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
          quoted={quotes.get(message.id)}
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
                    search.current?.messageId === message.id ? search.current.occurrence : null,
                }
              : null
          }
        />
      </>
    );
  };

  return (
    <>
      <div
        className={`${className} message-list`}
        ref={scrollRef}
        onScroll={onScroll}
        onCopy={onCopy}
        data-testid={testId}
      >
        {head}
        {status === 'loading' && shown.length === 0 ? (
          <p className="wa-placeholder">Loading messages…</p>
        ) : null}
        {status === 'ready' && shown.length === 0 ? (
          <p className="wa-placeholder" data-testid="thread-empty">
            {emptyText}
          </p>
        ) : null}
        <div ref={rowsRef} className="thread-rows" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => (
            <div
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              className="thread-row"
              style={{
                transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)`,
              }}
            >
              {row(item.index)}
            </div>
          ))}
        </div>
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
