import { errorAria, FieldError } from '../../components/field-error.tsx';
import { toLocalInput } from '../../components/format.ts';
import { hrefFor, useRoute, type Route } from '../../stores/route.ts';
import type { ScheduleDraft } from './campaign-draft.ts';
import { timeZone } from './campaign-format.ts';
import type { Busy } from './use-campaign-form.ts';
import { useRightGate } from '../../components/needs-right.tsx';

/**
 * What keeps a new campaign's editor on the screen `route` mounted as its address turns into the
 * saved campaign's: the editor's key, and `created`, to call once it is first saved.
 */
export function newCampaignEditor(route: Route) {
  /** The campaign a new-campaign editor created: its address then names it, in the same editor. */
  let createdHere: string | null = null;
  return {
    key: (campaignId: string | null): string =>
      campaignId && campaignId !== createdHere ? `edit-${campaignId}` : 'new',
    created: (campaign: { id: string }): void => {
      createdHere = campaign.id;
      const subPath = `${campaign.id}/edit`;
      // A reload opens the saved campaign; the form stays as it is.
      history.replaceState(null, '', hrefFor(route, subPath));
      useRoute.setState({ subPath });
    },
  };
}

interface EditorActionsProps {
  /** Starts the buttons' test ids: `<prefix>-save`, `<prefix>-launch`. */
  testIdPrefix: string;
  busy: Busy;
  onCancel: () => void;
  onSave: () => void;
  saveLabel: string;
  /** The form the launch button submits. */
  formId: string;
  /** Scheduling rather than launching now. */
  later: boolean;
}

/** A campaign editor's buttons: leave, save, and launch (or schedule), which asks first. */
export function EditorActions({
  testIdPrefix,
  busy,
  onCancel,
  onSave,
  saveLabel,
  formId,
  later,
}: EditorActionsProps) {
  // Messaging and email campaigns alike: reading one is open to all, saving and launching not.
  const { gate } = useRightGate('campaigns.write');
  return (
    <>
      <button type="button" className="button" onClick={onCancel} disabled={busy !== null}>
        Cancel
      </button>
      <button
        type="button"
        className="button"
        {...gate}
        onClick={onSave}
        disabled={busy !== null || gate.disabled}
        data-testid={`${testIdPrefix}-save`}
      >
        {busy === 'save' ? 'Saving…' : saveLabel}
      </button>
      <button
        type="submit"
        form={formId}
        className="button button-primary"
        {...gate}
        disabled={busy !== null || gate.disabled}
        data-testid={`${testIdPrefix}-launch`}
      >
        {later ? 'Schedule…' : 'Launch…'}
      </button>
    </>
  );
}

interface ScheduleFieldProps {
  draft: ScheduleDraft;
  onChange: (patch: Partial<ScheduleDraft>) => void;
  error: string | undefined;
  /** The time input's id. */
  id: string;
  /** Names the radios and starts the test ids: `<prefix>-when-now`, `<prefix>-scheduled-at`, … */
  prefix: string;
  /** The radios' (hidden) legend, and the time input's label. */
  legend: string;
  label: string;
}

/** When a campaign starts: as it is launched, or at a time chosen in the user's time zone. */
export function ScheduleField({
  draft,
  onChange,
  error,
  id,
  prefix,
  legend,
  label,
}: ScheduleFieldProps) {
  return (
    <>
      <fieldset className="radio-list">
        <legend className="visually-hidden">{legend}</legend>
        <label className={`radio-card${draft.when === 'now' ? ' selected' : ''}`}>
          <input
            type="radio"
            name={`${prefix}-when`}
            checked={draft.when === 'now'}
            onChange={() => onChange({ when: 'now' })}
            data-testid={`${prefix}-when-now`}
          />
          <span>
            <span className="radio-title">When I launch it</span>
            <span className="hint">Sending starts at once.</span>
          </span>
        </label>
        <label className={`radio-card${draft.when === 'later' ? ' selected' : ''}`}>
          <input
            type="radio"
            name={`${prefix}-when`}
            checked={draft.when === 'later'}
            onChange={() =>
              onChange({
                when: 'later',
                scheduledAt: draft.scheduledAt || toLocalInput(new Date(Date.now() + 3_600_000)),
              })
            }
            data-testid={`${prefix}-when-later`}
          />
          <span>
            <span className="radio-title">Later</span>
            <span className="hint">It waits as scheduled until then.</span>
          </span>
        </label>
      </fieldset>
      {draft.when === 'later' ? (
        <div className="field campaign-schedule">
          <label htmlFor={id}>{label}</label>
          <input
            id={id}
            type="datetime-local"
            className={`input${error ? ' invalid' : ''}`}
            value={draft.scheduledAt}
            min={toLocalInput(new Date())}
            {...errorAria(id, error, `${id}-zone`)}
            onChange={(event) => onChange({ scheduledAt: event.target.value })}
            data-testid={`${prefix}-scheduled-at`}
          />
          <p className="hint" id={`${id}-zone`}>
            In your time zone, <strong data-testid={`${prefix}-time-zone`}>{timeZone()}</strong>.
          </p>
          <FieldError fieldId={id} message={error} />
        </div>
      ) : null}
    </>
  );
}
