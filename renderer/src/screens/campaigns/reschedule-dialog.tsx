import { useId, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/client.ts';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { FormDialog } from '../../components/form-dialog.tsx';
import { formatDateTime, fromLocalInput, toLocalInput } from '../../components/format.ts';
import { notify } from '../../stores/toasts.ts';
import { timeZone } from './campaign-format.ts';

interface RescheduleDialogProps {
  name: string;
  /** Its schedule before the pause (offered again when it is still ahead). */
  scheduledFor: string | null;
  /** It has sent already (email only: it picks up where it stopped at the new time). */
  started?: boolean;
  /** Starts the test ids: `<prefix>-reschedule-dialog`, `<prefix>-reschedule-at`, … */
  testIdPrefix: string;
  onReschedule: (scheduledFor: string) => Promise<unknown>;
  onClose: () => void;
}

/**
 * A paused campaign launched for a later time instead of now ("Resume now" is the other way out
 * of a pause): one that has not started yet, or an email campaign that has.
 */
export function RescheduleDialog({
  name,
  scheduledFor,
  started = false,
  testIdPrefix,
  onReschedule,
  onClose,
}: RescheduleDialogProps) {
  const id = useId();
  // Read once, when the dialog opens.
  const [ahead] = useState(() => scheduledFor !== null && Date.parse(scheduledFor) > Date.now());
  const [value, setValue] = useState(() =>
    toLocalInput(ahead ? scheduledFor : new Date(Date.now() + 3_600_000)),
  );
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const at = fromLocalInput(value);
    if (!at || Date.parse(at) <= Date.now()) {
      setFieldError('Pick a time in the future.');
      return;
    }
    setFieldError(null);
    setError(null);
    setBusy(true);
    try {
      await onReschedule(at);
      notify('success', `“${name}” is scheduled for ${formatDateTime(at)}.`);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <FormDialog
      title={`Reschedule “${name}”?`}
      onClose={onClose}
      onSubmit={(event) => void submit(event)}
      submitLabel={busy ? 'Scheduling…' : 'Schedule'}
      submitTestId={`${testIdPrefix}-reschedule-confirm`}
      busy={busy}
      error={error}
      size="small"
      testId={`${testIdPrefix}-reschedule-dialog`}
      lead={
        <p>
          {started
            ? 'Nothing more is sent until then; it picks up where it stopped at the new time'
            : 'It stays unsent until then and starts sending at the new time'}
          {ahead ? ' (its old time is offered)' : ''}. To send now, use Resume now instead.
        </p>
      }
    >
      <div className="field">
        <label htmlFor={id}>Start sending at</label>
        <input
          id={id}
          type="datetime-local"
          className={`input${fieldError ? ' invalid' : ''}`}
          value={value}
          min={toLocalInput(new Date())}
          {...errorAria(id, fieldError ?? undefined, `${id}-zone`)}
          onChange={(event) => setValue(event.target.value)}
          data-testid={`${testIdPrefix}-reschedule-at`}
        />
        <p className="hint" id={`${id}-zone`}>
          In your time zone, <strong>{timeZone()}</strong>.
        </p>
        <FieldError fieldId={id} message={fieldError ?? undefined} />
      </div>
    </FormDialog>
  );
}
