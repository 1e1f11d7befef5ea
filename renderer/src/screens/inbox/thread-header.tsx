import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { MAX_LABEL_LENGTH, normalizeLabels, splitLabels } from '../../../../shared/labels.ts';
import type { Conversation } from '../../../../shared/schemas/index.ts';
import '../../components/chat-format.css';
import { Avatar } from '../../components/avatar.tsx';
import { Dropdown, MenuButton } from '../../components/dropdown.tsx';
import { FormDialog } from '../../components/form-dialog.tsx';
import { toLocalInput } from '../../components/format.ts';
import {
  CheckIcon,
  ClockIcon,
  CloseIcon,
  PanelIcon,
  PersonIcon,
  PlusIcon,
  SearchIcon,
} from '../../components/icons.tsx';
import { PresenceWords, WithPresence } from '../../components/presence-dot.tsx';
import { SearchField } from '../../components/search-field.tsx';
import { useNow } from '../../components/use-now.ts';
import { isAssignable, useAgents } from '../../stores/agents.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { conversationTitle } from '../../stores/inbox.ts';
import { notifyError } from '../../stores/toasts.ts';
import { changeConversation as change, useThread } from '../../stores/thread.ts';
import { matchesIn, sameMatch, useThreadSearch } from '../../stores/thread-search.ts';
import { CONTACT_PANEL_ID } from './contact-panel.tsx';
import { ThreadViewers } from './thread-viewers.tsx';
import { snoozePresets, wakeTime } from './time.ts';
import { contactHandle } from '../../../../shared/phone.ts';

const STATUS_LABELS: Record<Conversation['status'], string> = {
  open: 'Open',
  pending: 'Pending',
  snoozed: 'Snoozed',
  resolved: 'Resolved',
};

function AssignMenu({ conversation }: { conversation: Conversation }) {
  const agents = useAgents((s) => s.agents);
  const meId = useSession(selectMemberId);
  const assignee = agents.find((a) => a.id === conversation.assignee) ?? null;
  const shown = assignee ? assignee.name : conversation.assignee ? 'Another agent' : 'Unassigned';
  return (
    <Dropdown
      // Named by what it shows, with "Assignee:" before it for a screen reader, so speech input
      // can name the button by its visible text (the avatar's initials are hidden from both).
      testId="assign-menu"
      trigger={
        <>
          <span className="visually-hidden">Assignee: </span>
          {assignee ? (
            <WithPresence memberId={assignee.id}>
              <Avatar name={assignee.name} colorKey={assignee.id} size="small" />
            </WithPresence>
          ) : (
            <span className="avatar avatar-small avatar-empty" aria-hidden="true">
              <PersonIcon />
            </span>
          )}
          <span className="truncate" data-testid="assignee-name">
            {shown}
          </span>
          {assignee ? <PresenceWords memberId={assignee.id} /> : null}
          <span className="caret" aria-hidden="true" />
        </>
      }
    >
      {(close) => (
        <>
          <MenuButton
            onSelect={() => {
              close();
              change({ assignee: 'me' });
            }}
            disabled={!meId || conversation.assignee === meId}
            testId="assign-me"
          >
            Assign to me <kbd className="kbd">a</kbd>
          </MenuButton>
          <div className="menu-section">
            <div className="menu-heading">Agents</div>
            <div className="menu-scroll">
              {agents.filter(isAssignable).map((agent) => (
                <MenuButton
                  key={agent.id}
                  checked={agent.id === conversation.assignee}
                  onSelect={() => {
                    close();
                    if (agent.id !== conversation.assignee) change({ assignee: agent.id });
                  }}
                  testId="assign-option"
                >
                  <span className="menu-person">
                    <WithPresence memberId={agent.id}>
                      <Avatar name={agent.name} colorKey={agent.id} size="small" />
                    </WithPresence>
                    <span className="truncate">
                      {agent.name}
                      {agent.id === meId ? <span className="muted"> (you)</span> : null}
                      <PresenceWords memberId={agent.id} />
                    </span>
                  </span>
                </MenuButton>
              ))}
            </div>
          </div>
          <div className="menu-section">
            <MenuButton
              onSelect={() => {
                close();
                change({ assignee: null });
              }}
              disabled={conversation.assignee === null}
              testId="unassign"
            >
              Unassign
            </MenuButton>
          </div>
        </>
      )}
    </Dropdown>
  );
}

