import { useState, type FormEvent } from 'react';
import type { Conversation } from '../../../../shared/schemas/index.ts';
import { Avatar } from '../../components/avatar.tsx';
import { Dropdown, MenuButton } from '../../components/dropdown.tsx';
import { FormDialog } from '../../components/form-dialog.tsx';
import {
  CheckIcon,
  ClockIcon,
  CloseIcon,
  PanelIcon,
  PersonIcon,
  PlusIcon,
} from '../../components/icons.tsx';
import { useNow } from '../../components/use-now.ts';
import { selectMe, useAgents } from '../../stores/agents.ts';
import { conversationTitle } from '../../stores/inbox.ts';
import { changeConversation as change, useThread } from '../../stores/thread.ts';
import { snoozePresets, toLocalInput, wakeTime } from './time.ts';

const STATUS_LABELS: Record<Conversation['status'], string> = {
  open: 'Open',
  pending: 'Pending',
  snoozed: 'Snoozed',
  resolved: 'Resolved',
};

function AssignMenu({ conversation }: { conversation: Conversation }) {
  const agents = useAgents((s) => s.agents);
  const me = useAgents(selectMe);
  const assignee = agents.find((a) => a.id === conversation.assignee) ?? null;
  return (
    <Dropdown
      label={assignee ? `Assigned to ${assignee.name}. Change` : 'Assign'}
      testId="assign-menu"
      trigger={
        <>
          {assignee ? (
            <Avatar name={assignee.name} colorKey={assignee.id} size="small" />
          ) : (
            <span className="avatar avatar-small avatar-empty" aria-hidden="true">
              <PersonIcon />
            </span>
          )}
          <span className="truncate" data-testid="assignee-name">
            {assignee ? assignee.name : conversation.assignee ? 'Another agent' : 'Unassigned'}
          </span>
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
            disabled={!me || conversation.assignee === me.id}
            hint={me ? undefined : 'Add yourself as an agent first'}
            testId="assign-me"
          >
            Assign to me <kbd className="kbd">a</kbd>
          </MenuButton>
          <div className="menu-section">
            <div className="menu-heading">Agents</div>
            <div className="menu-scroll">
              {agents.length === 0 ? <p className="menu-empty">No agents yet.</p> : null}
              {agents.map((agent) => (
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
                    <Avatar name={agent.name} colorKey={agent.id} size="small" />
                    <span className="truncate">
                      {agent.name}
                      {agent.id === me?.id ? <span className="muted"> (you)</span> : null}
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
    const label = value.trim();
    if (!label) return setAdding(false);
    setValue('');
    setAdding(false);
    if (!conversation.labels.includes(label)) change({ labels: [...conversation.labels, label] });
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
            maxLength={64}
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
  return (
    <>
      <Dropdown
        label="Snooze"
        align="right"
        testId="snooze-menu"
        trigger={
          <>
            <ClockIcon />
            {snoozed && conversation.snoozedUntil
              ? `Until ${wakeTime(conversation.snoozedUntil, now)}`
              : 'Snooze'}
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

interface ThreadHeaderProps {
  conversation: Conversation;
  panelOpen: boolean;
  onTogglePanel: () => void;
}

/** Who the conversation is with, and what can be done to it: assign, label, snooze, resolve. */
export function ThreadHeader({ conversation, panelOpen, onTogglePanel }: ThreadHeaderProps) {
  const title = conversationTitle(conversation);
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
                <span className="mono">{conversation.contact.phone}</span>
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
        <button
          type="button"
          className={`icon-button panel-toggle${panelOpen ? ' active' : ''}`}
          aria-pressed={panelOpen}
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
    </header>
  );
}
