import { useEffect, useId, useState, type FormEvent } from 'react';
import type { Contact } from '../../../../shared/schemas/index.ts';
import { api, errorMessage, isAbortError, type OpenConversationBody } from '../../api/client.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useInbox } from '../../stores/inbox.ts';
import { useThread } from '../../stores/thread.ts';
import './inbox-list.css';
import { contactHandle } from '../../../../shared/phone.ts';

const SEARCH_DEBOUNCE_MS = 200;
const RESULTS = 8;

/** Typed text that can only be meant as a phone number (the core validates and normalises it). */
const looksLikePhone = (text: string): boolean => /^\+?[\d\s().-]{6,}$/.test(text.trim());

/**
 * Starts (or finds) the conversation with a contact: an existing contact picked by name or
 * phone, or a typed phone number (the contact is created). The thread then opens with the
 * window-aware composer, which offers templates when the customer has not written in 24 h.
 */
export function NewConversationDialog({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('');
  const [contacts, setContacts] = useState<Contact[]>([]);
  const [searching, setSearching] = useState(false);
  const [opening, setOpening] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const hintId = useId();

  useEffect(() => {
    const q = text.trim();
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      setSearching(true);
      api.contacts
        .list({ q: q || undefined, limit: RESULTS }, controller.signal)
        .then((page) => setContacts(page.data))
        .catch((e: unknown) => {
          if (!isAbortError(e)) setError(errorMessage(e));
        })
        .finally(() => {
          if (!controller.signal.aborted) setSearching(false);
        });
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [text]);

  const start = async (body: OpenConversationBody) => {
    setOpening(true);
    setError(null);
    try {
      const { conversation } = await api.conversations.open(body);
      useInbox.getState().apply(conversation);
      useThread.getState().open(conversation.id);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
      setOpening(false);
    }
  };

  const phone = looksLikePhone(text) ? text.trim() : null;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (phone) void start({ phone });
    else if (contacts.length === 1) void start({ contactId: contacts[0]!.id });
  };

  return (
    <Dialog
      title="New conversation"
      onClose={onClose}
      dismissible={!opening}
      size="small"
      testId="new-conversation-dialog"
      footer={
        <button type="button" className="button" onClick={onClose} disabled={opening}>
          Cancel
        </button>
      }
    >
      <form onSubmit={onSubmit} className="new-conversation">
        <label htmlFor={inputId} className="field-label">
          Contact
        </label>
        <input
          id={inputId}
          className="input"
          value={text}
          autoFocus
          autoComplete="off"
          placeholder="Name, or a phone number such as +14155552671"
          aria-describedby={hintId}
          onChange={(event) => {
            setText(event.target.value);
            setError(null);
          }}
          data-testid="new-conversation-input"
        />
        <p id={hintId} className="muted small">
          Pick a contact, or type a phone number with its country code to write to someone new.
        </p>
        {error ? (
          <p className="form-error" role="alert" data-testid="new-conversation-error">
            {error}
          </p>
        ) : null}
        <ul className="new-conversation-results" aria-label="Contacts" aria-busy={searching}>
          {phone ? (
            <li>
              <button
                type="submit"
                className="new-conversation-option"
                disabled={opening}
                data-testid="new-conversation-phone"
              >
                Write to <strong>{phone}</strong>
              </button>
            </li>
          ) : null}
          {contacts.map((c) => (
            <li key={c.id}>
              <button
                type="button"
                className="new-conversation-option"
                disabled={opening}
                onClick={() => void start({ contactId: c.id })}
                data-testid="new-conversation-contact"
              >
                <span className="truncate">{c.name?.trim() || contactHandle(c)}</span>
                {c.name?.trim() ? <span className="muted small">{contactHandle(c)}</span> : null}
              </button>
            </li>
          ))}
        </ul>
        {!searching && contacts.length === 0 && !phone ? (
          <p className="muted small" data-testid="new-conversation-none">
            {text.trim() ? 'No contact matches.' : 'No contacts yet.'}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}