function LabelEditor({ conversation }: { conversation: Conversation }) {
  const [adding, setAdding] = useState(false);
  const [value, setValue] = useState('');

  const add = (event: FormEvent) => {
    event.preventDefault();
    // The one label rule (shared/labels.ts): "vip, urgent" adds two.
    const labels = normalizeLabels([...conversation.labels, ...splitLabels(value)]);
    setValue('');
    setAdding(false);
    if (labels.length > conversation.labels.length) change({ labels });
  };

  return (
    <div className="thread-labels" data-testid="thread-labels">
      {conversation.labels.map((label) => (
        <span key={label} className="chip chip-removable" data-testid="thread-label">
          {label}
          <button
            type="button"
            aria-label={`Remove label ${label}`}
            onClick={() => change({ labels: conversation.labels.filter((l) => l !== label) })}
            data-testid="remove-label"
          >
            <CloseIcon />
          </button>
        </span>
      ))}
      {adding ? (
        <form onSubmit={add} className="label-add-form">
          <input
            className="input input-small"
            value={value}
            maxLength={MAX_LABEL_LENGTH}
            placeholder="Label"
            aria-label="New label"
            // The form appears on request, so focusing it is what the click asked for.
            autoFocus
            onChange={(event) => setValue(event.target.value)}
            onBlur={() => {
              if (!value.trim()) setAdding(false);
            }}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.stopPropagation();
                setValue('');
                setAdding(false);
              }
            }}
            data-testid="label-input"
          />
        </form>
      ) : (
        <button
          type="button"
          className="chip chip-add"
          onClick={() => setAdding(true)}
          data-testid="add-label"
        >
          <PlusIcon />
          Label
        </button>
      )}
    </div>
  );
}

function SnoozeDialog({ onClose }: { onClose: () => void }) {
  const [value, setValue] = useState(() => {
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);
    tomorrow.setHours(9, 0, 0, 0);
    return toLocalInput(tomorrow);
  });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const at = new Date(value);
    if (Number.isNaN(at.getTime())) return setError('Pick a date and time.');
    if (at.getTime() <= Date.now()) return setError('Pick a time in the future.');
    setBusy(true);
    try {
      await useThread.getState().patch({ status: 'snoozed', snoozedUntil: at.toISOString() });
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : 'The conversation could not be snoozed.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      title="Snooze until…"
      onClose={onClose}
      onSubmit={submit}
      submitLabel="Snooze"
      submitTestId="snooze-submit"
      busy={busy}
      lockWhileBusy={false}
      error={error}
      size="small"
      testId="snooze-dialog"
    >
      <p className="dialog-lead">
        The conversation leaves the Open tab and comes back by itself at this time, or sooner if the
        customer writes.
      </p>
      <input
        className="input"
        type="datetime-local"
        value={value}
        min={toLocalInput(new Date())}
        onChange={(event) => setValue(event.target.value)}
        aria-label="Snooze until"
        data-testid="snooze-custom"
      />
    </FormDialog>
  );
}

function SnoozeMenu({ conversation }: { conversation: Conversation }) {
  const now = useNow(60_000);
  const [custom, setCustom] = useState(false);
  const snoozed = conversation.status === 'snoozed';
  const text =
    snoozed && conversation.snoozedUntil
      ? `Until ${wakeTime(conversation.snoozedUntil, now)}`
      : 'Snooze';
  return (
    <>
      <Dropdown
        label={text === 'Snooze' ? text : `Snoozed: ${text}`}
        align="right"
        testId="snooze-menu"
        trigger={
          <>
            <ClockIcon />
            {text}
          </>
        }
      >
        {(close) => (
          <>
            <div className="menu-heading">Snooze</div>
            {snoozePresets(now).map((preset) => (
              <MenuButton
                key={preset.testId}
                onSelect={() => {
                  close();
                  change({ status: 'snoozed', snoozedUntil: preset.at.toISOString() });
                }}
                testId={preset.testId}
              >
                <span className="menu-row">
                  <span>{preset.label}</span>
                  <span className="muted small">{wakeTime(preset.at.toISOString(), now)}</span>
                </span>
              </MenuButton>
            ))}
            <MenuButton
              onSelect={() => {
                close();
                setCustom(true);
              }}
              testId="snooze-custom-open"
            >
              Pick a date and time…
            </MenuButton>
            {snoozed ? (
              <div className="menu-section">
                <MenuButton
                  onSelect={() => {
                    close();
                    change({ status: 'open' });
                  }}
                  testId="unsnooze"
                >
                  Unsnooze (back to Open)
                </MenuButton>
              </div>
            ) : null}
          </>
        )}
      </Dropdown>
      {custom ? <SnoozeDialog onClose={() => setCustom(false)} /> : null}
    </>
  );
}

