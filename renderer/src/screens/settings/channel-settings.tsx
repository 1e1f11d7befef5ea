import { useState } from 'react';
import type { ChannelSettings } from '../../../../shared/schemas/channel.ts';
import { api, errorMessage } from '../../api/client.ts';
import { EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { SecretField } from '../../components/secret-field.tsx';
import { SettingsSave } from '../../components/settings-save.tsx';
import { TextField } from '../../components/text-field.tsx';
import { useSettingsForm } from '../../components/use-settings-form.ts';
import { useSession } from '../../stores/session.ts';
import { ChannelCheckCard, type CheckState } from './channel-check.tsx';
import {
  CHANNEL_ORDER,
  channelBody,
  channelDraftOf,
  channelFieldId,
  channelParam,
  checkChannel,
  DEFAULT_GRAPH_BASE_URL,
  type Provider,
  type SecretMode,
} from './channel-draft.ts';
import { ProviderChoice } from './channel-fields.tsx';
import { ChannelRejects } from './channel-rejects.tsx';
import { WebhookSection } from './channel-webhook.tsx';
import { LoadedSettings, OtherModeNotice } from './mode-settings.tsx';
import './channel-settings.css';

const FORM_ID = 'channel-settings-form';

const TEST_MODE_TEXT =
  'Test mode always uses the simulated channel. Switch to live to connect WhatsApp.';

/** What never goes through the Cloud API, whatever is set here. */
function SimulatedNote() {
  return (
    <section className="card channel-note" aria-labelledby="channel-note-title">
      <h2 id="channel-note-title" className="card-title">
        What stays simulated
      </h2>
      <ul>
        <li>
          <strong>Test keys and test mode.</strong> Every <code>svc_test_…</code> key and this app
          in Test mode use the simulated channel: their messages never reach WhatsApp and never
          charge the wallet.
        </li>
        <li>
          <strong>Template review for test keys.</strong> Templates created in test mode are
          approved or rejected by the simulator. Live templates go to Meta for review once the Cloud
          API is connected.
        </li>
        <li>
          <strong>Live mode until you connect.</strong> With the simulated channel chosen, live
          messages are simulated too, though they are charged like real ones.
        </li>
      </ul>
    </section>
  );
}

function TestModeNotice() {
  return (
    <>
      <OtherModeNotice to="live" testId="channel-test-mode" switchTestId="channel-switch-live">
        {TEST_MODE_TEXT}
      </OtherModeNotice>
      <SimulatedNote />
    </>
  );
}

/** Which channel live messages use now, in one sentence. */
function ChannelStatus({ settings }: { settings: ChannelSettings }) {
  const number = settings.number?.displayPhoneNumber ?? settings.phoneNumberId;
  return (
    <div
      className={`banner ${settings.connected ? 'banner-warning' : 'banner-info'}`}
      role="note"
      data-testid="channel-status"
      data-connected={settings.connected}
    >
      <span className="banner-text">
        {settings.connected ? (
          <>
            <strong>Live messages go to WhatsApp through the Cloud API</strong>
            {number ? <>, from {number}</> : null}. They reach real customers and are charged to the
            wallet. Test keys still use the simulated channel.
          </>
        ) : (
          <>
            <strong>Simulated channel.</strong> Live messages are delivered and read by the
            simulator and never reach WhatsApp. Connect the Cloud API below to send for real.
          </>
        )}
      </span>
    </div>
  );
}

function ChannelForm({
  settings,
  onSaved,
}: {
  settings: ChannelSettings;
  onSaved: (settings: ChannelSettings) => void;
}) {
  const [check, setCheck] = useState<CheckState>({ kind: 'idle' });
  const [changingToken, setChangingToken] = useState(false);
  const [advancedOpen, setAdvancedOpen] = useState(
    () => channelDraftOf(settings).graphBaseUrl !== '',
  );
  const { draft, errors, formError, busy, dirty, change, save, submit } = useSettingsForm({
    settings,
    draftOf: channelDraftOf,
    check: checkChannel,
    order: CHANNEL_ORDER,
    paramOf: channelParam,
    fieldId: channelFieldId,
    reveal: (param) => {
      if (param === 'graphBaseUrl') setAdvancedOpen(true);
      if (param === 'verifyToken') setChangingToken(true);
    },
    send: (d, s) => api.channel.save(channelBody(d, s)),
    onSaved: (saved) => {
      onSaved(saved);
      setChangingToken(false);
    },
    savedMessage: 'Saved the channel settings.',
  });
  const cloud = draft.provider === 'cloud_api';

  const runCheck = async () => {
    if (busy || check.kind === 'running') return;
    // The check uses the saved settings: what is on screen is saved first.
    if (dirty && !(await save())) return;
    setCheck({ kind: 'running' });
    try {
      onSaved(await api.channel.check());
      setCheck({ kind: 'idle' });
    } catch (e) {
      setCheck({ kind: 'error', error: errorMessage(e) });
    }
  };

  const textOf = (
    key: 'phoneNumberId' | 'wabaId' | 'graphBaseUrl' | 'accessToken' | 'appSecret',
  ) => ({
    id: channelFieldId(key),
    value: draft[key],
    error: errors[key],
    onChange: (value: string) => change({ [key]: value }, [key]),
  });
  const secretOf = (
    key: 'accessToken' | 'appSecret',
    modeKey: 'accessTokenMode' | 'appSecretMode',
  ) => ({
    ...textOf(key),
    mode: draft[modeKey],
    // Another choice starts over: what was typed goes.
    onMode: (mode: SecretMode) => change({ [modeKey]: mode, [key]: '' }, [key]),
  });

  return (
    <>
      {formError ? <ErrorBanner message={formError} testId="channel-settings-error" /> : null}
      <ChannelStatus settings={settings} />

      <div className="editor-grid">
        <form
          id={FORM_ID}
          className="card editor-form"
          noValidate
          onSubmit={submit}
          data-testid="channel-settings-form"
        >
          <EditorSection title="Live messages go through">
            <ProviderChoice
              value={draft.provider}
              onChange={(provider: Provider) => change({ provider }, ['provider'])}
            />
            {!cloud && settings.phoneNumberId ? (
              <p className="hint">Your Cloud API details are kept: choose it again to use them.</p>
            ) : null}
          </EditorSection>

          {cloud ? (
            <>
              <EditorSection title="WhatsApp Business number">
                <p className="hint">
                  In your Meta app’s dashboard, <strong>WhatsApp → API Setup</strong> shows both
                  ids.
                </p>
                <div className="form-grid-2">
                  <TextField
                    {...textOf('phoneNumberId')}
                    label="Phone number id"
                    inputMode="numeric"
                    mono
                  />
                  <TextField
                    {...textOf('wabaId')}
                    label="WhatsApp Business Account id"
                    inputMode="numeric"
                    mono
                  />
                </div>
                <div className="form-grid-2">
                  <SecretField
                    {...secretOf('accessToken', 'accessTokenMode')}
                    label="Access token"
                    isSet={settings.accessTokenSet}
                    hint="A permanent token of a system user with the whatsapp_business_messaging and whatsapp_business_management permissions."
                  />
                  <SecretField
                    {...secretOf('appSecret', 'appSecretMode')}
                    label="App secret"
                    isSet={settings.appSecretSet}
                    hint="From your Meta app’s Settings → Basic. It proves webhooks come from Meta."
                  />
                </div>
                <details
                  className="channel-advanced"
                  open={advancedOpen}
                  onToggle={(event) => setAdvancedOpen(event.currentTarget.open)}
                >
                  <summary data-testid="channel-advanced">Advanced</summary>
                  <TextField
                    {...textOf('graphBaseUrl')}
                    label={
                      <>
                        Graph API base URL <span className="optional">(optional)</span>
                      </>
                    }
                    type="url"
                    placeholder={DEFAULT_GRAPH_BASE_URL}
                    hint={
                      <>
                        Where Cloud API calls go. Empty: Meta’s,{' '}
                        <code>{DEFAULT_GRAPH_BASE_URL}</code>. Change it only to point at a test
                        server.
                      </>
                    }
                  />
                </details>
              </EditorSection>

              <WebhookSection
                webhookPath={settings.webhookPath}
                savedVerifyToken={settings.verifyToken}
                verifyToken={draft.verifyToken}
                changingToken={changingToken}
                tokenError={errors.verifyToken}
                onChangeToken={(verifyToken) => change({ verifyToken }, ['verifyToken'])}
                onChangingToken={(changing) => {
                  setChangingToken(changing);
                  if (!changing) change({ verifyToken: settings.verifyToken }, ['verifyToken']);
                }}
              />
            </>
          ) : null}

          <SettingsSave
            busy={busy}
            dirty={dirty}
            updatedAt={settings.updatedAt}
            testId="channel-save"
            stateTestId="channel-save-state"
          />
        </form>

        <div className="channel-aside">
          <ChannelCheckCard
            settings={settings}
            dirty={dirty}
            cloudApiChosen={cloud}
            busy={busy}
            check={check}
            onCheck={() => void runCheck()}
          />
          <SimulatedNote />
        </div>
      </div>
      {settings.provider === 'cloud_api' ? <ChannelRejects /> : null}
    </>
  );
}

function LiveChannel() {
  return (
    <LoadedSettings
      load={api.channel.get}
      loadingText="Loading the channel settings…"
      className="channel-live"
    >
      {(settings, onSaved) => <ChannelForm settings={settings} onSaved={onSaved} />}
    </LoadedSettings>
  );
}

/** Settings → Channel: connect the WhatsApp Cloud API number live messages go out from. */
export function ChannelSettingsScreen() {
  const environment = useSession((s) => s.environment);
  const workspaceId = useSession((s) => s.workspaceId);

  return (
    <div className="screen screen-wide" data-testid="channel-settings">
      <PageHeader
        eyebrow="Settings"
        title="Channel"
        description={
          <>
            The WhatsApp number live messages go out from, and where Meta delivers what customers
            send back. Each workspace connects its own.
          </>
        }
      />
      {environment === 'live' ? (
        // A switch of workspace reads that workspace's settings afresh.
        <LiveChannel key={workspaceId ?? ''} />
      ) : (
        <TestModeNotice />
      )}
    </div>
  );
}
