import type { ReactNode } from 'react';

interface FormButtonsProps {
  onCancel: () => void;
  cancelDisabled?: boolean;
  /** The id of the form the main button submits; without it, the button calls `onConfirm`. */
  form?: string;
  onConfirm?: () => void;
  danger?: boolean;
  disabled: boolean;
  /** The id of what says why the main button is disabled. */
  describedBy?: string | undefined;
  testId: string;
  /** The main button's label. */
  children: ReactNode;
}

/** Cancel, then the main action: a dialog's footer, an editor's header. */
export function FormButtons({
  onCancel,
  cancelDisabled = false,
  form,
  onConfirm,
  danger = false,
  disabled,
  describedBy,
  testId,
  children,
}: FormButtonsProps) {
  return (
    <>
      <button type="button" className="button" onClick={onCancel} disabled={cancelDisabled}>
        Cancel
      </button>
      <button
        type={form ? 'submit' : 'button'}
        form={form}
        className={`button ${danger ? 'button-danger' : 'button-primary'}`}
        onClick={onConfirm}
        disabled={disabled}
        aria-describedby={describedBy}
        data-testid={testId}
      >
        {children}
      </button>
    </>
  );
}
