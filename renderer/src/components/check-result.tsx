import type { ReactNode } from 'react';
import './check-result.css';

interface CheckResultProps {
  ok: boolean;
  testId: string;
  /** What it came to, in bold at the top. */
  title: string;
  /** Beside the title: when it was checked, or the server's reply code. */
  aside?: ReactNode;
  /** The other side's answer, verbatim. */
  children: ReactNode;
}

/** A connection check's answer, styled by whether it worked. */
export function CheckResult({ ok, testId, title, aside, children }: CheckResultProps) {
  return (
    <div
      className={`check-result ${ok ? 'check-ok' : 'check-failed'}`}
      data-testid={testId}
      data-ok={ok}
    >
      <p className="check-head">
        <strong>{title}</strong>
        {aside}
      </p>
      {children}
    </div>
  );
}

/** A check that got no answer at all (the request itself failed), styled as failed. */
export function CheckNotRun({ testId, error }: { testId: string; error: string }) {
  return (
    <div className="check-result check-failed" data-testid={testId}>
      <strong>The check could not run.</strong> {error}
    </div>
  );
}
