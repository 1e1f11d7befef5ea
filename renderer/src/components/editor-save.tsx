import type { ReactNode } from 'react';
import type { Right } from '../../../shared/permissions.ts';
import { FormButtons } from './form-buttons.tsx';
import { useRefusal } from './use-can.ts';

interface EditorSaveProps {
  /** The editor's form, which the Save button submits. */
  formId: string;
  onCancel: () => void;
  busy: boolean;
  /** What blocks saving, in words (the first problem), or null when it can be saved. */
  blocker: string | null;
  /** Shows the field of the first problem. */
  onShowProblem: () => void;
  /**
   * Nothing typed yet in a new record: what is missing is said as a plain note ("To save: …"),
   * not in a warning's colour before the user did anything.
   */
  pristine?: boolean;
  /** `<prefix>-save`, `<prefix>-save-blocker`, `<prefix>-show-problem`. */
  testIdPrefix: string;
  /** What saving needs: without it the editor only shows, and Save says why it is disabled. */
  right: Right;
  /** Buttons before Cancel (e.g. pause, activate). */
  before?: ReactNode;
  /** The Save button's label. */
  children: ReactNode;
}

/**
 * An editor's header actions: Cancel and Save, and under them why Save is disabled — a link that
 * takes the user to the first problem.
 */
export function EditorSave({
  formId,
  onCancel,
  busy,
  blocker,
  onShowProblem,
  pristine = false,
  testIdPrefix,
  right,
  before,
  children,
}: EditorSaveProps) {
  const blockerId = `${formId}-blocker`;
  const refusal = useRefusal(right);
  return (
    <div className="list-editor-actions">
      <div className="list-editor-buttons">
        {before}
        <FormButtons
          onCancel={onCancel}
          cancelDisabled={busy}
          form={formId}
          disabled={busy || blocker !== null || refusal !== null}
          describedBy={blocker || refusal ? blockerId : undefined}
          testId={`${testIdPrefix}-save`}
        >
          {children}
        </FormButtons>
      </div>
      {refusal ? (
        <p
          className="list-editor-blocker"
          id={blockerId}
          data-testid={`${testIdPrefix}-save-refused`}
        >
          Read-only: {refusal}
        </p>
      ) : blocker ? (
        <p
          className={`list-editor-blocker${pristine ? ' list-editor-blocker-quiet' : ''}`}
          id={blockerId}
          data-testid={`${testIdPrefix}-save-blocker`}
        >
          {pristine ? 'To save:' : 'Can’t save yet:'}{' '}
          <button
            type="button"
            className="link-button"
            onClick={onShowProblem}
            data-testid={`${testIdPrefix}-show-problem`}
          >
            {blocker}
          </button>
        </p>
      ) : null}
    </div>
  );
}
