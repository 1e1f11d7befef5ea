import type { ReactNode } from 'react';

/**
 * A page shown before anyone is signed in (signing in, accepting an invite): the brand, a title
 * and one card, with none of the app's screens around it.
 */
export function AuthPage({
  title,
  testId,
  children,
}: {
  title: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <main className="auth-page" data-testid={testId}>
      <div className="auth-card">
        <div className="auth-brand">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>
          <span className="auth-brand-name">Parley</span>
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
