import { useState, type ReactNode } from 'react';
import type { SimulatorSettings } from '../../../../shared/schemas/simulator.ts';
import { SIMULATOR_DEFAULTS } from '../../../../shared/schemas/simulator.ts';
import { api } from '../../api/client.ts';
import { EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { ReadOnlyNote, useRightGate } from '../../components/needs-right.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useSettingsForm } from '../../components/use-settings-form.ts';
import { useSession } from '../../stores/session.ts';
import {
  checkSimulator,
  durationText,
  simulatorBody,
  simulatorDraftOf,
  simulatorFieldId,
  simulatorParam,
  SIMULATOR_ORDER,
  tierLabel,
  tierOptions,
  UNITS,
  type NumberKey,
  type SimulatorDraft,
} from './simulator-draft.ts';
import { LoadedSettings, OtherModeNotice } from './mode-settings.tsx';
import './simulator-settings.css';

const FORM_ID = 'simulator-settings-form';
const draftOf = (s: SimulatorSettings) => simulatorDraftOf(s);

/** A whole number with its unit beside the input (and in its label, for screen readers). */
function NumberField({
  name,
  label,
  draft,
  error,
  hint,
  readOnly,
  onChange,
}: {
  name: NumberKey;
  label: string;
  draft: SimulatorDraft;
  error: string | undefined;
  hint: ReactNode;
  /** Shown, focusable and copyable, but not changed: a member without `simulator.manage`. */
  readOnly: boolean;
  onChange: (value: string) => void;
}) {
  const id = simulatorFieldId(name);
  const unit = UNITS[name];
  const hintId = `${id}-hint`;
  return (
    <div className="field sim-field">
      <label htmlFor={id}>
        {label}
        {unit.long ? <span className="visually-hidden"> ({unit.long})</span> : null}
      </label>
      <div className="sim-input">
        <input
          id={id}
          className={`input${error ? ' invalid' : ''}`}
          type="text"
          inputMode="numeric"
          autoComplete="off"
          spellCheck={false}
          readOnly={readOnly}
          value={draft[name]}
          onChange={(event) => onChange(event.target.value)}
          {...errorAria(id, error, hintId)}
          data-testid={id}
        />
        {unit.short ? (
          <span className="sim-unit" aria-hidden="true">
            {unit.short}
          </span>
        ) : null}
      </div>
      <FieldError fieldId={id} message={error} />
      <p className="hint" id={hintId} data-testid={hintId}>
        {hint}
      </p>
    </div>
  );
}

/** "= 2 s" beside a duration typed in milliseconds, while it is a number. */
function asDuration(text: string): string {
  const ms = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(ms) && ms >= 0 ? ` Now ${durationText(ms)}.` : '';
}

function SimulatorForm({
  settings,
  onSaved,
}: {
  settings: SimulatorSettings;
  onSaved: (settings: SimulatorSettings) => void;
}) {
  const refreshMe = useSession((s) => s.refreshMe);
  // Changing them is an admin's (or a test key's): the tier and throughput also pace live sends
  // while the simulated channel serves live mode. Others read them, told why once.
  const { refusal, gate } = useRightGate('simulator.manage');
  const readOnly = refusal !== null;
  // "Saved" only once this visit saved something; on arrival the settings are simply in force.
  const [savedHere, setSavedHere] = useState(false);
  const form = useSettingsForm({
    settings,
    draftOf,
    check: checkSimulator,
    order: SIMULATOR_ORDER,
    paramOf: simulatorParam,
    fieldId: simulatorFieldId,
    send: (d) => api.simulator.saveSettings(simulatorBody(d)),
    onSaved: (saved) => {
      setSavedHere(true);
      onSaved(saved);
      // The top bar and the screens read the account's tier and throughput from /api/me.
      void refreshMe();
    },
    savedMessage: 'Saved the simulator settings. They are in force now.',
  });
  const { draft, errors, formError, busy, dirty, change, submit } = form;
  const defaults = simulatorDraftOf(SIMULATOR_DEFAULTS);
  const atDefaults = JSON.stringify(draft) === JSON.stringify(defaults);

  const number = (name: NumberKey, label: string, hint: ReactNode) => (
    <NumberField
      name={name}
      label={label}
      draft={draft}
      error={errors[name]}
      hint={hint}
      readOnly={readOnly}
      onChange={(value) => change({ [name]: value }, [name])}
    />
  );
  const tierId = simulatorFieldId('messagingTier');

  return (
    <>
      <ReadOnlyNote right="simulator.manage" what="the simulator’s settings" />
      {formError ? <ErrorBanner message={formError} testId="sim-form-error" /> : null}
      <form
        id={FORM_ID}
        className="card editor-form sim-form"
        noValidate
        onSubmit={readOnly ? (event) => event.preventDefault() : submit}
        data-testid="sim-form"
      >
        <EditorSection title="Sending pace">
          <div className="form-grid-2">
            {number(
              'throughputMps',
              'Throughput',
              'How many messages a second campaigns and workflows hand to the channel (1–1,000).',
            )}
            <div className="field sim-field">
              <label htmlFor={tierId}>Messaging tier</label>
              {readOnly ? (
                // A select cannot be read-only: the tier in words, in a field that takes focus.
                <input
                  id={tierId}
                  className="input"
                  type="text"
                  readOnly
                  value={tierLabel(settings.messagingTier)}
                  aria-describedby={`${tierId}-hint`}
                  data-testid={tierId}
                />
              ) : (
                <select
                  id={tierId}
                  className="select"
                  value={draft.messagingTier}
                  onChange={(event) =>
                    change({ messagingTier: event.target.value }, ['messagingTier'])
                  }
                  {...errorAria(tierId, errors.messagingTier, `${tierId}-hint`)}
                  data-testid={tierId}
                >
                  {tierOptions(settings.messagingTier).map((option) => (
                    <option key={option.value} value={option.value}>
                      {option.label}
                    </option>
                  ))}
                </select>
              )}
              <FieldError fieldId={tierId} message={errors.messagingTier} />
              <p className="hint" id={`${tierId}-hint`}>
                Unique customers a campaign may reach outside their 24 h window, per rolling day.
              </p>
            </div>
          </div>
          {number(
            'emailRatePerSecond',
            'Email rate',
            'How many emails a second the simulated transport takes.',
          )}
        </EditorSection>

        <EditorSection title="Timing">
          <div className="form-grid-2">
            {number(
              'deliveryLatencyMs',
              'Delivery latency',
              `From sent to delivered.${asDuration(draft.deliveryLatencyMs)}`,
            )}
            {number(
              'readLatencyMs',
              'Read latency',
              `From delivered to read.${asDuration(draft.readLatencyMs)}`,
            )}
            {number(
              'reviewDelayMs',
              'Template review delay',
              `Before the simulator approves or rejects a new template.${asDuration(draft.reviewDelayMs)}`,
            )}
            {number(
              'approvalWaitMs',
              'Approval wait (live templates)',
              `Before an approved live template can be sent; test templates are usable at once.${asDuration(draft.approvalWaitMs)}`,
            )}
          </div>
        </EditorSection>

        <EditorSection title="Randomness">
          {number(
            'seed',
            'Seed',
            'The same seed gives the same simulated outcomes, run after run.',
          )}
        </EditorSection>

        <div className="settings-save sim-save">
          <button
            type="submit"
            className="button button-primary"
            {...gate}
            disabled={gate.disabled || busy || !dirty}
            data-testid="sim-save"
          >
            {busy ? 'Saving…' : 'Save settings'}
          </button>
          <button
            type="button"
            className="button"
            {...gate}
            disabled={gate.disabled || busy || atDefaults}
            onClick={() => change(defaults, [...SIMULATOR_ORDER])}
            data-testid="sim-reset"
          >
            Reset to defaults
          </button>
          <span className="hint" role="status" data-testid="sim-save-state">
            {dirty
              ? atDefaults
                ? 'Defaults filled in: save to put them in force.'
                : 'Unsaved changes.'
              : savedHere
                ? 'Saved: these settings are in force.'
                : 'These settings are in force.'}
          </span>
        </div>
      </form>
    </>
  );
}

/**
 * Settings → Simulator (design.md §8): the simulated provider's pace, latencies, template review
 * and seed (`GET|PUT /api/simulator/settings`), checked by the core's own schema before saving.
 */
export function SimulatorSettingsScreen() {
  const environment = useSession((s) => s.environment);
  const workspaceId = useSession((s) => s.workspaceId);
  return (
    <div className="screen" data-testid="screen-simulator">
      <PageHeader
        eyebrow="Settings"
        title="Simulator"
        description="How the simulated channel behaves: how fast messages go out, how long they take to be delivered and read, and how soon templates are reviewed. Changes are in force at once and in the audit trail."
      />
      {environment === 'test' ? (
        // A switch of workspace reads that workspace's settings afresh.
        <LoadedSettings
          key={workspaceId ?? ''}
          className="sim-loaded"
          load={api.simulator.settings}
          loadingText="Loading the simulator settings…"
        >
          {(settings, onSaved) => <SimulatorForm settings={settings} onSaved={onSaved} />}
        </LoadedSettings>
      ) : (
        <OtherModeNotice to="test" testId="sim-live-mode" switchTestId="sim-switch-test">
          The simulator’s settings are changed in test mode. They govern the simulated channel,
          which serves test mode — and live mode too until WhatsApp is connected on Settings →
          Channel.
        </OtherModeNotice>
      )}
    </div>
  );
}