function StatusActions({ conversation }: { conversation: Conversation }) {
  const resolved = conversation.status === 'resolved';
  return (
    <div className="split-button">
      {resolved ? (
        <button
          type="button"
          className="button button-small"
          onClick={() => change({ status: 'open' })}
          data-testid="reopen"
        >
          Reopen
        </button>
      ) : (
        <button
          type="button"
          className="button button-small button-resolve"
          onClick={() => change({ status: 'resolved' })}
          title="Resolve (e)"
          data-testid="resolve"
        >
          <CheckIcon />
          Resolve
        </button>
      )}
      <Dropdown
        label="More status options"
        align="right"
        className="button button-small split-button-more"
        testId="status-menu"
        trigger={<span className="caret" aria-hidden="true" />}
      >
        {(close) => (
          <>
            <div className="menu-heading">Mark as</div>
            {(['open', 'pending', 'resolved'] as const).map((status) => (
              <MenuButton
                key={status}
                checked={conversation.status === status}
                onSelect={() => {
                  close();
                  if (conversation.status !== status) change({ status });
                }}
                testId={`mark-${status}`}
              >
                {STATUS_LABELS[status]}
              </MenuButton>
            ))}
          </>
        )}
      </Dropdown>
    </div>
  );
}

/** Resolves once the thread is not reading an older page (so the next read is not a no-op). */
function olderPageSettled(): Promise<void> {
  return new Promise((resolve) => {
    if (!useThread.getState().loadingOlder) return resolve();
    const stop = useThread.subscribe((s) => {
      if (s.loadingOlder) return;
      stop();
      resolve();
    });
  });
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const FIND_SHORTCUT = isMac ? '⌘F' : 'Ctrl+F';

/**
 * Search inside the conversation: marks every match in the loaded messages and steps through
 * them, newest first ("1 of 5" is the newest). Stepping past the oldest loaded match reads
 * older pages until one turns up or the conversation's start is reached.
 */
function ThreadSearchBar({ conversationId }: { conversationId: string }) {
  const query = useThreadSearch((s) => s.query);
  const current = useThreadSearch((s) => s.current);
  const searchingOlder = useThreadSearch((s) => s.searchingOlder);
  const focusRequest = useThreadSearch((s) => s.focusRequest);
  const { setQuery, setCurrent, setSearchingOlder, close } = useThreadSearch.getState();
  const messages = useThread((s) => s.messages);
  const hasOlder = useThread((s) => s.nextCursor !== null);
  const inputRef = useRef<HTMLDivElement>(null);
  // Each search of older pages gets a number; a newer query or a closed bar ends the old one.
  const run = useRef(0);

  const matches = useMemo(() => matchesIn(messages, query), [messages, query]);
  const index = matches.findIndex((m) => sameMatch(m, current));

  useEffect(() => {
    inputRef.current?.querySelector('input')?.focus();
  }, [focusRequest]);

  // A new query starts at the newest match.
  useEffect(() => {
    if (current === null && matches.length > 0) setCurrent(matches[matches.length - 1]!);
  }, [current, matches, setCurrent]);

  useEffect(
    () => () => {
      run.current += 1;
    },
    [query],
  );

  const searchOlder = async () => {
    const mine = ++run.current;
    const stillMine = () =>
      mine === run.current && useThreadSearch.getState().conversationId === conversationId;
    setSearchingOlder(true);
    try {
      while (stillMine() && useThread.getState().nextCursor) {
        await olderPageSettled();
        const oldest = useThread.getState().messages[0]?.id;
        await useThread.getState().loadOlder();
        if (!stillMine() || useThread.getState().conversationId !== conversationId) return;
        const all = useThread.getState().messages;
        const cut = all.findIndex((m) => m.id === oldest);
        const found = matchesIn(all.slice(0, cut < 0 ? all.length : cut), query);
        if (found.length > 0) {
          setCurrent(found[found.length - 1]!);
          return;
        }
      }
    } catch (e) {
      notifyError(e);
    } finally {
      if (mine === run.current) setSearchingOlder(false);
    }
  };

  const older = () => {
    if (!query.trim()) return;
    if (index > 0) return setCurrent(matches[index - 1]!);
    if (hasOlder && !searchingOlder) void searchOlder();
  };
  const newer = () => {
    if (index >= 0 && index < matches.length - 1) setCurrent(matches[index + 1]!);
  };

  const position = index >= 0 ? matches.length - index : 0;
  const count = !query.trim()
    ? ''
    : matches.length > 0
      ? `${position} of ${matches.length}`
      : searchingOlder
        ? 'Searching…'
        : 'No matches';

  return (
    <div className="thread-search" role="search" ref={inputRef} data-testid="thread-search">
      <SearchField
        value={query}
        onChange={setQuery}
        placeholder="Search in this conversation"
        label="Search in this conversation"
        testId="thread-search-input"
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            // Closes the search only: the inbox's own Escape must not also act.
            event.preventDefault();
            event.stopPropagation();
            close();
          } else if (event.key === 'Enter') {
            event.preventDefault();
            if (event.shiftKey) newer();
            else older();
          }
        }}
      />
      <span className="thread-search-count" aria-live="polite" data-testid="thread-search-count">
        {count}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label="Older match"
        title={hasOlder ? 'Older match (Enter) · reads older messages too' : 'Older match (Enter)'}
        disabled={!query.trim() || searchingOlder || (index <= 0 && !hasOlder)}
        onClick={older}
        data-testid="thread-search-older"
      >
        <span aria-hidden="true">↑</span>
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label="Newer match"
        title="Newer match (Shift+Enter)"
        disabled={index < 0 || index >= matches.length - 1}
        onClick={newer}
        data-testid="thread-search-newer"
      >
        <span aria-hidden="true">↓</span>
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label="Close search"
        title="Close search (Esc)"
        onClick={close}
        data-testid="thread-search-close"
      >
        <CloseIcon />
      </button>
    </div>
  );
}

