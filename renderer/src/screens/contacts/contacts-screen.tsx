import { useState } from 'react';
import type { Contact } from '../../../../shared/schemas/index.ts';
import { api } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { ExportButton } from '../../components/export-button.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { selectImportBusy, useContactImport } from '../../stores/contact-import.ts';
import { useContacts } from '../../stores/contacts.ts';
import { ContactBulkBar } from './contact-bulk.tsx';
import { ContactFilters } from './contact-filters.tsx';
import { ContactFormDialog } from './contact-form-dialog.tsx';
import { ContactList } from './contact-list.tsx';
import { ImportDialog } from './import-dialog.tsx';
import { MessagesDrawer } from './messages-drawer.tsx';

type Editing = { mode: 'add' } | { mode: 'edit'; contact: Contact } | null;

export function ContactsScreen() {
  const status = useContacts((s) => s.status);
  const error = useContacts((s) => s.error);
  const load = useContacts((s) => s.load);
  const importBusy = useContactImport(selectImportBusy);

  const [editing, setEditing] = useState<Editing>(null);
  const importing = useContactImport((s) => s.dialogOpen);
  const setImporting = useContactImport((s) => s.setDialogOpen);
  const [messaging, setMessaging] = useState<Contact | null>(null);
  const contacts = useContacts((s) => s.contacts);
  const [selection, setSelection] = useState<ReadonlySet<string>>(new Set());
  // What the bulk actions act on: the ticked contacts the list still shows.
  const selected = contacts.filter((c) => selection.has(c.id));
  const toggle = (id: string) =>
    setSelection((old) => {
      const next = new Set(old);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const toggleAll = (ids: string[]) =>
    setSelection((old) => (ids.every((id) => old.has(id)) ? new Set() : new Set(ids)));

  useLoadWhenIdle(status, load);

  return (
    <div
      className={`screen screen-fill${messaging ? ' screen-with-drawer' : ''}`}
      data-testid="screen-contacts"
    >
      <PageHeader
        title="Contacts"
        description={
          <>
            Everyone this workspace can message. Contacts are matched by phone number (E.164), so
            adding or importing a known number updates it.
          </>
        }
        actions={
          <>
            <ExportButton
              // What the list shows: its search and label filter (all pages of it).
              load={() => {
                const { q, label } = useContacts.getState().filters;
                return api.contacts.export({ q: q.trim(), label: label.trim() });
              }}
              testId="contacts-export"
            />
            <button
              type="button"
              className="button"
              onClick={() => setImporting(true)}
              data-testid="open-import"
            >
              {importBusy ? 'Importing…' : 'Import CSV'}
            </button>
            <button
              type="button"
              className="button button-primary"
              onClick={() => setEditing({ mode: 'add' })}
              data-testid="open-add-contact"
            >
              Add contact
            </button>
          </>
        }
      />

      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}

      <div className={`contacts-body${messaging ? ' with-drawer' : ''}`}>
        <section className="card card-flush card-fill">
          <ContactFilters />
          <ContactList
            onOpen={(contact) => setEditing({ mode: 'edit', contact })}
            onMessages={setMessaging}
            activeId={messaging?.id ?? null}
            selected={selection}
            onToggle={toggle}
            onToggleAll={toggleAll}
          />
          <ContactBulkBar selected={selected} onClear={() => setSelection(new Set())} />
        </section>
        {messaging ? (
          <MessagesDrawer
            key={messaging.id}
            contact={messaging}
            onClose={() => setMessaging(null)}
            onEdit={(contact) => setEditing({ mode: 'edit', contact })}
          />
        ) : null}
      </div>

      {editing ? (
        <ContactFormDialog
          contact={editing.mode === 'edit' ? editing.contact : null}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {importing ? <ImportDialog onClose={() => setImporting(false)} /> : null}
    </div>
  );
}
