import type { ApiKey } from '../../../../shared/schemas/index.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useKeys } from '../../stores/keys.ts';

export function RevokeKeyDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const revoke = useKeys((s) => s.revoke);
  return (
    <ConfirmDialog
      title={`Revoke “${apiKey.name}”?`}
      onClose={onClose}
      onConfirm={() => revoke(apiKey.id)}
      doneMessage={`Key “${apiKey.name}” revoked.`}
      confirmLabel="Revoke key"
      busyLabel="Revoking…"
      testId="revoke-dialog"
      confirmTestId="confirm-revoke"
    >
      Requests made with <code>{apiKey.prefix}…</code> will be refused with{' '}
      <code>401 invalid_api_key</code> from their very next call. This cannot be undone.
    </ConfirmDialog>
  );
}
