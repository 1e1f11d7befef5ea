import { useToasts } from '../stores/toasts.ts';
import { CloseIcon } from './icons.tsx';

export function Toaster() {
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  return (
    <div className="toaster" aria-live="polite">
      {toasts.map((toast) => (
        <div
          key={toast.id}
          className={`toast toast-${toast.kind}`}
          role={toast.kind === 'error' ? 'alert' : 'status'}
          data-testid={`toast-${toast.kind}`}
        >
          <span className="toast-text">{toast.message}</span>
          {toast.action ? (
            <button
              type="button"
              className="button button-small toast-action"
              onClick={() => {
                dismiss(toast.id);
                toast.action?.onSelect();
              }}
              data-testid="toast-action"
            >
              {toast.action.label}
            </button>
          ) : null}
          <button
            type="button"
            className="icon-button"
            aria-label="Dismiss"
            onClick={() => dismiss(toast.id)}
          >
            <CloseIcon />
          </button>
        </div>
      ))}
    </div>
  );
}
