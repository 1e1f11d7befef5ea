import { useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client.ts';
import { notify } from '../stores/toasts.ts';
import { Dialog } from './dialog.tsx';
import { FormButtons } from './form-buttons.tsx';
import { FormError } from './form-error.tsx';

interface ConfirmDialogProps {
  title: string;
  onClose: () => void;
  /** Does the irreversible thing; the dialog closes once it resolves and shows why it failed. */
  onConfirm: () => Promise<unknown>;
  /** The success toast shown once it is done. */
  doneMessage: string;
  confirmLabel: string;
  /** The confirm button's label while the request runs, e.g. "Deleting…". */
  busyLabel: string;
  testId: string;
  confirmTestId: string;
  /** What confirming does, in a sentence or two. */
  children: ReactNode;
}

/** Asks before a destructive action; Escape and Cancel are locked while it runs. */
export function ConfirmDialog({
  title,
  onClose,
  onConfirm,
  doneMessage,
  confirmLabel,
  busyLabel,
  testId,
  confirmTestId,
  children,
}: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      notify('success', doneMessage);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={title}
      onClose={onClose}
      dismissible={!busy}
      size="small"
      testId={testId}
      footer={
        <FormButtons
          onCancel={onClose}
          cancelDisabled={busy}
          onConfirm={() => void confirm()}
          danger
          disabled={busy}
          testId={confirmTestId}
        >
          {busy ? busyLabel : confirmLabel}
        </FormButtons>
      }
    >
      <p>{children}</p>
      <FormError error={error} />
    </Dialog>
  );
}
