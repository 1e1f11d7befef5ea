import type { ReactNode } from 'react';
import { Dialog } from '../../components/dialog.tsx';
import { FormButtons } from '../../components/form-buttons.tsx';
import { FormError } from '../../components/form-error.tsx';
import { formatDateTime, plural } from '../../components/format.ts';
import { formatCount, timeZone } from './campaign-format.ts';

/** What every launch dialog is told. */
export interface LaunchProps {
  name: string;
  /** When it starts, for a scheduled launch. */
  scheduledFor: string | null;
  testMode: boolean;
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}

interface LaunchDialogFrameProps extends Omit<LaunchProps, 'testMode'> {
  /** Whom it goes to: "120 recipients", "its audience". */
  who: string;
  /** Starts the test ids: `<prefix>-launch-dialog`, `<prefix>-launch-confirm`, … */
  testIdPrefix: string;
  /** To whom, what and when, and what else to know before it goes. */
  children: ReactNode;
}

/** The last look before a campaign (of any kind) goes out: confirmed, or kept back. */
export function LaunchDialogFrame({
  name,
  who,
  scheduledFor,
  busy,
  error,
  onConfirm,
  onClose,
  testIdPrefix,
  children,
}: LaunchDialogFrameProps) {
  return (
    <Dialog
      title={scheduledFor ? `Schedule “${name}”?` : `Send “${name}” now?`}
      onClose={onClose}
      dismissible={!busy}
      size="small"
      testId={`${testIdPrefix}-launch-dialog`}
      footer={
        <FormButtons
          onCancel={onClose}
          cancelDisabled={busy}
          onConfirm={onConfirm}
          disabled={busy}
          testId={`${testIdPrefix}-launch-confirm`}
        >
          {busy ? 'Launching…' : scheduledFor ? 'Schedule' : `Send to ${who}`}
        </FormButtons>
      }
    >
      {children}
      <FormError error={error} testId={`${testIdPrefix}-launch-error`} />
    </Dialog>
  );
}

interface LaunchDialogProps extends LaunchProps {
  templateName: string;
  /** Recipients the audience has now (null while it is being counted). */
  total: number | null;
  missing: number;
}

/** The last look before a campaign goes out: to whom, what, when, and what it costs. */
export function LaunchDialog({
  templateName,
  total,
  missing,
  testMode,
  ...launch
}: LaunchDialogProps) {
  const who = total === null ? 'its audience' : plural(total, 'recipient');
  return (
    <LaunchDialogFrame who={who} testIdPrefix="campaign" {...launch}>
      <p>
        {launch.scheduledFor ? (
          <>
            On {formatDateTime(launch.scheduledFor)} ({timeZone()}) Parley starts sending{' '}
            <code>{templateName}</code> to {who}.
          </>
        ) : (
          <>
            Parley starts sending <code>{templateName}</code> to {who} at once, as fast as the
            account may send.
          </>
        )}{' '}
        The recipients are fixed at launch; the campaign cannot be edited afterwards, only paused,
        resumed or cancelled.
      </p>
      {missing > 0 ? (
        <p className="banner banner-warning">
          <span className="banner-text">
            {formatCount(missing)} of them miss a contact field a variable uses: they are not sent
            to.
          </span>
        </p>
      ) : null}
      <p className="hint">
        {testMode
          ? 'Test mode: the messages go to the simulated channel and nothing is charged.'
          : 'Live: each message is charged to the wallet like any template send; the campaign pauses by itself if the wallet runs out.'}
      </p>
    </LaunchDialogFrame>
  );
}
