import { formatDateTime } from './format.ts';

/** A settings form's foot: its Save button, and whether what is shown is saved (and when). */
export function SettingsSave({
  busy,
  dirty,
  updatedAt,
  testId,
  stateTestId,
}: {
  busy: boolean;
  dirty: boolean;
  /** When the settings were last saved; null while they are the defaults. */
  updatedAt: string | null;
  testId: string;
  stateTestId?: string;
}) {
  return (
    <div className="settings-save">
      <button
        type="submit"
        className="button button-primary"
        disabled={busy || !dirty}
        data-testid={testId}
      >
        {busy ? 'Saving…' : 'Save settings'}
      </button>
      <span className="hint" data-testid={stateTestId}>
        {dirty
          ? 'Unsaved changes.'
          : updatedAt
            ? `Saved ${formatDateTime(updatedAt)}.`
            : 'Not saved yet: these are the defaults.'}
      </span>
    </div>
  );
}
