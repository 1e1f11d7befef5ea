import type { ReactNode } from 'react';
import { FormButtons } from './form-buttons.tsx';

interface EditorSaveProps {
  /** The editor's form, which the Save button submits. */
  formId: string;
  onCancel: () => void;
  busy: boolean;
  /** What blocks saving, in words (the first problem), or null when it can be saved. */
  blocker: string | null;
  /** Shows the field of the first problem. */
  onShowProblem: () => void;
  /** `<prefix>-save`, `<prefix>-save-blocker`, `<prefix>-show-problem`. */
  testIdPrefix: string;
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
  testIdPrefix,
  before,
  children,
}: EditorSaveProps) {
  const blockerId = `${formId}-blocker`;
  return (
    <div className="list-editor-actions">
      <div className="list-editor-buttons">
        {before}
        <FormButtons
          onCancel={onCancel}
          cancelDisabled={busy}
          form={formId}
          disabled={busy || blocker !== null}
          describedBy={blocker ? blockerId : undefined}
          testId={`${testIdPrefix}-save`}
        >
          {children}
        </FormButtons>
      </div>
      {blocker ? (
        <p
          className="list-editor-blocker"
          id={blockerId}
          data-testid={`${testIdPrefix}-save-blocker`}
        >
          Can’t save yet:{' '}
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
