import { useEffect, type RefObject } from 'react';
import { MAX_VISIBLE_TOASTS, useToasts } from '../stores/toasts.ts';
import { CloseIcon } from './icons.tsx';

/** Space between the stack and what it keeps clear of (px). */
const FLOOR_GAP = 12;

/**
 * Keeps the notices above `ref`'s element while it is mounted (the inbox's reply composer: a
 * burst of notices must not cover Send). Follows the element as it grows or the window resizes.
 */
export function useToastFloor(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const { setFloor } = useToasts.getState();
    const measure = () => setFloor(Math.round(element.getBoundingClientRect().top));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
      setFloor(null);
    };
  }, [ref]);
}

export function Toaster() {
  const toasts = useToasts((s) => s.toasts);
  const floor = useToasts((s) => s.floor);
  const dismiss = useToasts((s) => s.dismiss);
  const dismissAll = useToasts((s) => s.dismissAll);
  const expanded = useToasts((s) => s.expanded);
  const setExpanded = useToasts((s) => s.setExpanded);
  const hidden = expanded ? 0 : Math.max(0, toasts.length - MAX_VISIBLE_TOASTS);
  const shown = toasts.slice(hidden);

  return (
    <div
      className={`toaster${expanded ? ' expanded' : ''}`}
      aria-live="polite"
      style={floor === null ? undefined : { bottom: `calc(100vh - ${floor - FLOOR_GAP}px)` }}
      data-testid="toaster"
    >
      {hidden > 0 || (expanded && toasts.length > MAX_VISIBLE_TOASTS) ? (
        <div className="toast-more">
          {hidden > 0 ? (
            <button
              type="button"
              className="link-button"
              aria-expanded={false}
              onClick={() => setExpanded(true)}
              data-testid="toast-more"
            >
              +{hidden} more
            </button>
          ) : (
            <button
              type="button"
              className="link-button"
              aria-expanded={true}
              onClick={() => setExpanded(false)}
              data-testid="toast-fewer"
            >
              Show fewer
            </button>
          )}
          <button
            type="button"
            className="link-button"
            onClick={dismissAll}
            data-testid="toast-dismiss-all"
          >
            Dismiss all
          </button>
        </div>
      ) : null}
      {shown.map((toast) => (
        <div
          key={toast.id}
          className={`toast toast-${toast.kind}`}
          role={toast.kind === 'error' ? 'alert' : 'status'}
          data-testid={`toast-${toast.kind}`}
        >
          <span className="toast-text">
            {toast.message}
            {toast.count > 1 ? (
              <span className="toast-count" data-testid="toast-count">
                {' '}
                ×{toast.count}
              </span>
            ) : null}
          </span>
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
