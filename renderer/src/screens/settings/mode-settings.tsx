import type { ReactNode } from 'react';
import type { Environment } from '../../../../shared/schemas/common.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useRecord } from '../../components/record-loader.tsx';
import { useSession } from '../../stores/session.ts';

/**
 * Settings of one mode only (the live channel, the simulator), opened in the other: what they
 * are, in a sentence, and the switch to the mode where they are changed.
 */
export function OtherModeNotice({
  to,
  testId,
  switchTestId,
  children,
}: {
  to: Environment;
  testId: string;
  switchTestId: string;
  children: ReactNode;
}) {
  const setEnvironment = useSession((s) => s.setEnvironment);
  return (
    <div className="banner banner-info" role="note" data-testid={testId}>
      <span className="banner-text">{children}</span>
      <button
        type="button"
        className="button button-small"
        onClick={() => setEnvironment(to)}
        data-testid={switchTestId}
      >
        Switch to {to}
      </button>
    </div>
  );
}

/** Settings read once (again on "Try again"), then their form; a save puts the answer in place. */
export function LoadedSettings<T>({
  load,
  loadingText,
  className,
  children,
}: {
  load: () => Promise<T>;
  loadingText: string;
  className?: string;
  children: (settings: T, onSaved: (settings: T) => void) => ReactNode;
}) {
  const { loaded, retry, setRecord } = useRecord(load);
  return (
    <div className={className} aria-busy={loaded.state === 'loading'}>
      {loaded.state === 'loading' ? <p className="muted">{loadingText}</p> : null}
      {loaded.state === 'error' ? <ErrorBanner message={loaded.error} onRetry={retry} /> : null}
      {loaded.state === 'ready' ? children(loaded.record, setRecord) : null}
    </div>
  );
}
