import { useState, type ReactNode } from 'react';
import { EMAIL_LIMITS, isEmailAddress } from '../../../../shared/email-rules.ts';
import { errorMessage } from '../../api/client.ts';
import { CheckField } from '../../components/check-field.tsx';
import { CheckNotRun, CheckResult } from '../../components/check-result.tsx';
import { CountedField } from '../../components/counted-field.tsx';
import { EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useRecord } from '../../components/record-loader.tsx';
import { SecretField, stateBadgeClass } from '../../components/secret-field.tsx';
import { SettingsSave } from '../../components/settings-save.tsx';
import { TextField } from '../../components/text-field.tsx';
import { useSettingsForm } from '../../components/use-settings-form.ts';
import { emailApi, type EmailSettings, type SmtpCheck } from '../../stores/email-api.ts';
import { hrefFor } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import { rememberedTestAddress, rememberTestAddress } from './email-format.ts';
import { EmailTabs } from './email-tabs.tsx';
import {
  checkSettings,
  SECURE_PORT,
  SETTINGS_ORDER,
  settingsBody,
  settingsDraftOf,
  settingsFieldId,
  settingsParam,
  STARTTLS_PORT,
  type SecretMode,
  type SettingsDraft,
} from './settings-draft.ts';

const FORM_ID = 'email-settings-form';

/** The draft's text fields. */
type TextKey = {
  [K in keyof SettingsDraft]: string extends SettingsDraft[K] ? K : never;
}[keyof SettingsDraft];

const optional = (label: string) => (
  <>
    {label} <span className="optional">(optional)</span>
  </>
);

function Checkbox({
  param,
  ...field
}: {
  param: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  help: ReactNode;
}) {
  return <CheckField id={settingsFieldId(param)} {...field} />;
}

type CheckState =
  | { kind: 'idle' }
  | { kind: 'running'; to: string | null }
  | { kind: 'answered'; to: string | null; result: SmtpCheck }
  | { kind: 'error'; to: string | null; error: string };

/** What each outcome of the check means, as its title (README "Email": the check's classes). */
const OUTCOME_TITLES: Record<NonNullable<SmtpCheck['outcome']>, string> = {
  connected: 'Connected and signed in',
  auth_failed: 'The server refused the login',
  tls_failed: 'The secure connection (TLS) failed',
  unreachable: 'Could not reach the server',
  not_smtp: 'That is not an SMTP server',
};

/** The check's classified outcome and what Parley found, styled by whether it worked. */
function CheckAnswer({ state }: { state: CheckState }) {
  if (state.kind === 'idle') return null;
  if (state.kind === 'running') {
    return (
      <p className="hint" aria-busy="true">
        {state.to ? `Sending a test message to ${state.to}…` : 'Connecting…'}
      </p>
    );
  }
  if (state.kind === 'error') {
    return <CheckNotRun testId="email-check-result" error={state.error} />;
  }
  const { result, to } = state;
  return (
    <CheckResult
      ok={result.ok}
      testId="email-check-result"
      title={
        result.ok
          ? to
            ? `Test message accepted for ${to}`
            : OUTCOME_TITLES.connected
          : result.outcome === 'connected' && to
            ? 'The test message was not accepted'
            : result.outcome
              ? OUTCOME_TITLES[result.outcome]
              : 'The connection failed'
      }
      aside={result.code ? <code>{result.code}</code> : null}
    >
      <pre className="email-server-response" data-testid="email-check-response" tabIndex={0}>
        {result.response}
      </pre>
    </CheckResult>
  );
}