interface ThreadHeaderProps {
  conversation: Conversation;
  panelOpen: boolean;
  onTogglePanel: () => void;
}

/** Who the conversation is with, and what can be done to it: assign, label, snooze, resolve. */
export function ThreadHeader({ conversation, panelOpen, onTogglePanel }: ThreadHeaderProps) {
  const title = conversationTitle(conversation);
  const searchOpen = useThreadSearch((s) => s.conversationId === conversation.id);
  const conversationId = conversation.id;

  // Ctrl/Cmd+F searches this conversation instead of the page; another conversation starts fresh.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.key.toLowerCase() !== 'f') {
        return;
      }
      if (document.querySelector('dialog[open]')) return;
      event.preventDefault();
      useThreadSearch.getState().show(conversationId);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      useThreadSearch.getState().close();
    };
  }, [conversationId]);

  return (
    <header className="thread-header" data-testid="thread-header">
      <div className="thread-header-top">
        <div className="thread-who">
          <Avatar name={title} colorKey={conversation.contact.id} size="large" />
          <div className="thread-title">
            <h2 className="truncate" data-testid="thread-title">
              {title}
            </h2>
            <div className="thread-sub">
              {conversation.contact.name ? (
                <span className="mono">{contactHandle(conversation.contact)}</span>
              ) : null}
              <span
                className={`conv-status conv-status-${conversation.status}`}
                data-testid="thread-status"
                data-status={conversation.status}
              >
                {STATUS_LABELS[conversation.status]}
              </span>
            </div>
          </div>
        </div>
        <ThreadViewers conversationId={conversationId} />
        <button
          type="button"
          className={`icon-button thread-search-toggle${searchOpen ? ' active' : ''}`}
          aria-pressed={searchOpen}
          aria-label="Search in this conversation"
          aria-keyshortcuts={isMac ? 'Meta+F' : 'Control+F'}
          title={`Search in this conversation (${FIND_SHORTCUT})`}
          onClick={() =>
            searchOpen
              ? useThreadSearch.getState().close()
              : useThreadSearch.getState().show(conversationId)
          }
          data-testid="thread-search-toggle"
        >
          <SearchIcon />
        </button>
        <button
          type="button"
          className={`icon-button panel-toggle${panelOpen ? ' active' : ''}`}
          aria-pressed={panelOpen}
          // Only while the panel is on the page (closed, it is not rendered at all).
          aria-controls={panelOpen ? CONTACT_PANEL_ID : undefined}
          aria-label={panelOpen ? 'Hide contact details' : 'Show contact details'}
          title={panelOpen ? 'Hide contact details' : 'Show contact details'}
          onClick={onTogglePanel}
          data-testid="toggle-contact-panel"
        >
          <PanelIcon />
        </button>
      </div>
      <div className="thread-header-bar">
        <LabelEditor conversation={conversation} />
        <div className="thread-actions">
          <AssignMenu conversation={conversation} />
          <SnoozeMenu conversation={conversation} />
          <StatusActions conversation={conversation} />
        </div>
      </div>
      {searchOpen ? <ThreadSearchBar conversationId={conversationId} /> : null}
    </header>
  );
}
