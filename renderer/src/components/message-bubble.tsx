import { memo, useEffect, useId, useMemo, useState } from 'react';
import { findMatches, parseChat, visibleText } from '../../../shared/chat-format.ts';
import type { InteractiveList, Message } from '../../../shared/schemas/index.ts';
import { formatMicros } from '../../../shared/money.ts';
import { useAgents } from '../stores/agents.ts';
import { useInteractiveLists } from '../stores/interactive-lists.ts';
import { notify } from '../stores/toasts.ts';
import { ChatText, type ChatHighlight, type ChatMentions } from './chat-text.tsx';
import { formatDate } from './format.ts';
import { CopyIcon, ListIcon, ReplyIcon } from './icons.tsx';
import { ListButton, ListSections } from './interactive-list.tsx';
import { ContactCards } from './media/contact-cards.tsx';
import { LocationCard } from './media/location-card.tsx';
import { hasMedia, MessageMedia } from './media/message-media.tsx';
import { QuotedMessage } from './media/quoted-message.tsx';
import { ReactButton, ReactionBadge, type ServiceWindow } from './media/reactions.tsx';
import { Ticks } from './ticks.tsx';
import { formatClock } from './format.ts';

export const dayKey = (iso: string): string => new Date(iso).toDateString();

/** "Today", "Yesterday" or the date: the separators between a thread's days. */
export function dayLabel(iso: string, now = Date.now()): string {
  const day = new Date(iso);
  const today = new Date(now);
  const yesterday = new Date(now - 86_400_000);
  if (day.toDateString() === today.toDateString()) return 'Today';
  if (day.toDateString() === yesterday.toDateString()) return 'Yesterday';
  return formatDate(iso);
}

export const isNote = (message: Message): boolean =>
  message.type === 'note' || message.status === 'note';

/**
 * Copies the message exactly as written, markers included, so an order id or an address is
 * never copied as the formatted text shows it.
 */
function CopyButton({ text }: { text: string }) {
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => notify('success', 'Message copied'),
      () => notify('error', 'The message could not be copied: select its text instead.'),
    );
  };
  return (
    <button
      type="button"
      className="wa-copy"
      aria-label="Copy message text"
      title="Copy message text"
      onClick={copy}
      data-testid="copy-message"
    >
      <CopyIcon />
    </button>
  );
}

interface NoteProps {
  message: Message;
  sender?: string | undefined;
  highlight?: ChatHighlight | null | undefined;
}

/** The members a note's `@name`s mean, as the core read them (its active members). */
function useNoteMentions(ids: readonly string[]): ChatMentions | null {
  const agents = useAgents((s) => s.agents);
  return useMemo(
    () => (ids.length > 0 ? { members: agents.filter((a) => a.active), ids } : null),
    [agents, ids],
  );
}

/**
 * An internal note: seen by agents only, never sent to the contact, so it has no ticks. The
 * teammates it mentions stand out.
 */
function Note({ message, sender, highlight }: NoteProps) {
  const mentions = useNoteMentions(message.mentions);
  return (
    <div
      className="wa-note"
      data-testid="message"
      data-direction="note"
      data-message-id={message.id}
    >
      <span className="wa-note-label">
        Private note{sender ? <span className="wa-note-sender"> · {sender}</span> : null}
      </span>
      <span className="wa-body" data-testid="message-text">
        <ChatText text={message.text} highlight={highlight} mentions={mentions} />
      </span>
      <span className="wa-note-meta">
        <CopyButton text={message.text} />
        <time dateTime={message.createdAt} title={new Date(message.createdAt).toLocaleString()}>
          {formatClock(new Date(message.createdAt))}
        </time>
      </span>
    </div>
  );
}

/**
 * A sent list's text: its header in bold, its body, its footer in grey. The message's text is
 * these joined (shared/list-rules.ts `listText`), which search counts matches in: each part
 * marks its share of them.
 */
