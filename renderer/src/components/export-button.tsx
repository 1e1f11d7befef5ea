import { useState } from 'react';
import type { Right } from '../../../shared/permissions.ts';
import type { Download } from '../api/client.ts';
import { notifyError } from '../stores/toasts.ts';
import { useRightGate } from './needs-right.tsx';
import { saveDownload } from './save-download.ts';

/**
 * "Export CSV" (README "Exports"): fetches the file through the session — the desktop window's
 * is a header a plain link could not send — and saves it. Disabled, saying why, without the
 * right the export needs.
 */
export function ExportButton({
  load,
  testId,
  right = 'exports',
  label = 'Export CSV',
  small = false,
}: {
  /** The export as it stands now (the screen's filters applied). */
  load: () => Promise<Download>;
  testId: string;
  right?: Right;
  label?: string;
  small?: boolean;
}) {
  const { gate } = useRightGate(right);
  const [busy, setBusy] = useState(false);
  const exportCsv = async () => {
    setBusy(true);
    try {
      saveDownload(await load());
    } catch (e) {
      notifyError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className={small ? 'button button-small' : 'button'}
      {...gate}
      disabled={gate.disabled || busy}
      onClick={() => void exportCsv()}
      data-testid={testId}
    >
      {busy ? 'Exporting…' : label}
    </button>
  );
}
