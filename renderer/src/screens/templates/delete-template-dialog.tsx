import type { Template } from '../../../../shared/schemas/index.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useTemplates } from '../../stores/templates.ts';

export function DeleteTemplateDialog({
  template,
  onClose,
}: {
  template: Template;
  onClose: () => void;
}) {
  const remove = useTemplates((s) => s.remove);
  return (
    <ConfirmDialog
      title={`Delete “${template.name}”?`}
      onClose={onClose}
      onConfirm={() => remove(template.id)}
      doneMessage={`Template “${template.name}” deleted.`}
      confirmLabel="Delete template"
      busyLabel="Deleting…"
      testId="delete-template-dialog"
      confirmTestId="confirm-delete-template"
    >
      Sends, campaigns and workflows that use <code>{template.name}</code> will fail with{' '}
      <code>template_not_found</code>. Messages already sent keep their history. This cannot be
      undone.
    </ConfirmDialog>
  );
}