function ListText({
  list,
  highlight,
}: {
  list: InteractiveList;
  highlight: ChatHighlight | null | undefined;
}) {
  const parts = [
    { text: list.header, className: 'wa-header' },
    { text: list.body, className: undefined },
    { text: list.footer, className: 'wa-footer' },
  ].filter((part): part is { text: string; className: string | undefined } =>
    Boolean(part.text?.trim()),
  );
  let before = 0;
  return (
    <>
      {parts.map((part, i) => {
        const count = highlight?.query
          ? findMatches(visibleText(parseChat(part.text)), highlight.query).length
          : 0;
        const current = highlight?.current ?? null;
        const mine = current !== null && current >= before && current < before + count;
        const offset = before;
        before += count;
        return (
          <div key={i} className={part.className}>
            <ChatText
              text={part.text}
              highlight={
                highlight
                  ? { query: highlight.query, current: mine ? current - offset : null }
                  : null
              }
            />
          </div>
        );
      })}
    </>
  );
}

/** Under a sent list's text: its button, which shows the rows as they were sent. */
function SentListRows({ list }: { list: InteractiveList }) {
  const [expanded, setExpanded] = useState(false);
  const rowsId = useId();
  return (
    <>
      <ListButton
        text={list.buttonText}
        expanded={expanded}
        controls={rowsId}
        onClick={() => setExpanded((open) => !open)}
        testId="list-message-button"
      />
      {expanded ? (
        <ListSections sections={list.sections} id={rowsId} testId="list-message-rows" />
      ) : null}
    </>
  );
}

/**
 * A customer's pick from a list: the row they chose, and the list's name when it is known (from
 * the copy the thread sent, else from the saved lists).
 */
function ListPick({
  message,
  listId,
  listName,
  highlight,
}: {
  message: Message;
  listId: string;
  listName: string | undefined;
  highlight: ChatHighlight | null | undefined;
}) {
  const saved = useInteractiveLists((s) => s.library.find((l) => l.id === listId)?.name);
  const ensureLibrary = useInteractiveLists((s) => s.ensureLibrary);
  useEffect(() => {
    if (!listName) ensureLibrary();
  }, [listName, ensureLibrary]);
  const name = listName ?? saved;
  return (
    <>
      <div className="wa-list-pick" data-testid="list-pick">
        <ListIcon size={14} />
        <span className="wa-list-pick-label">Picked:</span>{' '}
        <span className="wa-body" data-testid="message-text">
          <ChatText text={message.text} highlight={highlight} />
        </span>
      </div>
      {name ? (
        <div className="wa-list-pick-source" data-testid="list-pick-source">
          from the list “{name}”
        </div>
      ) : null}
    </>
  );
}

interface BubbleProps {
  message: Message;
  /** Who sent an outbound message or wrote a note (agent name, "Bot"), shown above the text. */
  sender?: string | undefined;
  /** Search matches to mark in the text. */
  highlight?: ChatHighlight | null | undefined;
  /** For a pick from a list: the list's name as the thread sent it, when known. */
  listName?: string | undefined;
  /** Who wrote it, always (the contact, or the agent or bot): for a photo's alt text. */
  author?: string | undefined;
  /** The message this one quotes, as loaded in the thread (undefined: not loaded). */
  quoted?: { message: Message | undefined; author: string | null } | undefined;
  /** Goes to a quoted message. */
  onJump?: ((messageId: string) => void) | undefined;
  /** Opens a photo in the viewer. */
  onOpenImage?: ((messageId: string) => void) | undefined;
  /** Offers "React" on a customer's message, inside the service window only. */
  serviceWindow?: ServiceWindow | undefined;
  /** Offers "Reply" (a quote of this message in the composer). */
  onReply?: ((message: Message) => void) | undefined;
  /** Briefly marked: a quote's click brought it into view. */
  jumped?: boolean | undefined;
}

/** Text that says nothing a card or a file does not show already. */
const hasOwnText = (message: Message): boolean =>
  message.text.trim() !== '' && message.type !== 'contacts' && message.type !== 'reaction';

function Caption({ message, highlight }: Pick<BubbleProps, 'message' | 'highlight'>) {
  if (!hasOwnText(message)) return null;
  return (
    <div className="wa-body" data-testid="message-text">
      <ChatText text={message.text} highlight={highlight} />
    </div>
  );
}

