import { useEffect, useMemo, useRef } from 'react';
import type { Message } from '../../../../shared/schemas/index.ts';
import { ApiRequestError } from '../../api/client.ts';
import { ChatText } from '../../components/chat-text.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { FormError } from '../../components/form-error.tsx';
import { formatClock } from '../../components/format.ts';
import { isNote } from '../../components/message-bubble.tsx';
import { useAgents } from '../../stores/agents.ts';
import { senderOf } from './thread-messages.tsx';

/**
 * The newer message a 409 `conversation_changed` carries (someone else wrote since the message
 * the reply was based on), or null for any other failure.
 */
export function conflictOf(e: unknown): Message | null {
  if (!(e instanceof ApiRequestError) || e.code !== 'conversation_changed') return null;
  const message = e.details?.message as Message | undefined;
  return message && typeof message.id === 'string' ? message : null;
}

interface ConflictDialogProps {
  /** What someone else wrote while the agent was writing. */
  message: Message;
  /** The agent's text is a private note, not a reply. */
  note: boolean;
  busy: boolean;
  error: string | null;
  /** Sends the draft as it is, based on `message`. */
  onSendAnyway: () => void;
  /** Back to the draft, unsent. */
  onEdit: () => void;
  /** Drops the draft. */
  onDiscard: () => void;
}

/**
 * "Someone else answered": shows what they wrote, and lets the agent send theirs anyway, go back
 * to editing it, or drop it (README "Working together": no double answers by accident). Escape
 * goes back to the draft; the focus starts there too, so a stray Enter sends nothing.
 */
export function ConflictDialog({
  message,
  note,
  busy,
  error,
  onSendAnyway,
  onEdit,
  onDiscard,
}: ConflictDialogProps) {
  const agents = useAgents((s) => s.agents);
  const sender = useMemo(
    () => senderOf(message, new Map(agents.map((a) => [a.id, a]))) ?? 'The customer',
    [message, agents],
  );
  const edit = useRef<HTMLButtonElement>(null);
  // The safe choice has the focus (after the dialog opened and focused its first button): Enter
  // goes back to the draft, it sends nothing.
  useEffect(() => edit.current?.focus(), []);
  const theirs = isNote(message) ? 'a private note' : 'a reply';
  const mine = note ? 'note' : 'reply';
  return (
    <Dialog
      title={`${sender} wrote ${theirs} meanwhile`}
      onClose={() => {
        if (!busy) onEdit();
      }}
      dismissible={!busy}
      testId="conflict-dialog"
      footer={
        <>
          <button
            type="button"
            className="button button-danger-ghost conflict-discard"
            onClick={onDiscard}
            disabled={busy}
            data-testid="conflict-discard"
          >
            Discard my {mine}
          </button>
          <button
            type="button"
            className="button"
            onClick={onEdit}
            disabled={busy}
            ref={edit}
            data-testid="conflict-edit"
          >
            Edit my {mine}
          </button>
          <button
            type="button"
            className="button button-primary"
            onClick={onSendAnyway}
            disabled={busy}
            data-testid="conflict-send-anyway"
          >
            {busy ? 'Sending…' : 'Send anyway'}
          </button>
        </>
      }
    >
      <p className="dialog-lead">
        Your {mine} was not sent: {sender} wrote in this conversation after the message you were
        answering. Read it first, then send yours anyway, change it, or drop it.
      </p>
      <figure className="conflict-message" data-testid="conflict-message">
        <figcaption className="conflict-message-head">
          <span className="cell-strong">{sender}</span>
          {isNote(message) ? <span className="badge">Private note</span> : null}
          <time dateTime={message.createdAt} className="muted">
            {formatClock(new Date(message.createdAt))}
          </time>
        </figcaption>
        <blockquote className="conflict-message-text" data-testid="conflict-message-text">
          <ChatText text={message.text} />
        </blockquote>
      </figure>
      <FormError error={error} testId="conflict-error" />
    </Dialog>
  );
}
