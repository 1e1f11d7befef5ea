import { useEffect, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client.ts';
import { ErrorBanner } from './error-banner.tsx';
import { PageHeader } from './page-header.tsx';

type Loaded<T> =
  { state: 'loading' } | { state: 'ready'; record: T } | { state: 'error'; error: string };

interface RecordLoaderProps<T> {
  /** Reads the record once (again on "Try again"); the caller keys this by the record's id. */
  load: () => Promise<T>;
  /** The page's way back (`← Workflows`). */
  back: { href: string; label: string };
  title: string;
  loadingText: string;
  failedText: string;
  testId: string;
  children: (record: T) => ReactNode;
}

/**
 * Reads a record once, and again on `retry` (the caller keys its component by the record's id):
 * loading, the record, or why it could not be read. `setRecord` puts a fresher copy in place.
 */
export function useRecord<T>(load: () => Promise<T>) {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const read = useRef(load);
  useEffect(() => {
    read.current = load;
  });

  useEffect(() => {
    let cancelled = false;
    read.current().then(
      (record) => !cancelled && setLoaded({ state: 'ready', record }),
      (e: unknown) => !cancelled && setLoaded({ state: 'error', error: errorMessage(e) }),
    );
    return () => {
      cancelled = true;
    };
  }, [attempt]);

  const retry = () => {
    setLoaded({ state: 'loading' });
    setAttempt((n) => n + 1);
  };
  const setRecord = (record: T) => setLoaded({ state: 'ready', record });
  return { loaded, retry, setRecord };
}

/** A page about one saved record (an editor, a run): a loading page until it is read. */
export function RecordLoader<T>({
  load,
  back,
  title,
  loadingText,
  failedText,
  testId,
  children,
}: RecordLoaderProps<T>) {
  const { loaded, retry } = useRecord(load);

  if (loaded.state === 'ready') return <>{children(loaded.record)}</>;
  return (
    <div className="screen" aria-busy={loaded.state === 'loading'} data-testid={testId}>
      <PageHeader
        eyebrow={
          <a href={back.href} className="link-button">
            {back.label}
          </a>
        }
        title={title}
        description={loaded.state === 'loading' ? loadingText : failedText}
      />
      {loaded.state === 'error' ? <ErrorBanner message={loaded.error} onRetry={retry} /> : null}
    </div>
  );
}
