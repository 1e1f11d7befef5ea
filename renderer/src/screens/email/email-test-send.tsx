import { useEffect, useRef, useState } from 'react';
import { isEmailAddress } from '../../../../shared/email-rules.ts';
import type { Contact } from '../../../../shared/schemas/contacts.ts';
import { api, errorMessage, isAbortError } from '../../api/client.ts';
import { emailApi } from '../../stores/email-api.ts';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { SendIcon } from '../../components/icons.tsx';
import type { EmailMessage } from '../../stores/email-api.ts';
import { EMAIL_STATUS_LABELS, rememberedTestAddress, rememberTestAddress } from './email-format.ts';
import { useRightGate } from '../../components/needs-right.tsx';

type Outcome =
  | { kind: 'idle' }
  | { kind: 'sending' }
  | { kind: 'sent'; message: EmailMessage }
  | { kind: 'failed'; error: string };

interface EmailTestSendProps {
  /** Saves the campaign if needed, then sends its content to `to`, filled from the contact. */
  send: (to: string, contactId?: string) => Promise<EmailMessage>;
  /** Another request of the editor is under way. */
  disabled: boolean;
  testMode: boolean;
}

const FIELD_ID = 'email-test-to';

/** How often, and how many times, a test still on its way is read again for its outcome. */
const FOLLOW_EVERY_MS = 1_000;
const FOLLOW_TIMES = 20;

/** Not settled yet: a handed-over email is still to be delivered or bounced. */
const underWay = (m: EmailMessage): boolean =>
  m.status === 'pending' || m.status === 'sending' || m.status === 'sent';

function progressWords(m: EmailMessage): string {
  if (m.status === 'sent') return 'handed over, waiting for the receiving server…';
  if (underWay(m)) return 'being sent…';
  return `${EMAIL_STATUS_LABELS[m.status].toLowerCase()}`;
}

const contactName = (c: Contact): string => c.name ?? c.email ?? c.phone ?? c.id;

const PICKER_ID = 'email-test-contact';
/** How long typing pauses before contacts are searched. */
const SEARCH_AFTER_MS = 250;

/**
 * "Fill the placeholders from": a search over the workspace's contacts (name, phone, email); the
 * chosen one fills `{{contact.*}}` in the test email, as that contact's own email would be.
 */
