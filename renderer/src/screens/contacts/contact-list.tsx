import type { Contact } from '../../../../shared/schemas/index.ts';
import { formatDate } from '../../components/format.ts';
import { ChatIcon } from '../../components/icons.tsx';
import { LabelChips } from '../../components/label-chips.tsx';
import { VirtualTable } from '../../components/virtual-table.tsx';
import { selectHasFilters, useContacts } from '../../stores/contacts.ts';
import { EmailSubscription } from '../email/email-subscription.tsx';
import { contactHandle, contactLabel } from '../../../../shared/phone.ts';

interface ContactListProps {
  onOpen: (contact: Contact) => void;
  onMessages: (contact: Contact) => void;
  /** The contact whose messages are open, highlighted in the list. */
  activeId: string | null;
  /** The ticked contacts' ids (for the bulk actions). */
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
  /** Ticks every contact shown, or none when all of them are ticked. */
  onToggleAll: (ids: string[]) => void;
}

export function ContactList({
  onOpen,
  onMessages,
  activeId,
  selected,
  onToggle,
  onToggleAll,
}: ContactListProps) {
  const contacts = useContacts((s) => s.contacts);
  const nextCursor = useContacts((s) => s.nextCursor);
  const status = useContacts((s) => s.status);
  const loadingMore = useContacts((s) => s.loadingMore);
  const loadMore = useContacts((s) => s.loadMore);
  const filtered = useContacts(selectHasFilters);
  const ticked = contacts.filter((c) => selected.has(c.id)).length;
  const allTicked = contacts.length > 0 && ticked === contacts.length;

  return (
    <VirtualTable
      label="Contacts"
      gridClassName="contacts-grid"
      columns={
        <>
          <div role="columnheader" className="contacts-check">
            <input
              type="checkbox"
              aria-label={allTicked ? 'Clear selection' : 'Select all contacts shown'}
              checked={allTicked}
              ref={(box) => {
                if (box) box.indeterminate = ticked > 0 && !allTicked;
              }}
              disabled={contacts.length === 0}
              onChange={() => onToggleAll(contacts.map((c) => c.id))}
              data-testid="contacts-select-all"
            />
          </div>
          <div role="columnheader">Phone</div>
          <div role="columnheader">Name</div>
          <div role="columnheader" className="col-optional">
            Email
          </div>
          <div role="columnheader" className="col-optional">
            Labels
          </div>
          <div role="columnheader" className="col-optional">
            Created
          </div>
          <div role="columnheader">
            <span className="visually-hidden">Actions</span>
          </div>
        </>
      }
      rows={contacts}
      nextCursor={nextCursor}
      loadingMore={loadingMore}
      loadMore={loadMore}
      scrollTestId="contacts-scroll"
      emptyTestId="contacts-empty"
      empty={
        status === 'loading' || status === 'idle'
          ? 'Loading contacts…'
          : filtered
            ? 'No contacts match this search.'
            : 'No contacts yet. Add one or import a CSV file.'
      }
      // A new search starts from the top.
      topKey={contacts[0]?.id}
      renderRow={(contact, rowProps) => (
        <div
          key={contact.id}
          className={`vtable-row contacts-grid clickable${contact.id === activeId ? ' active' : ''}`}
          {...rowProps}
          tabIndex={0}
          onClick={() => onOpen(contact)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') onOpen(contact);
          }}
          data-testid="contact-row"
        >
          <div role="cell" className="contacts-check">
            <input
              type="checkbox"
              aria-label={`Select ${contactLabel(contact)}`}
              checked={selected.has(contact.id)}
              onClick={(event) => event.stopPropagation()}
              onKeyDown={(event) => event.stopPropagation()}
              onChange={() => onToggle(contact.id)}
              data-testid="contact-select"
            />
          </div>
          <div role="cell" className="mono">
            {contactHandle(contact)}
          </div>
          <div role="cell" className="cell-strong truncate">
            {contact.name ?? <span className="muted">—</span>}
          </div>
          <div role="cell" className="truncate col-optional">
            {contact.email ? (
              <span className="contact-email-cell">
                <span className="truncate" title={contact.email} data-testid="contact-row-email">
                  {contact.email}
                </span>
                <EmailSubscription contact={contact} compact />
              </span>
            ) : (
              <span className="muted">—</span>
            )}
          </div>
          <div role="cell" className="truncate col-optional">
            <LabelChips labels={contact.labels} />
          </div>
          <div role="cell" className="nowrap muted col-optional">
            {formatDate(contact.createdAt)}
          </div>
          <div role="cell" className="cell-actions">
            <button
              type="button"
              className="button button-small"
              onClick={(event) => {
                event.stopPropagation();
                onMessages(contact);
              }}
              onKeyDown={(event) => event.stopPropagation()}
              aria-label={`Messages with ${contactLabel(contact)}`}
              data-testid="open-messages"
            >
              <ChatIcon />
              Messages
            </button>
          </div>
        </div>
      )}
    />
  );
}
