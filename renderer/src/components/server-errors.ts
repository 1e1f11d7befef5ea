import { ApiRequestError } from '../api/client.ts';

/**
 * The core's answers about an editor's fields (`error.param` → message), kept until the user edits
 * that field or one below it.
 */
export const withoutErrorsAt = (
  errors: Record<string, string>,
  param: string,
): Record<string, string> => {
  const next = { ...errors };
  for (const key of Object.keys(next)) {
    if (key === param || key.startsWith(`${param}.`)) delete next[key];
  }
  return next;
};

/** Brings a field into view and, when it takes input, into focus. */
export function focusElement(element: HTMLElement | null): void {
  element?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  if (
    element instanceof HTMLInputElement ||
    element instanceof HTMLTextAreaElement ||
    element instanceof HTMLSelectElement
  ) {
    element.focus({ preventScroll: true });
  }
}

/** A form's messages by field. */
export type FieldErrors<F extends string> = Partial<Record<F, string>>;

/**
 * A `useAction` error handler: the core's word on one of `fields` (its `param`) goes beside that
 * field and the handler answers true (shown); anything else is left for the form's own error.
 */
export function onFieldError<F extends string>(
  fields: readonly F[],
  show: (errors: FieldErrors<F>) => void,
): (e: unknown) => boolean {
  return (e) => {
    const field = e instanceof ApiRequestError ? fields.find((f) => f === e.param) : undefined;
    if (!field || !(e instanceof Error)) return false;
    const errors: FieldErrors<F> = {};
    errors[field] = e.message;
    show(errors);
    return true;
  };
}
