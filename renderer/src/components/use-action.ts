import { useState } from 'react';
import { errorMessage } from '../api/client.ts';
import { templateNotReadyMessage } from './template-wait.ts';

/**
 * A form's request: `busy` while it runs, and the API's message in `error` when it fails.
 * `onError` sees the failure first; returning true means it showed it itself (on a field).
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async (
    action: () => Promise<void>,
    onError?: (error: unknown) => boolean | void,
  ): Promise<void> => {
    setError(null);
    setBusy(true);
    try {
      await action();
    } catch (e) {
      // A template still in its wait is said in local time (the API's message carries UTC).
      if (onError?.(e) !== true) setError(templateNotReadyMessage(e) ?? errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return { busy, error, setError, run };
}