function MessageContent({ message, highlight, listName, author, onOpenImage }: BubbleProps) {
  if (message.list) {
    return (
      <div className="wa-body" data-testid="message-text">
        <ListText list={message.list} highlight={highlight} />
      </div>
    );
  }
  if (message.listReply) {
    return (
      <ListPick
        message={message}
        listId={message.listReply.listId}
        listName={listName}
        highlight={highlight}
      />
    );
  }
  if (message.type === 'location' && message.location) {
    return <LocationCard location={message.location} text={message.text} highlight={highlight} />;
  }
  if (message.type === 'contacts' && message.contacts) {
    return <ContactCards cards={message.contacts} />;
  }
  if (hasMedia(message)) {
    return (
      <>
        <MessageMedia
          message={message}
          author={author ?? message.phone}
          onOpenImage={onOpenImage}
        />
        <Caption message={message} highlight={highlight} />
      </>
    );
  }
  return <Caption message={message} highlight={highlight} />;
}

/** Reply and React, beside the bubble while it is hovered or reached by keyboard. */
function BubbleActions({ message, serviceWindow, onReply }: BubbleProps) {
  const canReact = serviceWindow !== undefined && message.direction === 'inbound';
  if (!onReply && !canReact) return null;
  return (
    <div className="wa-actions">
      {onReply ? (
        <button
          type="button"
          className="wa-copy wa-action"
          aria-label="Reply"
          title="Reply (quote this message)"
          onClick={() => onReply(message)}
          data-testid="reply-button"
        >
          <ReplyIcon />
        </button>
      ) : null}
      {canReact ? <ReactButton message={message} serviceWindow={serviceWindow} /> : null}
    </div>
  );
}

/**
 * One message as WhatsApp draws it: inbound left, outbound right with its delivery ticks. Drawn
 * again only when what it shows changes (a scrolling thread re-renders its rows often).
 */
export const MessageBubble = memo(function MessageBubble(props: BubbleProps) {
  const { message, sender, highlight, quoted, onJump, jumped } = props;
  if (isNote(message)) return <Note message={message} sender={sender} highlight={highlight} />;
  const outbound = message.direction === 'outbound';
  const bare = message.media?.type === 'sticker' && message.media.status === 'ready';
  return (
    <div
      className={`wa-group ${outbound ? 'wa-group-out' : 'wa-group-in'}${jumped ? ' wa-jumped' : ''}`}
      data-testid="message"
      data-direction={message.direction}
      data-status={message.status}
      data-type={message.type}
      data-message-id={message.id}
    >
      <div
        className={`wa-bubble ${outbound ? 'wa-bubble-out' : 'wa-bubble-in'}${bare ? ' wa-bubble-bare' : ''}`}
      >
        {sender ? (
          <div className="wa-sender" data-testid="message-sender">
            {sender}
          </div>
        ) : null}
        {message.type === 'template' && message.templateName ? (
          <div className="wa-template-tag" title="Template message">
            {message.templateName}
          </div>
        ) : null}
        {message.list ? (
          <div className="wa-template-tag" title="Interactive list" data-testid="message-list-name">
            {message.list.name}
          </div>
        ) : null}
        {message.context && quoted ? (
          <QuotedMessage
            quoted={quoted.message}
            quotedId={message.context.messageId}
            author={quoted.author}
            onJump={onJump}
          />
        ) : null}
        <MessageContent {...props} />
        <div className="wa-meta">
          {hasOwnText(message) ? <CopyButton text={message.text} /> : null}
          {message.environment === 'live' && outbound ? (
            <span className="wa-cost" data-testid="message-cost" title="Charged to the wallet">
              {message.costMicros > 0 ? formatMicros(message.costMicros) : 'free'}
            </span>
          ) : null}
          <time dateTime={message.createdAt} title={new Date(message.createdAt).toLocaleString()}>
            {formatClock(new Date(message.createdAt))}
          </time>
          {outbound ? <Ticks status={message.status} /> : null}
        </div>
        {message.list ? <SentListRows list={message.list} /> : null}
        <ReactionBadge message={message} />
        <BubbleActions {...props} />
      </div>
      {message.status === 'failed' ? (
        <div className="wa-failure" role="note" data-testid="message-error">
          Not delivered
          {message.error ? (
            <>
              : {message.error.message} <span className="mono">({message.error.code})</span>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});
