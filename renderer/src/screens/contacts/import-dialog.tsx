import { useEffect, useId, useState, type FormEvent } from 'react';
import { LABEL_SEPARATOR_HINT } from '../../../../shared/labels.ts';
import { errorMessage } from '../../api/client.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FormError } from '../../components/form-error.tsx';
import {
  selectImportBusy,
  selectImportFraction,
  selectImportReady,
  useContactImport,
} from '../../stores/contact-import.ts';
import { useContacts } from '../../stores/contacts.ts';
import { ImportMapping } from './import-mapping.tsx';
import { ImportResultView } from './import-result.tsx';

const NEW_GROUP = '__new__';

export function ImportDialog({ onClose }: { onClose: () => void }) {
  const phase = useContactImport((s) => s.phase);
  const fileName = useContactImport((s) => s.fileName);
  const error = useContactImport((s) => s.error);
  const result = useContactImport((s) => s.result);
  const busy = useContactImport(selectImportBusy);
  const ready = useContactImport(selectImportReady);
  const clear = useContactImport((s) => s.clear);
  const formId = useId();
  const choosing =
    phase === 'idle' || phase === 'checking' || phase === 'mapping' || phase === 'failed';

  const close = () => {
    // A finished import's summary stays until the dialog closes; a running one keeps going.
    if (!busy) clear();
    onClose();
  };

  return (
    <Dialog
      title="Import contacts from CSV"
      onClose={close}
      size="large"
      testId="import-dialog"
      footer={
        phase === 'done' ? (
          <>
            <button type="button" className="button" onClick={clear} data-testid="import-again">
              Import another file
            </button>
            <button
              type="button"
              className="button button-primary"
              onClick={close}
              data-testid="import-done"
            >
              Done
            </button>
          </>
        ) : (
          <>
            <button type="button" className="button" onClick={close}>
              {busy ? 'Hide' : 'Close'}
            </button>
            {/* In the footer, not the scrolling body: it stays in view under a long mapping. */}
            {choosing ? (
              <button
                type="submit"
                form={formId}
                className="button button-primary"
                disabled={!ready}
                data-testid="import-start"
              >
                Import
              </button>
            ) : null}
          </>
        )
      }
    >
      {busy ? <ImportProgress fileName={fileName} /> : null}
      {phase === 'done' && result ? <ImportResultView result={result} fileName={fileName} /> : null}
      {choosing ? (
        <>
          {error ? <ErrorBanner message={error} testId="import-error" /> : null}
          <ImportForm formId={formId} />
        </>
      ) : null}
    </Dialog>
  );
}

/** The file, its columns and the group; submitted by the dialog footer's Import button. */
function ImportForm({ formId }: { formId: string }) {
  const phase = useContactImport((s) => s.phase);
  const choose = useContactImport((s) => s.choose);
  const start = useContactImport((s) => s.start);
  const groups = useContactImport((s) => s.groups);
  const groupsStatus = useContactImport((s) => s.groupsStatus);
  const loadGroups = useContactImport((s) => s.loadGroups);
  const createGroup = useContactImport((s) => s.createGroup);
  const reloadContacts = useContacts((s) => s.load);

  const [groupChoice, setGroupChoice] = useState('');
  const [newGroupName, setNewGroupName] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  useEffect(() => {
    if (groupsStatus === 'idle') void loadGroups();
  }, [groupsStatus, loadGroups]);

  const ready = useContactImport(selectImportReady);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    if (phase === 'idle' || phase === 'failed') {
      setFormError('Choose a CSV file first.');
      return;
    }
    if (!ready) {
      setFormError('Choose the column that holds the phone numbers.');
      return;
    }
    let groupId: string | null = groupChoice && groupChoice !== NEW_GROUP ? groupChoice : null;
    if (groupChoice === NEW_GROUP) {
      if (!newGroupName.trim()) {
        setFormError('Name the new group, or choose “No group”.');
        return;
      }
      try {
        groupId = (await createGroup(newGroupName.trim())).id;
      } catch (e) {
        setFormError(errorMessage(e));
        return;
      }
    }
    const result = await start(groupId);
    if (result) {
      void reloadContacts();
      void loadGroups();
    }
  };

  return (
    <form id={formId} className="form-stack" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={`${formId}-file`}>CSV file</label>
        <input
          id={`${formId}-file`}
          type="file"
          accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values,text/plain"
          className="file-input"
          onChange={(event) => void choose(event.target.files?.[0] ?? null)}
          data-testid="import-file"
        />
        <p className="hint">
          Exports from Google Contacts, Outlook and spreadsheets work as they are (comma, semicolon
          or tab separated; UTF-8 or UTF-16). The first row names the columns; you match them to
          Parley’s fields next. Phones need the country code (e.g. +4915112345678). Known phone
          numbers are updated. Labels: one column; {LABEL_SEPARATOR_HINT.toLowerCase()}
        </p>
      </div>
      {phase === 'checking' ? (
        <p className="muted" role="status" data-testid="import-checking">
          Reading the columns…
        </p>
      ) : null}
      {phase === 'mapping' ? <ImportMapping /> : null}
      <div className="field">
        <label htmlFor={`${formId}-group`}>
          Add to group <span className="optional">(optional)</span>
        </label>
        <select
          id={`${formId}-group`}
          className="select"
          value={groupChoice}
          onChange={(event) => setGroupChoice(event.target.value)}
          data-testid="import-group"
        >
          <option value="">No group</option>
          {groups.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name} ({g.memberCount.toLocaleString('en-US')})
            </option>
          ))}
          <option value={NEW_GROUP}>New group…</option>
        </select>
        {groupChoice === NEW_GROUP ? (
          <input
            className="input"
            placeholder="Group name"
            aria-label="New group name"
            maxLength={100}
            value={newGroupName}
            onChange={(event) => setNewGroupName(event.target.value)}
            data-testid="import-new-group"
          />
        ) : null}
      </div>
      <FormError error={formError} />
    </form>
  );
}

function ImportProgress({ fileName }: { fileName: string | null }) {
  const processed = useContactImport((s) => s.processed);
  const total = useContactImport((s) => s.total);
  const fraction = useContactImport(selectImportFraction);
  const cancel = useContactImport((s) => s.cancel);

  return (
    <div className="import-progress" data-testid="import-progress-panel">
      <p>
        Importing <strong>{fileName}</strong>…
      </p>
      {fraction === null ? (
        <progress className="progress" aria-label="Import progress" data-testid="import-progress" />
      ) : (
        <progress
          className="progress"
          aria-label="Import progress"
          value={processed}
          max={total}
          data-testid="import-progress"
        />
      )}
      <div className="import-progress-meta">
        <span className="muted">
          {fraction === null
            ? 'Uploading…'
            : `${processed.toLocaleString('en-US')} of about ${total.toLocaleString('en-US')} rows read · ${Math.round(fraction * 100)}%`}
        </span>
        <button type="button" className="button button-small" onClick={cancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
