/** The id (and test id) of a field's error message: `<the field's id>-error`. */
export const errorId = (fieldId: string): string => `${fieldId}-error`;

/**
 * What ties a field to its error, for assistive technology: aria-invalid while there is one, and
 * aria-describedby naming the field's hints (`describedBy`, ids) and then its error.
 */
export function errorAria(
  fieldId: string,
  message: string | undefined,
  describedBy?: string,
): { 'aria-invalid': true | undefined; 'aria-describedby': string | undefined } {
  const ids = [describedBy, message ? errorId(fieldId) : undefined].filter(Boolean).join(' ');
  return { 'aria-invalid': message ? true : undefined, 'aria-describedby': ids || undefined };
}

/** A field's error under it, when it has one (see `errorAria`). */
export function FieldError({ fieldId, message }: { fieldId: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={errorId(fieldId)} className="field-error" data-testid={errorId(fieldId)}>
      {message}
    </p>
  );
}
