import { useCallback, useEffect, useState } from 'react';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { ChatIcon, PlusIcon } from '../../components/icons.tsx';
import { useCan } from '../../components/use-can.ts';
import { useMediaQuery } from '../../components/use-media-query.ts';
import { useAgents } from '../../stores/agents.ts';
import { useInbox } from '../../stores/inbox.ts';
import { hrefFor } from '../../stores/route.ts';
import { useThread } from '../../stores/thread.ts';
import { AutomationBanner } from './automation-banner.tsx';
import { ContactPanel } from './contact-panel.tsx';
import { ConversationList } from './conversation-list.tsx';
import { CustomerSimulator } from './customer-simulator.tsx';
import { ReplyComposer } from './reply-composer.tsx';
import { ShortcutsDialog } from './shortcuts-dialog.tsx';
import { ThreadHeader } from './thread-header.tsx';
import { ThreadMessages } from './thread-messages.tsx';
import { useViewingSignal } from './thread-viewers.tsx';
import { useInboxShortcuts } from './use-inbox-shortcuts.ts';

const PANEL_KEY = 'parley.inbox.contactPanel';

/**
 * Below this the window has room for two panes only (styles.css uses the same width): the
 * contact details open over the thread on request, instead of taking a third column.
 */
const NARROW_QUERY = '(max-width: 1199px)';

function readPanelSetting(): boolean {
  try {
    return localStorage.getItem(PANEL_KEY) !== 'closed';
  } catch {
    return true;
  }
}

/** Admins bring teammates in from Members; the link is not shown to those who cannot. */
function InviteTeammate() {
  const allowed = useCan('members');
  if (!allowed) return null;
  return (
    <a
      href={hrefFor('settings/members')}
      className="button button-small"
      data-testid="invite-teammate"
    >
      <PlusIcon />
      Invite a teammate
    </a>
  );
}

function NoSelection({ onHelp }: { onHelp: () => void }) {
  return (
    <div className="inbox-placeholder" data-testid="no-conversation">
      <span className="inbox-placeholder-icon" aria-hidden="true">
        <ChatIcon />
      </span>
      <h2>Pick a conversation</h2>
      <p className="muted">
        Choose one on the left, or press <kbd className="kbd">j</kbd> to open the first.
      </p>
      <button type="button" className="link-button" onClick={onHelp}>
        Keyboard shortcuts <kbd className="kbd">?</kbd>
      </button>
      <InviteTeammate />
    </div>
  );
}

interface ThreadProps {
  panelOpen: boolean;
  togglePanel: () => void;
  /** The contact panel opens over the thread (a narrow window). */
  overlay: boolean;
}

function Thread({ panelOpen, togglePanel, overlay }: ThreadProps) {
  const conversation = useThread((s) => s.conversation);
  const status = useThread((s) => s.status);
  const error = useThread((s) => s.error);
  const reload = useThread((s) => s.reload);
  if (!conversation) {
    return (
      <section className="inbox-thread">
        {status === 'error' && error ? (
          <div className="inbox-thread-banner">
            <ErrorBanner message={error} onRetry={() => void reload()} />
          </div>
        ) : (
          <div className="inbox-placeholder" aria-busy="true">
            Loading conversation…
          </div>
        )}
      </section>
    );
  }
  return (
    <>
      <section className="inbox-thread" aria-label="Conversation" data-testid="thread">
        <ThreadHeader
          conversation={conversation}
          panelOpen={panelOpen}
          onTogglePanel={togglePanel}
        />
        <AutomationBanner conversation={conversation} />
        {status === 'error' && error ? (
          <div className="inbox-thread-banner">
            <ErrorBanner message={error} onRetry={() => void reload()} />
          </div>
        ) : null}
        <ThreadMessages />
        <CustomerSimulator conversation={conversation} />
        <ReplyComposer key={conversation.id} conversation={conversation} />
      </section>
      {panelOpen ? (
        <ContactPanel
          conversation={conversation}
          {...(overlay
            ? {
                onClose: () => {
                  togglePanel();
                  document.querySelector<HTMLElement>('.panel-toggle')?.focus();
                },
              }
            : {})}
        />
      ) : null}
    </>
  );
}

/** The agent's home: conversation list | thread | contact details, all live. */
export function InboxScreen() {
  const ensureLoaded = useInbox((s) => s.ensureLoaded);
  const selectedId = useThread((s) => s.conversationId);
  const ensureAgents = useAgents((s) => s.ensureLoaded);
  const [panelSetting, setPanelSetting] = useState(readPanelSetting);
  const narrow = useMediaQuery(NARROW_QUERY);
  // Over the thread the panel hides what the agent works on: it opens only when asked, each time.
  const [overlayOpen, setOverlayOpen] = useState(false);
  const panelOpen = narrow ? overlayOpen : panelSetting;
  const [help, setHelp] = useState(false);

  // Both reload after a mode or workspace switch resets them.
  const inboxStatus = useInbox((s) => s.status);
  const agentsStatus = useAgents((s) => s.status);
  useEffect(() => ensureLoaded(), [ensureLoaded, inboxStatus]);
  useEffect(() => ensureAgents(), [ensureAgents, agentsStatus]);

  const togglePanel = useCallback(() => {
    if (narrow) return setOverlayOpen((open) => !open);
    setPanelSetting((open) => {
      try {
        localStorage.setItem(PANEL_KEY, open ? 'closed' : 'open');
      } catch {
        // The choice then lasts this session.
      }
      return !open;
    });
  }, [narrow]);
  const showHelp = useCallback(() => setHelp(true), []);
  useInboxShortcuts(showHelp);
  // The others see who has the conversation open (its header and their list).
  useViewingSignal(selectedId);

  return (
    <div
      className={`inbox${selectedId && panelOpen && !narrow ? ' with-panel' : ''}`}
      data-testid="screen-inbox"
    >
      {/* The three panes leave no room for a visible title; screen readers still get one. */}
      <h1 className="visually-hidden">Inbox</h1>
      <ConversationList />
      {selectedId ? (
        <Thread panelOpen={panelOpen} togglePanel={togglePanel} overlay={narrow} />
      ) : (
        <section className="inbox-thread">
          <NoSelection onHelp={showHelp} />
        </section>
      )}
      {help ? <ShortcutsDialog onClose={() => setHelp(false)} /> : null}
    </div>
  );
}
