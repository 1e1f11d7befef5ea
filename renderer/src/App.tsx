import { useEffect } from 'react';
import { ErrorBanner } from './components/error-banner.tsx';
import { Sidebar } from './components/sidebar.tsx';
import { Toaster } from './components/toaster.tsx';
import { ModeBanner, TopBar } from './components/top-bar.tsx';
import { ContactsScreen } from './screens/contacts/contacts-screen.tsx';
import { ApiKeysScreen } from './screens/settings/api-keys-screen.tsx';
import { WalletScreen } from './screens/wallet/wallet-screen.tsx';
import { useRoute, type Route } from './stores/route.ts';
import { useSession } from './stores/session.ts';

function Screen({ route }: { route: Route }) {
  switch (route) {
    case 'contacts':
      return <ContactsScreen />;
    case 'wallet':
      return <WalletScreen />;
    case 'settings/keys':
      return <ApiKeysScreen />;
  }
}

export function App() {
  const route = useRoute((s) => s.route);
  const status = useSession((s) => s.status);
  const error = useSession((s) => s.error);
  const environment = useSession((s) => s.environment);
  const bootstrap = useSession((s) => s.bootstrap);

  useEffect(() => {
    if (useSession.getState().status === 'idle') void bootstrap();
  }, [bootstrap]);

  return (
    <div className={`app mode-${environment}`}>
      <Sidebar />
      <div className="main-column">
        <TopBar />
        <ModeBanner />
        <main className="content">
          {status === 'error' && error ? (
            <ErrorBanner message={error} onRetry={() => void bootstrap()} />
          ) : null}
          {status === 'ready' ? <Screen route={route} /> : null}
          {status === 'loading' || status === 'idle' ? (
            <div className="loading-page" aria-busy="true">
              Connecting to Parley…
            </div>
          ) : null}
        </main>
      </div>
      <Toaster />
    </div>
  );
}
