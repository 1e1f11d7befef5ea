import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Contact, Message } from '../../../../shared/schemas/index.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { CloseIcon, PersonIcon } from '../../components/icons.tsx';
import { MessageList } from '../../components/message-list.tsx';
import { useNow } from '../../components/use-now.ts';
import { selectMessageList } from '../../stores/message-list.ts';
import { useMessages, windowClosesAt } from '../../stores/messages.ts';
import { useReplyContext } from '../../stores/reply-context.ts';
import { EmailSubscription } from '../email/email-subscription.tsx';
import { DRAWER_TEXT_ID, MessageComposer } from './message-composer.tsx';
import { contactHandle } from '../../../../shared/phone.ts';

const MINUTE = 60_000;

const initials = (name: string): string =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part.charAt(0).toUpperCase())
    .join('');

function remaining(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / MINUTE));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** "Reply" on a bubble: the composer shows the quote (and opens its free-text form). */
function quote(message: Message): void {
  useReplyContext.getState().quote(message);
  document.getElementById(DRAWER_TEXT_ID)?.focus();
}

interface MessagesDrawerProps {
  contact: Contact;
  onClose: () => void;
  onEdit: (contact: Contact) => void;
}

/** A contact's message history in a panel beside the list, with sending and (in test mode) simulated replies. */
export function MessagesDrawer({ contact, onClose, onEdit }: MessagesDrawerProps) {
  const open = useMessages((s) => s.open);
  const close = useMessages((s) => s.close);
  const current = useMessages((s) => s.contact);
  const status = useMessages((s) => s.status);
  const error = useMessages((s) => s.error);
  const refresh = useMessages((s) => s.refresh);
  const list = useMessages(useShallow(selectMessageList));
  const now = useNow(30_000);

  useEffect(() => {
    open(contact);
    return () => close();
  }, [contact, open, close]);

  // A quote belongs to the composer it was chosen for: another contact's goes, and this one's
  // goes with the drawer.
  useEffect(() => {
    const { quoted, clear } = useReplyContext.getState();
    if (quoted && quoted.contactId !== contact.id) clear();
    return () => {
      if (useReplyContext.getState().quoted?.contactId === contact.id) clear();
    };
  }, [contact.id]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !document.querySelector('dialog[open]')) onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);

  const shown = current ?? contact;
  const closesAt = windowClosesAt(shown);
  const windowOpen = closesAt !== null && closesAt > now;
  const title = shown.name ?? shown.phone;
  // Who the customer is in alt texts and quotes ("Photo from Ana Lima").
  const customer = shown.name ?? contactHandle(shown);

  return (
    <aside className="drawer" aria-label={`Messages with ${title}`} data-testid="messages-drawer">
      <header className="drawer-header">
        <span className="drawer-avatar" aria-hidden="true">
          {shown.name ? initials(shown.name) : <PersonIcon />}
        </span>
        <div className="drawer-title">
          <h2 className="truncate">{title}</h2>
          <div className="drawer-sub">
            {shown.name ? <span className="mono">{contactHandle(shown)}</span> : null}
            <span
              className={`window-chip ${windowOpen ? 'window-open' : 'window-closed'}`}
              data-testid="service-window"
              data-open={windowOpen}
              title="Free text is allowed for 24 hours after the contact's last message"
            >
              {windowOpen && closesAt
                ? `Window open · ${remaining(closesAt - now)} left`
                : 'Window closed · template only'}
            </span>
            {shown.email ? <EmailSubscription contact={shown} /> : null}
          </div>
        </div>
        <button type="button" className="button button-small" onClick={() => onEdit(shown)}>
          Edit
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Close messages"
          onClick={onClose}
          data-testid="close-drawer"
        >
          <CloseIcon />
        </button>
      </header>
      {status === 'error' && error ? (
        <div className="drawer-banner">
          <ErrorBanner message={error} onRetry={() => void refresh()} />
        </div>
      ) : null}
      <MessageList
        list={list}
        className="thread wa-wallpaper"
        testId="message-thread"
        emptyText="No messages yet. A conversation starts with an approved template."
        contactName={customer}
        onReply={quote}
      />
      <MessageComposer
        key={shown.id}
        contactId={shown.id}
        contactName={customer}
        windowOpen={windowOpen}
      />
    </aside>
  );
}
