import { useEffect, useId, useRef, type ReactNode } from 'react';

export type DialogSize = 'small' | 'medium' | 'large';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  /** Escape closes the dialog unless this is false (e.g. while a request is running). */
  dismissible?: boolean;
  size?: DialogSize;
  testId?: string;
}

/** A modal built on the native <dialog>: focus trapping and the backdrop come from the browser. */
export function Dialog({
  title,
  onClose,
  children,
  footer,
  dismissible = true,
  size = 'medium',
  testId,
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  return (
    <dialog
      ref={ref}
      className={`dialog dialog-${size}`}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        if (dismissible) onClose();
      }}
    >
      <header className="dialog-header">
        <h2 id={titleId}>{title}</h2>
      </header>
      <div className="dialog-body">{children}</div>
      {footer ? <footer className="dialog-footer">{footer}</footer> : null}
    </dialog>
  );
}
