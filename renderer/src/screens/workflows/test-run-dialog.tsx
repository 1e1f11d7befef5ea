import { useState } from 'react';
import type { Contact } from '../../../../shared/schemas/index.ts';
import { api, errorMessage } from '../../api/client.ts';
import { Dialog } from '../../components/dialog.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { FormButtons } from '../../components/form-buttons.tsx';
import { FormError } from '../../components/form-error.tsx';
import { SearchField } from '../../components/search-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useDebounced } from '../../components/use-debounced.ts';
import { useRoute } from '../../stores/route.ts';
import type { Workflow } from '../../stores/workflows.ts';

function parsePayload(
  text: string,
): { ok: true; payload?: Record<string, unknown> } | { ok: false } {
  if (!text.trim()) return { ok: true };
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return { ok: true, payload: value as Record<string, unknown> };
    }
  } catch {
    // Said under the field.
  }
  return { ok: false };
}

/** Starts a run for a contact (with an optional payload) and opens its timeline. */
export function TestRunDialog({ workflow, onClose }: { workflow: Workflow; onClose: () => void }) {
  const navigate = useRoute((s) => s.navigate);
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Contact[] | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);
  const [contact, setContact] = useState<Contact | null>(null);
  const [payloadText, setPayloadText] = useState('');
  const { busy, error, run } = useAction();

  useDebounced(
    query,
    (q) => {
      api.contacts.list({ q, limit: 8 }).then(
        (page) => {
          setFound(page.data);
          setSearchError(null);
        },
        (e: unknown) => setSearchError(errorMessage(e)),
      );
    },
    250,
  );

  const parsed = parsePayload(payloadText);
  const payloadError = parsed.ok
    ? undefined
    : 'The payload is a JSON object, e.g. {"cartId": "C-1"}.';
  const start = () =>
    run(async () => {
      if (!contact || !parsed.ok) return;
      const started = await api.workflows.trigger({
        workflowId: workflow.id,
        contactId: contact.id,
        ...(parsed.payload ? { payload: parsed.payload } : {}),
      });
      onClose();
      navigate('workflows', `${workflow.id}/runs/${started.id}`);
    });

  return (
    <Dialog
      title={`Test run of “${workflow.name}”`}
      onClose={onClose}
      dismissible={!busy}
      testId="wf-test-dialog"
      footer={
        <FormButtons
          onCancel={onClose}
          cancelDisabled={busy}
          onConfirm={() => void start()}
          disabled={busy || !contact || !parsed.ok}
          testId="wf-test-start"
        >
          {busy ? 'Starting…' : 'Start the run'}
        </FormButtons>
      }
    >
      <p className="dialog-lead">
        Runs the workflow’s current version for one contact now, whatever its trigger. Messages
        really go out (in test mode, to the simulator).
      </p>
      <div className="field">
        <span className="field-label" id="wf-test-contact-label">
          Contact
        </span>
        <SearchField
          value={query}
          onChange={setQuery}
          placeholder="Search by name or phone"
          label="Search contacts"
          testId="wf-test-search"
        />
        {searchError ? <p className="field-error">{searchError}</p> : null}
        <ul
          className="wf-contact-results"
          role="listbox"
          aria-labelledby="wf-test-contact-label"
          data-testid="wf-test-results"
        >
          {(found ?? []).map((c) => (
            <li
              key={c.id}
              role="option"
              aria-selected={contact?.id === c.id}
              tabIndex={0}
              className={`wf-contact-result${contact?.id === c.id ? ' selected' : ''}`}
              onClick={() => setContact(c)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  setContact(c);
                }
              }}
              data-testid="wf-test-contact"
            >
              <strong>{c.name ?? c.phone}</strong> <span className="muted mono">{c.phone}</span>
            </li>
          ))}
          {found && found.length === 0 ? <li className="muted">No contact matches.</li> : null}
        </ul>
      </div>
      <div className="field">
        <label htmlFor="wf-test-payload">
          Payload (JSON) <span className="optional">(optional)</span>
        </label>
        <textarea
          id="wf-test-payload"
          className={`input textarea mono${payloadError ? ' invalid' : ''}`}
          rows={4}
          spellCheck={false}
          placeholder={'{ "cartId": "C-1001", "total": 42 }'}
          value={payloadText}
          onChange={(e) => setPayloadText(e.target.value)}
          {...errorAria('wf-test-payload', payloadError)}
          data-testid="wf-test-payload"
        />
        <FieldError fieldId="wf-test-payload" message={payloadError} />
        {payloadError ? null : (
          <p className="hint">
            The steps read it as <code>{'{{payload.X}}'}</code>.
          </p>
        )}
      </div>
      <FormError error={error} testId="wf-test-error" />
    </Dialog>
  );
}
