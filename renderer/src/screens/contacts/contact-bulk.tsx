/**
 * What the Contacts list does to the contacts ticked in it: put them in a group (an existing one
 * or a new one) or give them a label, so an audience for a campaign is made from contacts already
 * here, without importing them again.
 */
import { useId, useState, type FormEvent } from 'react';
import { labelsProblem, LABEL_SEPARATOR_HINT, splitLabels } from '../../../../shared/labels.ts';
import type { Contact } from '../../../../shared/schemas/index.ts';
import { contactLabel } from '../../../../shared/phone.ts';
import { api, errorMessage } from '../../api/client.ts';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { FormDialog } from '../../components/form-dialog.tsx';
import { plural } from '../../components/format.ts';
import { useAction } from '../../components/use-action.ts';
import { RadioCards } from '../../components/radio-cards.tsx';
import { useContacts } from '../../stores/contacts.ts';
import { notify } from '../../stores/toasts.ts';
import { useGroups } from '../campaigns/use-groups.ts';

/** Label requests in flight at once: quick for a page of rows, gentle on the core. */
const CONCURRENCY = 4;

type Action = 'group' | 'label';

interface BulkBarProps {
  /** The ticked contacts among those the list shows. */
  selected: Contact[];
  onClear: () => void;
}

/** The bar under the list while contacts are ticked, and the dialog of the action chosen. */
export function ContactBulkBar({ selected, onClear }: BulkBarProps) {
  const [action, setAction] = useState<Action | null>(null);
  if (selected.length === 0 && action === null) return null;
  return (
    <>
      <div
        className="contacts-bulk-bar"
        role="region"
        aria-label="Bulk actions"
        data-testid="contacts-bulk-bar"
      >
        <span className="bulk-bar-count" data-testid="contacts-bulk-count" aria-live="polite">
          {plural(selected.length, 'contact')} selected
        </span>
        <button
          type="button"
          className="button button-small"
          onClick={() => setAction('group')}
          data-testid="contacts-bulk-group"
        >
          Add to group…
        </button>
        <button
          type="button"
          className="button button-small"
          onClick={() => setAction('label')}
          data-testid="contacts-bulk-label"
        >
          Add label…
        </button>
        <button
          type="button"
          className="link-button"
          onClick={onClear}
          data-testid="contacts-bulk-clear"
        >
          Clear selection
        </button>
      </div>
      {action === 'group' ? (
        <AddToGroupDialog contacts={selected} onClose={() => setAction(null)} />
      ) : null}
      {action === 'label' ? (
        <AddLabelDialog contacts={selected} onClose={() => setAction(null)} />
      ) : null}
    </>
  );
}

const NEW_GROUP = 'new';

function AddToGroupDialog({ contacts, onClose }: { contacts: Contact[]; onClose: () => void }) {
  const formId = useId();
  const { groups, status, error: groupsError } = useGroups();
  const [mode, setMode] = useState<'existing' | typeof NEW_GROUP>('existing');
  const [groupId, setGroupId] = useState('');
  const [name, setName] = useState('');
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  // With no group yet, a new one is the only way.
  const creating = mode === NEW_GROUP || (status === 'ready' && groups.length === 0);
  const fieldId = `${formId}-${creating ? 'name' : 'group'}`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const ids = contacts.map((c) => c.id);
    const trimmed = name.trim();
    if (creating && !trimmed) return setFieldError('Name the new group.');
    if (!creating && !groupId) return setFieldError('Choose a group.');
    setFieldError(undefined);
    await run(async () => {
      const group = creating
        ? await api.groups.create(trimmed, ids)
        : await api.groups.addMembers(groupId, ids);
      notify(
        'success',
        `Added ${plural(ids.length, 'contact')} to “${group.name}” (${plural(group.memberCount, 'member')}).`,
      );
      onClose();
    });
  };

  return (
    <FormDialog
      title={`Add ${plural(contacts.length, 'contact')} to a group`}
      onClose={onClose}
      onSubmit={(event) => void submit(event)}
      submitLabel={busy ? 'Adding…' : 'Add to group'}
      submitTestId="contacts-group-submit"
      busy={busy}
      error={error ?? groupsError}
      testId="contacts-group-dialog"
      formId={formId}
      lead={
        <p className="hint">
          A campaign can go to everyone in a group. Contacts already in it stay in it once.
        </p>
      }
    >
      {status === 'ready' && groups.length > 0 ? (
        <RadioCards
          name={`${formId}-mode`}
          legend="Which group"
          legendHidden
          value={mode}
          onChange={(value) => {
            setMode(value);
            setFieldError(undefined);
          }}
          choices={[
            { value: 'existing', label: 'An existing group', help: 'Add them to it.' },
            { value: NEW_GROUP, label: 'A new group', help: 'Make it with them in it.' },
          ]}
          testId={(value) => `contacts-group-mode-${value}`}
        />
      ) : null}
      {creating ? (
        <div className="field">
          <label htmlFor={fieldId}>New group’s name</label>
          <input
            id={fieldId}
            className={`input${fieldError ? ' invalid' : ''}`}
            value={name}
            maxLength={100}
            autoFocus
            onChange={(event) => setName(event.target.value)}
            {...errorAria(fieldId, fieldError)}
            data-testid="contacts-group-name"
          />
          <FieldError fieldId={fieldId} message={fieldError} />
        </div>
      ) : (
        <div className="field">
          <label htmlFor={fieldId}>Group</label>
          <select
            id={fieldId}
            className={`select${fieldError ? ' invalid' : ''}`}
            value={groupId}
            disabled={status !== 'ready'}
            onChange={(event) => setGroupId(event.target.value)}
            {...errorAria(fieldId, fieldError)}
            data-testid="contacts-group-select"
          >
            <option value="">{status === 'loading' ? 'Loading groups…' : 'Choose a group…'}</option>
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name} ({plural(g.memberCount, 'contact')})
              </option>
            ))}
          </select>
          <FieldError fieldId={fieldId} message={fieldError} />
        </div>
      )}
    </FormDialog>
  );
}

