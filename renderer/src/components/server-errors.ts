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
