import { useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Contact } from '../../../../shared/schemas/index.ts';
import { formatDate } from '../../components/format.ts';
import { ChatIcon } from '../../components/icons.tsx';
import { LabelChips } from '../../components/label-chips.tsx';
import { EmptyState } from '../../components/table.tsx';
import { selectHasFilters, useContacts } from '../../stores/contacts.ts';
import { notifyError } from '../../stores/toasts.ts';

const ROW_HEIGHT = 48;
/** Start fetching the next page this many rows before the end comes into view. */
const LOAD_AHEAD = 30;

interface ContactListProps {
  onOpen: (contact: Contact) => void;
  onMessages: (contact: Contact) => void;
  /** The contact whose messages are open, highlighted in the list. */
  activeId: string | null;
}

export function ContactList({ onOpen, onMessages, activeId }: ContactListProps) {
  const contacts = useContacts((s) => s.contacts);
  const nextCursor = useContacts((s) => s.nextCursor);
  const status = useContacts((s) => s.status);
  const loadingMore = useContacts((s) => s.loadingMore);
  const loadMore = useContacts((s) => s.loadMore);
  const filtered = useContacts(selectHasFilters);
  const scrollRef = useRef<HTMLDivElement>(null);

  const rowCount = contacts.length + (nextCursor ? 1 : 0);
  // TanStack Virtual returns fresh functions each render by design; nothing here is memoised on them.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const rows = virtualizer.getVirtualItems();
  const lastVisible = rows.length > 0 ? rows[rows.length - 1]!.index : -1;

  useEffect(() => {
    if (nextCursor && !loadingMore && lastVisible >= contacts.length - LOAD_AHEAD) {
      loadMore().catch(notifyError);
    }
  }, [lastVisible, contacts.length, nextCursor, loadingMore, loadMore]);

  // A new search starts from the top.
  const firstId = contacts[0]?.id;
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [firstId]);

  return (
    <div className="vtable" role="table" aria-label="Contacts" aria-rowcount={rowCount}>
      <div className="vtable-head" role="rowgroup">
        <div className="vtable-row contacts-grid" role="row">
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
        </div>
      </div>
      <div className="vtable-scroll" ref={scrollRef} data-testid="contacts-scroll">
        {contacts.length === 0 ? (
          <EmptyState testId="contacts-empty">
            {status === 'loading' || status === 'idle'
              ? 'Loading contacts…'
              : filtered
                ? 'No contacts match this search.'
                : 'No contacts yet. Add one or import a CSV file.'}
          </EmptyState>
        ) : (
          <div
            role="rowgroup"
            className="vtable-body"
            style={{ height: virtualizer.getTotalSize() }}
          >
            {rows.map((row) => {
              const contact = contacts[row.index];
              const style = { height: row.size, transform: `translateY(${row.start}px)` };
              if (!contact) {
                return (
                  <div key="loader" className="vtable-row vtable-loader" role="row" style={style}>
                    <div role="cell">Loading more…</div>
                  </div>
                );
              }
              return (
                <div
                  key={contact.id}
                  className={`vtable-row contacts-grid clickable${contact.id === activeId ? ' active' : ''}`}
                  role="row"
                  aria-rowindex={row.index + 1}
                  tabIndex={0}
                  style={style}
                  onClick={() => onOpen(contact)}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter') onOpen(contact);
                  }}
                  data-testid="contact-row"
                >
                  <div role="cell" className="mono">
                    {contact.phone}
                  </div>
                  <div role="cell" className="cell-strong truncate">
                    {contact.name ?? <span className="muted">—</span>}
                  </div>
                  <div role="cell" className="truncate col-optional">
                    {contact.email ?? <span className="muted">—</span>}
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
                      aria-label={`Messages with ${contact.name ?? contact.phone}`}
                      data-testid="open-messages"
                    >
                      <ChatIcon />
                      Messages
                    </button>
                  </div>
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