function SettingsForm({
  settings,
  onSaved,
}: {
  settings: EmailSettings;
  onSaved: (settings: EmailSettings) => void;
}) {
  const testMode = useSession(selectIsTestMode);
  const { draft, errors, formError, busy, dirty, change, save, submit } = useSettingsForm({
    settings,
    draftOf: settingsDraftOf,
    check: checkSettings,
    order: SETTINGS_ORDER,
    paramOf: settingsParam,
    fieldId: settingsFieldId,
    send: (d, s) => emailApi.saveSettings(settingsBody(d, s)),
    onSaved,
    savedMessage: 'Saved the email settings.',
  });
  const [check, setCheck] = useState<CheckState>({ kind: 'idle' });
  const [to, setTo] = useState(rememberedTestAddress);
  const [toError, setToError] = useState<string | undefined>(undefined);

  const runCheck = async (address: string | null) => {
    if (busy || check.kind === 'running') return;
    if (address !== null) {
      if (!isEmailAddress(address)) {
        setToError('Enter the address to send the test message to, like you@example.com.');
        document.getElementById('email-settings-check-to')?.focus();
        return;
      }
      rememberTestAddress(address);
    }
    // The check uses the saved settings: what is on screen is saved first.
    if (dirty && !(await save())) return;
    setCheck({ kind: 'running', to: address });
    try {
      const result = await emailApi.checkSettings(address ?? undefined);
      setCheck({ kind: 'answered', to: address, result });
    } catch (e) {
      setCheck({ kind: 'error', to: address, error: errorMessage(e) });
    }
  };

  /** What a setting takes to show and change `key` of the draft, the core's `param`. */
  const textOf = (key: TextKey, param: string) => ({
    id: settingsFieldId(param),
    value: draft[key],
    error: errors[param],
    onChange: (value: string) => change({ [key]: value }, [param]),
  });
  const checkOf = (key: 'smtpOn' | 'dkimOn', param: string) => ({
    param,
    checked: draft[key],
    onChange: (checked: boolean) => change({ [key]: checked }, [param]),
  });
  const secretOf = (
    key: 'password' | 'dkimKey',
    modeKey: 'passwordMode' | 'dkimKeyMode',
    param: string,
  ) => ({
    ...textOf(key, param),
    mode: draft[modeKey],
    // Another choice starts over: what was typed for the last one goes.
    onMode: (mode: SecretMode) => change({ [modeKey]: mode, [key]: '' }, [param]),
  });

  const password = secretOf('password', 'passwordMode', 'smtp.password');
  const smtp = settings.smtp;
  const toggleSecure = (secure: boolean) => {
    // The usual port follows the choice, unless another port was typed.
    const port =
      secure && draft.port === STARTTLS_PORT
        ? SECURE_PORT
        : !secure && draft.port === SECURE_PORT
          ? STARTTLS_PORT
          : draft.port;
    change({ secure, port }, ['smtp.secure', 'smtp.port']);
  };

  return (
    <>
      {formError ? <ErrorBanner message={formError} testId="email-settings-error" /> : null}
      <div
        className={`banner ${settings.transport === 'simulated' ? 'banner-info' : 'banner-warning'}`}
        role="note"
        data-testid="email-transport"
        data-transport={settings.transport}
      >
        <span className="banner-text">
          {settings.transport === 'simulated' ? (
            <>
              <strong>Simulated transport.</strong>{' '}
              {testMode
                ? 'Test mode (and every test key) always uses it: emails are delivered, opened and bounced by the simulator, and never leave this computer. A server set up here is only used by “Check connection”; switch to Live to set up the one live email goes out through.'
                : 'No SMTP server is set up for live mode yet, so live emails are simulated too. Set one up below.'}
            </>
          ) : (
            <>
              <strong>Live email goes out through your SMTP server.</strong> Test keys still use the
              simulated transport.
            </>
          )}
        </span>
      </div>

      <div className="editor-grid">
        <form
          id={FORM_ID}
          className="card editor-form"
          noValidate
          onSubmit={submit}
          data-testid="email-settings-form"
        >
          <EditorSection title="Mail server (SMTP)">
            <Checkbox
              {...checkOf('smtpOn', 'smtp')}
              label="Send through an SMTP server"
              help="Your email provider (or your own server) gives you its name, port, user and password."
            />
            {draft.smtpOn ? (
              <>
                <div className="email-server-grid">
                  <TextField
                    {...textOf('host', 'smtp.host')}
                    label="Server"
                    placeholder="smtp.example.com"
                  />
                  <TextField {...textOf('port', 'smtp.port')} label="Port" inputMode="numeric" />
                </div>
                <Checkbox
                  param="smtp.secure"
                  checked={draft.secure}
                  onChange={toggleSecure}
                  label="Encrypt from the start (TLS)"
                  help={
                    <>
                      On for port <strong>465</strong>: the connection is encrypted from the first
                      byte. Off for port <strong>587</strong> (or 25): it starts plain and switches
                      to encryption with STARTTLS when the server offers it. Your provider says
                      which.
                    </>
                  }
                />
                <div className="form-grid-2">
                  <TextField
                    {...textOf('user', 'smtp.user')}
                    label={optional('User')}
                    autoComplete="username"
                  />
                  <SecretField
                    {...password}
                    label="Password"
                    isSet={smtp?.passwordSet ?? false}
                    onRemove={() => password.onMode('remove')}
                  />
                </div>
              </>
            ) : null}
          </EditorSection>

          <EditorSection title="Sending">
            <TextField
              {...textOf('rate', 'ratePerSecond')}
              label="Emails a second"
              inputMode="numeric"
              className="email-rate-field"
              hint="Campaigns never send faster. Many providers allow 10 to 50 a second; ask yours before raising it."
            />
            <div className="form-grid-2">
              <CountedField
                id={settingsFieldId('defaultFromName')}
                label={optional('Default from name')}
                value={draft.defaultFromName}
                max={EMAIL_LIMITS.fromName}
                error={errors.defaultFromName}
                onChange={(defaultFromName) => change({ defaultFromName }, ['defaultFromName'])}
                placeholder="Your shop"
                testId={settingsFieldId('defaultFromName')}
              />
              <TextField
                {...textOf('defaultFromEmail', 'defaultFromEmail')}
                label={optional('Default from email')}
                type="email"
                placeholder="news@yourshop.com"
              />
            </div>
            <p className="hint">New campaigns start with this sender.</p>
          </EditorSection>

          <EditorSection title="Tracking and unsubscribe">
            <TextField
              {...textOf('publicUrl', 'publicUrl')}
              label={optional('Public address')}
              type="url"
              placeholder="https://mail.yourshop.com"
              hint={
                <>
                  Opens, clicks and unsubscribes go through links to this address, so recipients
                  must be able to reach it from their own devices. Empty: this app’s own address,{' '}
                  <code data-testid="email-effective-url">{settings.effectivePublicUrl}</code>,
                  which only works on this computer or network.
                </>
              }
            />
            <p
              className="email-one-click"
              data-testid="email-one-click"
              data-on={settings.oneClickUnsubscribe}
            >
              <span className={stateBadgeClass(settings.oneClickUnsubscribe)}>
                One-click unsubscribe {settings.oneClickUnsubscribe ? 'on' : 'off'}
              </span>{' '}
              <span className="hint">
                {settings.oneClickUnsubscribe
                  ? 'Mail apps show their own “Unsubscribe” button, which works in one click.'
                  : 'Needs an https public address. Until then, emails offer unsubscribing by reply email and through a page that asks to confirm.'}
              </span>
            </p>
          </EditorSection>

          <EditorSection title="DKIM signature">
            <Checkbox
              {...checkOf('dkimOn', 'dkim')}
              label="Sign emails with DKIM"
              help="Receiving servers check the signature against a public key in your domain’s DNS; signed email is far less likely to land in spam."
            />
            {draft.dkimOn ? (
              <>
                <div className="form-grid-2">
                  <TextField
                    {...textOf('dkimDomain', 'dkim.domainName')}
                    label="Domain"
                    placeholder="yourshop.com"
                  />
                  <TextField
                    {...textOf('dkimSelector', 'dkim.keySelector')}
                    label="Selector"
                    placeholder="parley"
                    hint="The DNS record is <selector>._domainkey.<domain>."
                  />
                </div>
                <SecretField
                  {...secretOf('dkimKey', 'dkimKeyMode', 'dkim.privateKey')}
                  label="Private key"
                  isSet={settings.dkim?.keySet ?? false}
                  multiline
                  placeholder="-----BEGIN PRIVATE KEY-----"
                  hint="PEM text. It is stored in this app’s data and used only to sign."
                />
              </>
            ) : null}
          </EditorSection>

          <SettingsSave
            busy={busy}
            dirty={dirty}
            updatedAt={settings.updatedAt}
            testId="email-settings-save"
          />
        </form>

        <aside className="card email-check-card" aria-labelledby="email-check-title">
          <h2 id="email-check-title" className="card-title">
            Check the connection
          </h2>
          <p className="hint">
            Connects to the server and signs in, as sending would; with an address, also sends it a
            short test message. {dirty ? 'Your changes are saved first.' : null}
          </p>
          <button
            type="button"
            className="button"
            onClick={() => void runCheck(null)}
            disabled={busy || check.kind === 'running'}
            data-testid="email-check-connection"
          >
            {check.kind === 'running' && check.to === null ? 'Checking…' : 'Check connection'}
          </button>
          <div className="field">
            <label htmlFor="email-settings-check-to">Send a test message to</label>
            <div className="form-row">
              <input
                id="email-settings-check-to"
                type="email"
                className={`input field-grow${toError ? ' invalid' : ''}`}
                value={to}
                placeholder="you@example.com"
                autoComplete="email"
                {...errorAria('email-settings-check-to', toError)}
                onChange={(event) => {
                  setTo(event.target.value);
                  setToError(undefined);
                }}
                data-testid="email-settings-check-to"
              />
              <button
                type="button"
                className="button"
                onClick={() => void runCheck(to.trim())}
                disabled={busy || check.kind === 'running'}
                data-testid="email-send-test-message"
              >
                {check.kind === 'running' && check.to !== null ? 'Sending…' : 'Send test message'}
              </button>
            </div>
            <FieldError fieldId="email-settings-check-to" message={toError} />
          </div>
          <div aria-live="polite">
            <CheckAnswer state={check} />
          </div>
        </aside>
      </div>
    </>
  );
}

/** The Email screen's settings: the mail server, pace, tracking address, DKIM and sender. */
export function EmailSettingsView() {
  const { loaded, retry, setRecord } = useRecord(emailApi.settings);
  const environment = useSession((s) => s.environment);

  return (
    <div
      className="screen screen-wide"
      data-testid="email-settings"
      aria-busy={loaded.state === 'loading'}
    >
      <PageHeader
        title="Email"
        description={
          <>
            How {environment === 'live' ? 'live' : 'test-mode'} email is sent: the mail server, how
            fast, the address tracking links use, and the signature. Each mode has its own settings.
            Campaigns are on the <a href={hrefFor('email')}>Campaigns</a> tab.
          </>
        }
      />
      <EmailTabs current="settings" />
      {loaded.state === 'loading' ? <p className="muted">Loading the settings…</p> : null}
      {loaded.state === 'error' ? <ErrorBanner message={loaded.error} onRetry={retry} /> : null}
      {loaded.state === 'ready' ? (
        <SettingsForm settings={loaded.record} onSaved={setRecord} />
      ) : null}
    </div>
  );
}
