import { useId, type FormEvent, type ReactNode } from 'react';
import { Dialog, type DialogSize } from './dialog.tsx';
import { FormButtons } from './form-buttons.tsx';
import { FormError } from './form-error.tsx';

interface FormDialogProps {
  title: string;
  onClose: () => void;
  onSubmit: (event: FormEvent) => void;
  /** The submit button's label (say "Saving…" while busy). */
  submitLabel: string;
  submitTestId: string;
  busy: boolean;
  /** Escape and Cancel do nothing while busy, unless this is false. */
  lockWhileBusy?: boolean;
  /** The form's own error, shown under its fields. */
  error: string | null;
  /** Shown above the form. */
  lead?: ReactNode;
  size?: DialogSize;
  testId: string;
  /** The form's id, when its fields need it for their own ids. */
  formId?: string;
  children: ReactNode;
}

/** A dialog around one form, submitted from the footer's primary button. */
export function FormDialog({
  title,
  onClose,
  onSubmit,
  submitLabel,
  submitTestId,
  busy,
  lockWhileBusy = true,
  error,
  lead,
  size,
  testId,
  formId,
  children,
}: FormDialogProps) {
  const ownId = useId();
  const id = formId ?? ownId;
  const locked = lockWhileBusy && busy;
  return (
    <Dialog
      title={title}
      onClose={onClose}
      dismissible={!locked}
      size={size}
      testId={testId}
      footer={
        <FormButtons
          onCancel={onClose}
          cancelDisabled={locked}
          form={id}
          disabled={busy}
          testId={submitTestId}
        >
          {submitLabel}
        </FormButtons>
      }
    >
      {lead}
      <form id={id} className="form-stack" onSubmit={onSubmit} noValidate>
        {children}
        <FormError error={error} />
      </form>
    </Dialog>
  );
}
