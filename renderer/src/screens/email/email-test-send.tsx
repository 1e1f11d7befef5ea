import { useEffect, useRef, useState } from 'react';
import { isEmailAddress } from '../../../../shared/email-rules.ts';
import { errorMessage } from '../../api/client.ts';
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
  /** Saves the campaign if needed, then sends its content to `to`. */
  send: (to: string) => Promise<EmailMessage>;
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

/** "Send a test email to me": the campaign as it is now, to one address (remembered here). */
export function EmailTestSend({ send, disabled, testMode }: EmailTestSendProps) {
  const [to, setTo] = useState(rememberedTestAddress);
  const [error, setError] = useState<string | undefined>(undefined);
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
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
      message = await send(address);
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
        Saves the campaign, then sends it as it is now to this address alone, marked [Test]:{' '}
        <code>{'{{contact.email}}'}</code> is this address, other placeholders stay empty, and
        nothing is tracked.{' '}
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
