import { PASSWORD_MIN, passwordProblem } from '../../../shared/passwords.ts';
import { TextField } from './text-field.tsx';

interface NewPasswordFieldsProps {
  /** The fields' ids (and test ids) are `<id>` and `<id>-confirm`. */
  id: string;
  label?: string;
  password: string;
  confirm: string;
  onPassword: (value: string) => void;
  onConfirm: (value: string) => void;
  /** The core's word on the password, when it refused one. */
  error?: string | undefined;
  /** After a submit: empty fields say what they need too (before it, only typed ones speak). */
  submitted?: boolean;
}

const MISMATCH = 'The two passwords are not the same.';

/** What stops a new password being sent, in words: the shared rule, then the repeat. */
export function newPasswordProblem(password: string, confirm: string): string | null {
  return passwordProblem(password) ?? (password === confirm ? null : MISMATCH);
}

/**
 * A new password and its repeat. The shared rule (at least 12 characters, not a common one) is
 * checked as it is typed, the same one the core applies.
 */
export function NewPasswordFields({
  id,
  label = 'Password',
  password,
  confirm,
  onPassword,
  onConfirm,
  error,
  submitted = false,
}: NewPasswordFieldsProps) {
  const problem = password || submitted ? passwordProblem(password) : null;
  const mismatch = (confirm || submitted) && confirm !== password ? MISMATCH : undefined;
  return (
    <>
      <TextField
        id={id}
        label={label}
        type="password"
        autoComplete="new-password"
        value={password}
        error={error ?? problem ?? undefined}
        hint={
          password
            ? 'Good: this password can be used.'
            : `At least ${PASSWORD_MIN} characters, and not one of the passwords people pick most.`
        }
        onChange={onPassword}
      />
      <TextField
        id={`${id}-confirm`}
        label="Repeat the password"
        type="password"
        autoComplete="new-password"
        value={confirm}
        error={mismatch}
        onChange={onConfirm}
      />
    </>
  );
}