function TestContactPicker({
  chosen,
  onChoose,
  onUseAddress,
}: {
  chosen: Contact | null;
  onChoose: (c: Contact | null) => void;
  onUseAddress: (address: string) => void;
}) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Contact[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);

  useEffect(() => {
    const query = q.trim();
    if (!query || chosen) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      api.contacts.list({ q: query, limit: 8 }, controller.signal).then(
        (page) => {
          setFound(page.data);
          setFailed(null);
        },
        (e: unknown) => {
          if (!isAbortError(e)) setFailed(errorMessage(e));
        },
      );
    }, SEARCH_AFTER_MS);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [q, chosen]);

  if (chosen) {
    return (
      <div className="field email-test-contact" data-testid="email-test-contact-chosen">
        <span className="field-label">Placeholders filled from</span>
        <div className="email-test-contact-chosen">
          <strong>{contactName(chosen)}</strong>
          {chosen.email ? <span className="muted">{chosen.email}</span> : null}
          {chosen.email ? (
            <button
              type="button"
              className="button button-small"
              onClick={() => onUseAddress(chosen.email!)}
              data-testid="email-test-use-address"
            >
              Send to their address
            </button>
          ) : null}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              onChoose(null);
              setQ('');
              setFound(null);
            }}
            data-testid="email-test-contact-clear"
          >
            Choose another contact
          </button>
        </div>
      </div>
    );
  }

  const query = q.trim();
  return (
    <div className="field email-test-contact">
      <label htmlFor={PICKER_ID}>
        Fill the placeholders from a contact <span className="optional">(optional)</span>
      </label>
      <input
        id={PICKER_ID}
        type="search"
        className="input"
        value={q}
        placeholder="Search by name, phone or email"
        autoComplete="off"
        aria-describedby={`${PICKER_ID}-status`}
        onChange={(event) => setQ(event.target.value)}
        onKeyDown={(event) => {
          // Enter picks the first match rather than submitting the editor's form.
          if (event.key === 'Enter') {
            event.preventDefault();
            if (query && found?.[0]) onChoose(found[0]);
          }
        }}
        data-testid="email-test-contact-search"
      />
      <p className="hint" id={`${PICKER_ID}-status`} aria-live="polite">
        {!query || found === null
          ? failed
            ? `Contacts could not be searched: ${failed}`
            : 'The test is filled in as this contact’s email would be.'
          : found.length === 0
            ? `No contact matches “${query}”.`
            : `${found.length === 1 ? 'One contact matches' : `${found.length} contacts match`}: choose one.`}
      </p>
      {query && found && found.length > 0 ? (
        <ul className="email-test-contact-results" aria-label="Matching contacts">
          {found.map((c) => (
            <li key={c.id}>
              <button
                type="button"
                onClick={() => onChoose(c)}
                data-testid="email-test-contact-option"
              >
                <strong>{contactName(c)}</strong>{' '}
                <span className="muted">{c.email ?? 'no email address'}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** "Send a test email to me": the campaign as it is now, to one address (remembered here). */
export function EmailTestSend({ send, disabled, testMode }: EmailTestSendProps) {
  const [to, setTo] = useState(rememberedTestAddress);
  const [error, setError] = useState<string | undefined>(undefined);
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const [contact, setContact] = useState<Contact | null>(null);
  const { gate } = useRightGate('campaigns.write');
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const submit = async () => {
    if (outcome.kind === 'sending' || disabled) return;
    const address = to.trim();
    if (!isEmailAddress(address)) {
      setError('Enter the address to send the test to, like you@example.com.');
      document.getElementById(FIELD_ID)?.focus();
      return;
    }
    rememberTestAddress(address);
    setOutcome({ kind: 'sending' });
    let message: EmailMessage;
    try {
      message = await send(address, contact?.id);
    } catch (e) {
      setOutcome({ kind: 'failed', error: errorMessage(e) });
      return;
    }
    setOutcome({ kind: 'sent', message });
    // The answer comes as soon as the email is queued: follow it until the transport answers.
    for (let i = 0; i < FOLLOW_TIMES && underWay(message); i++) {
      await new Promise((resolve) => window.setTimeout(resolve, FOLLOW_EVERY_MS));
      try {
        message = await emailApi.message(message.id);
      } catch {
        return;
      }
      if (!mounted.current) return;
      setOutcome({ kind: 'sent', message });
    }
  };

  const sent = outcome.kind === 'sent' ? outcome.message : null;
  const sentBad = sent && (sent.status === 'failed' || sent.status === 'bounced');

  return (
    <div className="email-test" data-testid="email-test">
      <TestContactPicker
        chosen={contact}
        onChoose={(c) => {
          setContact(c);
          // The test goes to the address typed; with none yet, to the contact's own.
          if (c?.email && !to.trim()) setTo(c.email);
        }}
        onUseAddress={(address) => {
          setTo(address);
          setError(undefined);
        }}
      />
      <div className="form-row">
        <div className="field field-grow">
          <label htmlFor={FIELD_ID}>Send a test email to</label>
          <input
            id={FIELD_ID}
            type="email"
            className={`input${error ? ' invalid' : ''}`}
            value={to}
            placeholder="you@example.com"
            autoComplete="email"
            {...errorAria(FIELD_ID, error, `${FIELD_ID}-hint`)}
            onChange={(event) => {
              setTo(event.target.value);
              setError(undefined);
            }}
            onKeyDown={(event) => {
              // Enter sends the test, not the campaign (the field is inside the editor's form).
              if (event.key === 'Enter') {
                event.preventDefault();
                void submit();
              }
            }}
            data-testid="email-test-to"
          />
        </div>
        <div className="field field-action">
          <button
            type="button"
            className="button"
            {...gate}
            onClick={() => void submit()}
            disabled={disabled || outcome.kind === 'sending' || gate.disabled}
            data-testid="email-test-send"
          >
            <SendIcon />
            {outcome.kind === 'sending' ? 'Sending…' : 'Send test'}
          </button>
        </div>
      </div>
      <FieldError fieldId={FIELD_ID} message={error} />
      <p className="hint" id={`${FIELD_ID}-hint`}>
        Saves the campaign, then sends it as it is now to this address alone, marked [Test]
        {contact ? (
          <>
            : the placeholders are filled from {contactName(contact)}’s details, and nothing is
            tracked.{' '}
          </>
        ) : (
          <>
            : <code>{'{{contact.email}}'}</code> is this address, other placeholders stay empty
            (choose a contact above to fill them), and nothing is tracked.{' '}
          </>
        )}
        {testMode
          ? 'In test mode it goes to the simulated transport and reaches no real inbox.'
          : 'It goes out through your SMTP server like the campaign will.'}
      </p>
      <div aria-live="polite">
        {sent ? (
          <p
            className={`email-test-result${sentBad ? ' email-test-result-bad' : ''}`}
            data-testid="email-test-result"
            data-status={sent.status}
          >
            Test to <strong>{sent.to}</strong>: {progressWords(sent)}
            {sent.error ? ` — ${sent.error.message}` : underWay(sent) ? '' : '.'}
            {sent.smtpResponse ? (
              <>
                {' '}
                The server said: <code>{sent.smtpResponse}</code>
              </>
            ) : null}
          </p>
        ) : outcome.kind === 'failed' ? (
          <p className="email-test-result email-test-result-bad" data-testid="email-test-result">
            The test was not sent: {outcome.error}
          </p>
        ) : null}
      </div>
    </div>
  );
}
