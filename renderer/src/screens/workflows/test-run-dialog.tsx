import { useEffect, useState, type FormEvent } from 'react';
import type { Contact, InteractiveList } from '../../../../shared/schemas/index.ts';
import { api, errorMessage, type WorkflowRunDetail } from '../../api/client.ts';
import { Dialog } from '../../components/dialog.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { FormButtons } from '../../components/form-buttons.tsx';
import { FormError } from '../../components/form-error.tsx';
import { SearchField } from '../../components/search-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useDebounced } from '../../components/use-debounced.ts';
import { useRoute } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import type { Workflow } from '../../stores/workflows.ts';
import { runContact, type RunStepLike } from './run-format.ts';
import { TimesOut } from './run-steps.tsx';

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
  const testMode = useSession(selectIsTestMode);
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
        Runs {workflow.status === 'draft' ? 'this draft' : 'the workflow’s active version'} for one
        contact now, whatever its trigger.{' '}
        {testMode
          ? 'Messages go to the simulator, and on the run’s page you answer as the customer to walk each branch.'
          : 'Messages really go out to the contact.'}
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

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The list the run sent last (its id from the step's output, else from the step as defined). */
function lastListId(steps: readonly RunStepLike[], workflow: Workflow): string | null {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    if (step.type !== 'send_list' || step.status !== 'completed') continue;
    const out = isRec(step.output) ? step.output : {};
    const sent = isRec(out.sent) ? out.sent : {};
    const defined = workflow.steps.find((s) => s.id === step.stepId)?.listId;
    const id = [out.listId, sent.listId, defined].find((v) => typeof v === 'string' && v !== '');
    return typeof id === 'string' ? id : null;
  }
  return null;
}

/** The list's rows as the customer sees them; null while it loads (or when there is none). */
function useList(listId: string | null): { list: InteractiveList | null; error: string | null } {
  const [state, setState] = useState<{
    id: string | null;
    list: InteractiveList | null;
    error: string | null;
  }>({ id: null, list: null, error: null });
  useEffect(() => {
    if (!listId) return;
    let live = true;
    api.interactiveLists.get(listId).then(
      (list) => live && setState({ id: listId, list, error: null }),
      (e: unknown) => live && setState({ id: listId, list: null, error: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [listId]);
  return state.id === listId ? state : { list: null, error: null };
}

/**
 * Test mode's customer (README "Run history", test mode): while a run is in flight the owner
 * answers as the contact — a text, or a row of the list the run sent — through the simulated
 * channel, so every branch can be walked without the API. A timeout cannot be hurried (the
 * core's clock is the real one): the panel says when it comes.
 */
export function PlayCustomer({ workflow, run }: { workflow: Workflow; run: WorkflowRunDetail }) {
  const [text, setText] = useState('');
  const [said, setSaid] = useState<string | null>(null);
  const { busy, error, run: act } = useAction();
  const listId = lastListId(run.steps, workflow);
  const { list, error: listError } = useList(listId);
  const waiting = [...run.steps].reverse().find((s) => s.status === 'waiting') ?? null;
  const who = runContact(run);

  const send = (
    body: { message: string } | { listReply: { listId: string; rowId: string } },
    words: string,
  ) =>
    act(async () => {
      await api.simulator.inbound({ phone: run.phone, ...body });
      setSaid(words);
      if ('message' in body) setText('');
    });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const message = text.trim();
    if (message) void send({ message }, `Sent “${message}” as ${who}.`);
  };

  const rows = list?.sections.flatMap((section) => section.rows) ?? [];
  return (
    <section
      className="card play-customer"
      aria-labelledby="play-customer-title"
      data-testid="test-run-panel"
    >
      <div className="play-customer-head">
        <h2 id="play-customer-title">Play the customer</h2>
        {waiting ? <TimesOut step={waiting} /> : null}
      </div>
      <form className="play-customer-reply" onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor="play-customer-text">What the customer writes</label>
          <input
            id="play-customer-text"
            className="input"
            value={text}
            onChange={(e) => setText(e.target.value)}
            maxLength={4096}
            autoComplete="off"
            data-testid="test-run-reply-text"
          />
        </div>
        <button
          type="submit"
          className="button"
          disabled={busy || text.trim() === ''}
          data-testid="test-run-reply"
        >
          Send as the customer
        </button>
      </form>
      {listId ? (
        <div className="field">
          <span className="field-label" id="play-customer-rows">
            Or pick from the list the run sent{list ? ` (“${list.name}”)` : ''}
          </span>
          {listError ? <p className="field-error">{listError}</p> : null}
          <ul className="play-customer-rows" aria-labelledby="play-customer-rows">
            {rows.map((row) => (
              <li key={row.id}>
                <button
                  type="button"
                  className="button button-small"
                  disabled={busy}
                  onClick={() =>
                    void send(
                      { listReply: { listId, rowId: row.id } },
                      `Picked “${row.title}” as ${who}.`,
                    )
                  }
                  data-testid="test-run-pick-row"
                  data-row-id={row.id}
                >
                  {row.title}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="hint">
        Test mode: what you send goes in as {who}’s reply, through the simulator.
        {waiting?.type === 'wait_for_reply'
          ? ' To walk the timeout path, leave the run: it takes that path when the time comes.'
          : ''}{' '}
        <span role="status" data-testid="test-run-said">
          {said}
        </span>
      </p>
      <FormError error={error} testId="test-run-error" />
    </section>
  );
}