/**
 * Gives each contact the labels typed, kept with its own: each contact is updated through its
 * PATCH, a few at a time, and one contact's error (e.g. too many labels) does not stop the rest.
 */
function AddLabelDialog({ contacts, onClose }: { contacts: Contact[]; onClose: () => void }) {
  const formId = useId();
  const fieldId = `${formId}-labels`;
  const [text, setText] = useState('');
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(0);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const labels = splitLabels(text);
    const problem = labels.length === 0 ? 'Type a label.' : labelsProblem(labels);
    if (problem) return setFieldError(problem);
    setFieldError(undefined);
    setError(null);
    setBusy(true);
    setDone(0);
    const todo = contacts.filter((c) => labels.some((l) => !c.labels.includes(l)));
    const failures: string[] = [];
    let next = 0;
    let finished = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) {
        const contact = todo[next++]!;
        try {
          await api.contacts.patch(contact.id, {
            labels: [...new Set([...contact.labels, ...labels])],
          });
        } catch (e) {
          failures.push(`${contactLabel(contact)}: ${errorMessage(e)}`);
        }
        finished += 1;
        setDone(finished);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, todo.length) }, worker));
    void useContacts.getState().load();
    setBusy(false);
    const labelled = contacts.length - failures.length;
    if (failures.length > 0) {
      setError(
        `${plural(labelled, 'contact')} labelled; ${plural(failures.length, 'contact')} not: ${failures.join('; ')}`,
      );
      return;
    }
    notify('success', `Labelled ${plural(labelled, 'contact')} “${labels.join(', ')}”.`);
    onClose();
  };

  return (
    <FormDialog
      title={`Label ${plural(contacts.length, 'contact')}`}
      onClose={onClose}
      onSubmit={(event) => void submit(event)}
      submitLabel={busy ? `Labelling… ${done} of ${contacts.length}` : 'Add label'}
      submitTestId="contacts-label-submit"
      busy={busy}
      error={error}
      testId="contacts-label-dialog"
      formId={formId}
      lead={
        <p className="hint">
          Each contact keeps its own labels too. A campaign can go to contacts with a label.
        </p>
      }
    >
      <div className="field">
        <label htmlFor={fieldId}>Label</label>
        <input
          id={fieldId}
          className={`input${fieldError ? ' invalid' : ''}`}
          value={text}
          autoFocus
          onChange={(event) => setText(event.target.value)}
          {...errorAria(fieldId, fieldError, `${fieldId}-hint`)}
          data-testid="contacts-label-input"
        />
        <p className="hint" id={`${fieldId}-hint`}>
          {LABEL_SEPARATOR_HINT}
        </p>
        <FieldError fieldId={fieldId} message={fieldError} />
      </div>
    </FormDialog>
  );
}
