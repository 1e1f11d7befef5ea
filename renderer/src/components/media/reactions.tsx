import { useEffect, useId, useRef, useState } from 'react';
import type { Message } from '../../../../shared/schemas/index.ts';
import { reactTo } from '../../stores/message-actions.ts';
import { notifyError } from '../../stores/toasts.ts';
import { SmileIcon } from './media-icons.tsx';
import './media.css';

/** The reactions WhatsApp offers first. */
export const QUICK_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;

const when = (iso: string): string => new Date(iso).toLocaleString();

/**
 * The reactions on a message, pinned to its bubble's corner as WhatsApp draws them: the
 * customer's (on a message we sent) and the business's (on one the customer sent).
 */
export function ReactionBadge({ message }: { message: Message }) {
  const { reaction, agentReaction } = message;
  if (!reaction && !agentReaction) return null;
  return (
    <span className="wa-reaction" data-testid="reaction-badge">
      {reaction ? (
        <span
          role="img"
          aria-label={`The customer reacted ${reaction.emoji}`}
          title={`The customer reacted ${when(reaction.at)}`}
          data-testid="message-reaction"
        >
          {reaction.emoji}
        </span>
      ) : null}
      {agentReaction ? (
        <span
          role="img"
          aria-label={`You reacted ${agentReaction.emoji}`}
          title={`Reacted ${when(agentReaction.at)}`}
          data-testid="agent-reaction"
        >
          {agentReaction.emoji}
        </span>
      ) : null}
    </span>
  );
}

/** Why "React" is off outside the service window. */
export const REACT_WINDOW_CLOSED =
  'Reactions go only inside the 24-hour service window: the customer has not written for 24 hours.';

/** Whether the business may write now, and if not, why (shown as the action's title). */
export interface ServiceWindow {
  open: boolean;
  reason: string;
}

/**
 * "React" on a customer's message: a few emoji, and "Remove" once the business has reacted.
 * Only inside the service window; outside it the action says why it is off.
 */
export function ReactButton({
  message,
  serviceWindow,
}: {
  message: Message;
  serviceWindow: ServiceWindow;
}) {
  const [open, setOpen] = useState(false);
  const [sending, setSending] = useState(false);
  const pickerId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const pickerRef = useRef<HTMLDivElement>(null);
  const current = message.agentReaction?.emoji ?? null;

  useEffect(() => {
    if (!open) return;
    pickerRef.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const away = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!pickerRef.current?.contains(target) && !buttonRef.current?.contains(target)) {
        setOpen(false);
      }
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open]);

  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };

  const pick = (emoji: string) => {
    close();
    setSending(true);
    reactTo(message, emoji)
      .catch(notifyError)
      .finally(() => setSending(false));
  };

  const disabled = !serviceWindow.open || sending;
  return (
    <span className="wa-react">
      <button
        ref={buttonRef}
        type="button"
        className="wa-copy wa-action"
        aria-label="React"
        title={serviceWindow.open ? 'React' : serviceWindow.reason}
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={open ? pickerId : undefined}
        disabled={disabled}
        onClick={() => setOpen((shown) => !shown)}
        data-testid="react-button"
      >
        <SmileIcon />
      </button>
      {open ? (
        <div
          ref={pickerRef}
          id={pickerId}
          className="wa-react-picker"
          role="group"
          aria-label="Pick a reaction"
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.stopPropagation();
              close();
            }
          }}
          data-testid="react-picker"
        >
          {QUICK_REACTIONS.map((emoji) => (
            <button
              key={emoji}
              type="button"
              className="wa-react-emoji"
              aria-label={`React ${emoji}`}
              aria-pressed={current === emoji}
              onClick={() => pick(current === emoji ? '' : emoji)}
              data-testid="react-emoji"
            >
              {emoji}
            </button>
          ))}
          {current ? (
            <button
              type="button"
              className="link-button wa-react-remove"
              onClick={() => pick('')}
              data-testid="react-remove"
            >
              Remove
            </button>
          ) : null}
        </div>
      ) : null}
    </span>
  );
}
