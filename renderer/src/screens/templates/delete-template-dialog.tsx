import { useState } from 'react';
import type { Template } from '../../../../shared/schemas/index.ts';
import { errorMessage } from '../../api/client.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useTemplates } from '../../stores/templates.ts';
import { notify } from '../../stores/toasts.ts';

export function DeleteTemplateDialog({
  template,
  onClose,
}: {
  template: Template;
  onClose: () => void;
}) {
  const remove = useTemplates((s) => s.remove);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await remove(template.id);
      notify('success', `Template “${template.name}” deleted.`);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={`Delete “${template.name}”?`}
      onClose={onClose}
      dismissible={!busy}
      size="small"
      testId="delete-template-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button
            type="button"
            className="button button-danger"
            onClick={() => void confirm()}
            disabled={busy}
            data-testid="confirm-delete-template"
          >
            {busy ? 'Deleting…' : 'Delete template'}
          </button>
        </>
      }
    >
      <p>
        Sends, campaigns and workflows that use <code>{template.name}</code> will fail with{' '}
        <code>template_not_found</code>. Messages already sent keep their history. This cannot be
        undone.
      </p>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}
