import { useId } from 'react';
import type { Conversation, Message } from '../../../../shared/schemas/index.ts';
import { CloseIcon } from '../../components/icons.tsx';
import { quoteSummary } from '../../components/media/message-summary.ts';
import { useAgents } from '../../stores/agents.ts';
import { conversationTitle } from '../../stores/inbox.ts';
import { useReplyContext } from '../../stores/reply-context.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { senderOf } from './thread-messages.tsx';
import './composer-attachments.css';

/** What the composer is writing: the quote goes with replies, not with notes or templates. */
export type ComposerKind = 'text' | 'note' | 'template' | 'list';

const WHY_NOT: Partial<Record<ComposerKind, string>> = {
  note: 'Private notes don’t quote messages: switch to Reply to send the quote with your answer.',
  template:
    'A template can’t quote a message: the quote goes with your next reply inside the 24-hour window.',
};

/** The quoted message of this conversation, or null. */
export const useQuote = (conversationId: string): Message | null =>
  useReplyContext((s) => (s.quoted?.conversationId === conversationId ? s.quoted : null));

/** Why the quote waits with this kind of message, or null when it goes with it. */
export const quoteWaitsBecause = (kind: ComposerKind): string | null => WHY_NOT[kind] ?? null;

/**
 * "Replying to Ana: the parcel arrived broken": the message a bubble's Reply chose, above the
 * composer until it is sent or dismissed. With a note or a template it waits, saying why.
 */
export function QuotePreview({
  conversation,
  kind,
  onDismiss,
}: {
  conversation: Conversation;
  kind: ComposerKind;
  onDismiss: () => void;
}) {
  const quoted = useQuote(conversation.id);
  if (!quoted) return null;
  return (
    <QuoteBox
      quoted={quoted}
      customerName={conversationTitle(conversation)}
      reason={quoteWaitsBecause(kind)}
      onDismiss={onDismiss}
    />
  );
}

/**
 * A quote above a composer (the inbox's, the contacts drawer's): who wrote the message and its
 * one line; greyed with the reason when what is being written will not carry it; ✕ drops it.
 */
export function QuoteBox({
  quoted,
  customerName,
  reason,
  onDismiss,
}: {
  quoted: Message;
  /** Who the customer is, for a quote of what they sent. */
  customerName: string;
  reason: string | null;
  onDismiss: () => void;
}) {
  const clear = useReplyContext((s) => s.clear);
  const agents = useAgents((s) => s.agents);
  const meId = useSession(selectMemberId);
  const reasonId = useId();

  const author =
    quoted.direction === 'inbound'
      ? customerName
      : quoted.agentId && quoted.agentId === meId
        ? 'your message'
        : (senderOf(quoted, new Map(agents.map((a) => [a.id, a]))) ?? 'Agent');
  const summary = quoteSummary(quoted);

  return (
    <div
      className={`quote-preview${reason ? ' quote-preview-off' : ''}`}
      role="group"
      aria-label={`Replying to ${author}`}
      aria-describedby={reason ? reasonId : undefined}
      data-testid="quote-preview"
      data-message-id={quoted.id}
      data-active={!reason}
    >
      <div className="quote-preview-body">
        <span className="quote-preview-author">Replying to {author}</span>
        <span className="quote-preview-text" title={summary} data-testid="quote-preview-text">
          {summary}
        </span>
        {reason ? (
          <span id={reasonId} className="quote-preview-reason" data-testid="quote-preview-reason">
            {reason}
          </span>
        ) : null}
      </div>
      <button
        type="button"
        className="icon-button quote-dismiss"
        aria-label="Don’t quote this message"
        title="Don’t quote this message"
        onClick={() => {
          clear();
          onDismiss();
        }}
        data-testid="quote-dismiss"
      >
        <CloseIcon />
      </button>
    </div>
  );
}
