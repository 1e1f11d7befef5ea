import { useEffect } from 'react';
import { events } from './api/events.ts';
import { ConnectionBanner, SignInScreen } from './components/connection-banner.tsx';
import { ErrorBanner } from './components/error-banner.tsx';
import { Sidebar } from './components/sidebar.tsx';
import { Toaster } from './components/toaster.tsx';
import { ModeBanner, TopBar } from './components/top-bar.tsx';
import { CampaignsScreen } from './screens/campaigns/campaigns-screen.tsx';
import { CannedRepliesScreen } from './screens/canned-replies/canned-replies-screen.tsx';
import { ContactsScreen } from './screens/contacts/contacts-screen.tsx';
import { EmailScreen } from './screens/email/email-screen.tsx';
import { InboxScreen } from './screens/inbox/inbox-screen.tsx';
import { InteractiveListsScreen } from './screens/interactive-lists/interactive-lists-screen.tsx';
import { PlaygroundScreen } from './screens/playground/playground-screen.tsx';
import { ApiKeysScreen } from './screens/settings/api-keys-screen.tsx';
import { ChannelSettingsScreen } from './screens/settings/channel-settings.tsx';
import { TemplatesScreen } from './screens/templates/templates-screen.tsx';
import { WalletScreen } from './screens/wallet/wallet-screen.tsx';
import { WorkflowsScreen } from './screens/workflows/workflows-screen.tsx';
import { useAgents } from './stores/agents.ts';
import { useInbox } from './stores/inbox.ts';
import { startInboxAlerts } from './stores/inbox-alerts.ts';
import { useRoute, type Route } from './stores/route.ts';
import { useSession } from './stores/session.ts';

function Screen({ route }: { route: Route }) {
  switch (route) {
    case 'inbox':
      return <InboxScreen />;
    case 'contacts':
      return <ContactsScreen />;
    case 'templates':
      return <TemplatesScreen />;
    case 'campaigns':
      return <CampaignsScreen />;
    case 'email':
      return <EmailScreen />;
    case 'canned-replies':
      return <CannedRepliesScreen />;
    case 'interactive-lists':
      return <InteractiveListsScreen />;
    case 'workflows':
      return <WorkflowsScreen />;
    case 'wallet':
      return <WalletScreen />;
    case 'playground':
      return <PlaygroundScreen />;
    case 'settings/keys':
      return <ApiKeysScreen />;
    case 'settings/channel':
      return <ChannelSettingsScreen />;
  }
}

export function App() {
  const route = useRoute((s) => s.route);
  const status = useSession((s) => s.status);
  const error = useSession((s) => s.error);
  const signedOut = useSession((s) => s.connection === 'signed_out');
  const environment = useSession((s) => s.environment);
  const workspaceId = useSession((s) => s.workspaceId);
  const bootstrap = useSession((s) => s.bootstrap);

  useEffect(() => {
    if (useSession.getState().status === 'idle') void bootstrap();
  }, [bootstrap]);

  // One event stream for the whole app, opened once the session's scope is known. The inbox
  // and the agents load with it wherever the app opens: unread counts and notices need them.
  useEffect(() => {
    if (status !== 'ready') return;
    events.start();
    useAgents.getState().ensureLoaded();
    useInbox.getState().ensureLoaded();
    // A mode or workspace switch resets both: load them again for the new scope.
  }, [status, environment, workspaceId]);

  useEffect(() => startInboxAlerts(), []);

  return (
    <div className={`app mode-${environment}`}>
      <Sidebar />
      <div className="main-column">
        <TopBar />
        <ModeBanner />
        <ConnectionBanner />
        <main className={`content${route === 'inbox' ? ' content-flush' : ''}`}>
          {signedOut ? <SignInScreen /> : null}
          {!signedOut && status === 'error' && error ? (
            <ErrorBanner message={error} onRetry={() => void bootstrap()} />
          ) : null}
          {!signedOut && status === 'ready' ? <Screen route={route} /> : null}
          {!signedOut && (status === 'loading' || status === 'idle') ? (
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
