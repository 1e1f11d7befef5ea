import { useState } from 'react';
import type { ApiKey } from '../../../../shared/schemas/index.ts';
import { errorMessage } from '../../api/client.ts';
import { Dialog } from '../../components/dialog.tsx';
import { useKeys } from '../../stores/keys.ts';
import { notify } from '../../stores/toasts.ts';

export function RevokeKeyDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const revoke = useKeys((s) => s.revoke);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await revoke(apiKey.id);
      notify('success', `Key “${apiKey.name}” revoked.`);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={`Revoke “${apiKey.name}”?`}
      onClose={onClose}
      dismissible={!busy}
      size="small"
      testId="revoke-dialog"
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
            data-testid="confirm-revoke"
          >
            {busy ? 'Revoking…' : 'Revoke key'}
          </button>
        </>
      }
    >
      <p>
        Requests made with <code>{apiKey.prefix}…</code> will be refused with{' '}
        <code>401 invalid_api_key</code> from their very next call. This cannot be undone.
      </p>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}
