import { memo } from 'react';
import type { Agent, Conversation, Message } from '../../../../shared/schemas/index.ts';
import { Avatar } from '../../components/avatar.tsx';
import { EyeIcon } from '../../components/icons.tsx';
import { messageSummary } from '../../components/media/message-summary.ts';
import { Ticks } from '../../components/ticks.tsx';
import { conversationTitle } from '../../stores/inbox.ts';
import { Highlighted } from './highlight.tsx';
import { relativeTime, wakeTime } from './time.ts';

export const ROW_HEIGHT = 74;

interface RowProps {
  conversation: Conversation;
  selected: boolean;
  agents: ReadonlyMap<string, Agent>;
  meId: string | null;
  now: number;
  index: number;
  /** The row's offset in the list (px), from the virtualiser. */
  top: number;
  onSelect: (id: string) => void;
  /** Ticked for a bulk action. */
  checked: boolean;
  /** Ticks or unticks it; `range`: shift-click, from the last row ticked to this one. */
  onToggle: (id: string, range: boolean) => void;
  /** Who else has it open ("Ana is viewing"), or null. */
  viewing: string | null;
  /** The list's search: its words are marked in the name and the preview. */
  query: string;
}

/**
 * Who wrote the last message, as the list's preview prefixes it ("You: ", "Ann: ", "Campaign: ",
 * "Workflow: " — only campaigns and workflows send as the bot).
 */
function previewPrefix(
  message: Message,
  agents: ReadonlyMap<string, Agent>,
  meId: string | null,
): string {
  if (message.direction === 'inbound') return '';
  if (message.sentBy === 'bot' && message.campaignId) return 'Campaign: ';
  if (message.sentBy === 'bot') return 'Workflow: ';
  if (message.agentId && message.agentId !== meId) {
    const agent = agents.get(message.agentId);
    if (agent) return `${agent.name.split(/\s+/)[0]}: `;
  }
  return 'You: ';
}

function Preview({
  message,
  agents,
  meId,
  query,
}: {
  message: Message | null;
  agents: ReadonlyMap<string, Agent>;
  meId: string | null;
  query: string;
}) {
  if (!message) return <span className="conv-preview muted">No messages yet</span>;
  // Private notes never preview here: lastMessage is the last message exchanged.
  const outbound = message.direction === 'outbound';
  return (
    <span className="conv-preview" data-testid="conversation-preview">
      {outbound ? <Ticks status={message.status} /> : null}
      <span className="truncate">
        <span className="conv-prefix">{previewPrefix(message, agents, meId)}</span>
        <Highlighted text={messageSummary(message)} query={query} snippet />
      </span>
    </span>
  );
}

function StatusMarker({ conversation, now }: { conversation: Conversation; now: number }) {
  if (conversation.status === 'snoozed') {
    return (
      <span className="conv-marker conv-marker-snoozed" data-testid="conversation-marker">
        Snoozed
        {conversation.snoozedUntil ? ` · ${wakeTime(conversation.snoozedUntil, now)}` : ''}
      </span>
    );
  }
  if (conversation.status === 'resolved') {
    return (
      <span className="conv-marker conv-marker-resolved" data-testid="conversation-marker">
        Resolved
      </span>
    );
  }
  if (conversation.status === 'pending') {
    return (
      <span className="conv-marker conv-marker-pending" data-testid="conversation-marker">
        Pending
      </span>
    );
  }
  return null;
}

/** One conversation in the inbox list (absolutely positioned by the virtualiser). */
export const ConversationRow = memo(function ConversationRow({
  conversation,
  selected,
  agents,
  meId,
  now,
  index,
  top,
  onSelect,
  checked,
  onToggle,
  viewing,
  query,
}: RowProps) {
  const title = conversationTitle(conversation);
  const unread = conversation.unreadCount > 0;
  const assignee = conversation.assignee ? agents.get(conversation.assignee) : undefined;
  const labels = conversation.labels;
  const hasMeta =
    labels.length > 0 || conversation.assignee !== null || conversation.status !== 'open';
  return (
    <div
      role="option"
      aria-selected={selected}
      aria-posinset={index + 1}
      aria-checked={checked}
      id={`conversation-${conversation.id}`}
      className={`conv-row${selected ? ' selected' : ''}${unread ? ' unread' : ''}${checked ? ' checked' : ''}`}
      style={{ height: ROW_HEIGHT, transform: `translateY(${top}px)` }}
      onClick={() => onSelect(conversation.id)}
      data-testid="conversation-row"
      data-conversation-id={conversation.id}
      data-status={conversation.status}
      data-unread={conversation.unreadCount}
    >
      {/* The tick box is drawn, not an input: an option may hold no focusable control (ARIA),
          so the option's aria-checked carries the state and Space / x toggle it from the keyboard. */}
      <span
        className="conv-check"
        aria-hidden="true"
        data-checked={checked}
        onMouseDown={(event) => {
          // A shift-click must not select the rows' text.
          if (event.shiftKey) event.preventDefault();
        }}
        onClick={(event) => {
          event.stopPropagation();
          onToggle(conversation.id, event.shiftKey);
        }}
        data-testid="row-select"
      />
      <Avatar name={title} colorKey={conversation.contact.id} />
      <div className="conv-main">
        <div className="conv-line">
          <span className="conv-name truncate" data-testid="conversation-name">
            <Highlighted text={title} query={query} />
          </span>
          {viewing ? (
            <span className="conv-viewing" title={viewing} data-testid="conversation-viewing">
              <EyeIcon size={14} />
              <span className="visually-hidden">{viewing}</span>
            </span>
          ) : null}
          <time
            className="conv-time"
            dateTime={conversation.lastMessageAt}
            title={new Date(conversation.lastMessageAt).toLocaleString()}
          >
            {relativeTime(conversation.lastMessageAt, now)}
          </time>
        </div>
        <div className="conv-line">
          <Preview message={conversation.lastMessage} agents={agents} meId={meId} query={query} />
          {unread ? (
            <span
              className="conv-unread"
              aria-label={`${conversation.unreadCount} unread`}
              data-testid="unread-badge"
            >
              {conversation.unreadCount > 99 ? '99+' : conversation.unreadCount}
            </span>
          ) : null}
        </div>
        {hasMeta ? (
          <div className="conv-line conv-meta">
            <span className="conv-tags">
              <StatusMarker conversation={conversation} now={now} />
              {labels.slice(0, 2).map((label) => (
                <span key={label} className="chip chip-small" data-testid="conversation-label">
                  {label}
                </span>
              ))}
              {labels.length > 2 ? (
                <span className="chip chip-small chip-more">+{labels.length - 2}</span>
              ) : null}
            </span>
            {conversation.assignee ? (
              <span
                className="conv-assignee"
                title={`Assigned to ${assignee?.name ?? 'an agent'}`}
                data-testid="conversation-assignee"
              >
                <Avatar
                  name={assignee?.name ?? '?'}
                  colorKey={conversation.assignee}
                  size="small"
                />
              </span>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
});
