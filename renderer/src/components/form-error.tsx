/** A form's own error (not one field's), announced as it appears; renders nothing without one. */
export function FormError({ error, testId }: { error: string | null; testId?: string }) {
  return error ? (
    <p className="form-error" role="alert" data-testid={testId}>
      {error}
    </p>
  ) : null;
}
