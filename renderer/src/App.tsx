import { useEffect, useState } from 'react';
import { isDesktop } from './api/client.ts';
import { events } from './api/events.ts';
import { ConnectionBanner, SessionEndedScreen } from './components/connection-banner.tsx';
import { ErrorBanner } from './components/error-banner.tsx';
import { ForbiddenPage } from './components/forbidden-page.tsx';
import { Sidebar } from './components/sidebar.tsx';
import { RightNotes } from './components/needs-right.tsx';
import { ScreenErrorBoundary } from './components/screen-error-boundary.tsx';
import { Toaster } from './components/toaster.tsx';
import { ModeBanner, TopBar } from './components/top-bar.tsx';
import { useCanOpen } from './components/use-can.ts';
import { AccountScreen } from './screens/account/account-screen.tsx';
import { AuditScreen } from './screens/audit/audit-screen.tsx';
import { CampaignsScreen } from './screens/campaigns/campaigns-screen.tsx';
import { CannedRepliesScreen } from './screens/canned-replies/canned-replies-screen.tsx';
import { ContactsScreen } from './screens/contacts/contacts-screen.tsx';
import { EmailScreen } from './screens/email/email-screen.tsx';
import { InboxScreen } from './screens/inbox/inbox-screen.tsx';
import { InteractiveListsScreen } from './screens/interactive-lists/interactive-lists-screen.tsx';
import { MembersScreen } from './screens/members/members-screen.tsx';
import { TeamScreen } from './screens/team/team-screen.tsx';
import { PlaygroundScreen } from './screens/playground/playground-screen.tsx';
import { ApiKeysScreen } from './screens/settings/api-keys-screen.tsx';
import { ChannelSettingsScreen } from './screens/settings/channel-settings.tsx';
import { SimulatorSettingsScreen } from './screens/settings/simulator-settings.tsx';
import { WorkspaceSettingsScreen } from './screens/settings/workspace-settings.tsx';
import { isJoinPage, JoinPage } from './screens/sign-in/join-page.tsx';
import { SignInPage } from './screens/sign-in/sign-in-page.tsx';
import { TemplatesScreen } from './screens/templates/templates-screen.tsx';
import { WebhooksScreen } from './screens/webhooks/webhooks-screen.tsx';
import { WalletScreen } from './screens/wallet/wallet-screen.tsx';
import { WorkflowsScreen } from './screens/workflows/workflows-screen.tsx';
import { useAgents } from './stores/agents.ts';
import { useInbox } from './stores/inbox.ts';
import { startInboxAlerts } from './stores/inbox-alerts.ts';
import { startPresenceReporting, usePresence } from './stores/presence.ts';
import {
  DEFAULT_ROUTE,
  hrefFor,
  ROUTE_RIGHTS,
  SCREEN_NAMES,
  startHashRouting,
  useRoute,
  type Route,
} from './stores/route.ts';
import { startMeRefresh, useSession } from './stores/session.ts';

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
    case 'webhooks':
      return <WebhooksScreen />;
    case 'settings/workspace':
      return <WorkspaceSettingsScreen />;
    case 'settings/keys':
      return <ApiKeysScreen />;
    case 'settings/channel':
      return <ChannelSettingsScreen />;
    case 'settings/simulator':
      return <SimulatorSettingsScreen />;
    case 'settings/members':
      return <MembersScreen />;
    case 'settings/team':
      return <TeamScreen />;
    case 'settings/audit':
      return <AuditScreen />;
    case 'settings/account':
      return <AccountScreen />;
  }
}

/** A screen the member may open, or what right it needs (opened by its address). */
function AllowedScreen({ route }: { route: Route }) {
  const allowed = useCanOpen(route);
  if (allowed) return <Screen route={route} />;
  return <ForbiddenPage title={SCREEN_NAMES[route]} right={ROUTE_RIGHTS[route]} />;
}

/** After an invite was accepted: the app's own address, the invite link out of the history. */
function leaveJoinPage(): void {
  const home = new URL('.', location.href);
  home.hash = hrefFor(DEFAULT_ROUTE);
  history.replaceState(null, '', home);
}

export function App() {
  const route = useRoute((s) => s.route);
  const status = useSession((s) => s.status);
  const error = useSession((s) => s.error);
  const signedOut = useSession((s) => s.connection === 'signed_out');
  const environment = useSession((s) => s.environment);
  const workspaceId = useSession((s) => s.workspaceId);
  const bootstrap = useSession((s) => s.bootstrap);
  // An invite link opens the join page; the app starts once it was accepted (and signed in).
  const [joining, setJoining] = useState(() => !isDesktop() && isJoinPage());

  useEffect(() => {
    if (!joining && useSession.getState().status === 'idle') void bootstrap();
  }, [bootstrap, joining]);

  // The join page's address carries the invite in its hash: hash routing starts after it.
  useEffect(() => (joining ? undefined : startHashRouting()), [joining]);

  // One event stream for the whole app, opened once the session's scope is known. The inbox
  // and the agents load with it wherever the app opens: unread counts and notices need them.
  useEffect(() => {
    if (status !== 'ready') return;
    events.start();
    useAgents.getState().ensureLoaded();
    useInbox.getState().ensureLoaded();
    usePresence.getState().ensureLoaded();
    // A mode or workspace switch resets them: load them again for the new scope.
  }, [status, environment, workspaceId]);

  // A signed-in member's window says when its person is here (online) or not (away).
  const memberId = useSession((s) => s.me?.member?.id ?? null);
  useEffect(() => {
    if (status !== 'ready' || !memberId || signedOut) return;
    return startPresenceReporting();
  }, [status, memberId, signedOut, workspaceId]);

  useEffect(() => startInboxAlerts(), []);
  useEffect(() => startMeRefresh(), []);

  if (joining) {
    return (
      <JoinPage
        onJoined={() => {
          leaveJoinPage();
          setJoining(false);
        }}
      />
    );
  }
  // A browser signs in with a form of its own; the desktop window's session comes from the app.
  if (signedOut && !isDesktop()) return <SignInPage />;

  return (
    <div className={`app mode-${environment}`}>
      {/* The first tab stop: past the sidebar and the top bar, straight to the screen. */}
      <button
        type="button"
        className="skip-link"
        onClick={() => document.getElementById('main-content')?.focus()}
        data-testid="skip-link"
      >
        Skip to the screen
      </button>
      <Sidebar />
      <div className="main-column">
        <TopBar />
        <ModeBanner />
        <ConnectionBanner />
        <main
          id="main-content"
          tabIndex={-1}
          className={`content${route === 'inbox' ? ' content-flush' : ''}`}
        >
          {signedOut ? <SessionEndedScreen /> : null}
          {!signedOut && status === 'error' && error ? (
            <ErrorBanner message={error} onRetry={() => void bootstrap()} />
          ) : null}
          {!signedOut && status === 'ready' ? (
            <ScreenErrorBoundary key={route}>
              <AllowedScreen route={route} />
            </ScreenErrorBoundary>
          ) : null}
          {!signedOut && (status === 'loading' || status === 'idle') ? (
            <div className="loading-page" aria-busy="true">
              Connecting to Parley…
            </div>
          ) : null}
        </main>
      </div>
      <Toaster />
      <RightNotes />
    </div>
  );
}
