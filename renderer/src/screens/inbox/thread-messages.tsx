import { useCallback, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Agent, Message } from '../../../../shared/schemas/index.ts';
import { isNote } from '../../components/message-bubble.tsx';
import { MessageList } from '../../components/message-list.tsx';
import { useNow } from '../../components/use-now.ts';
import { REACT_WINDOW_CLOSED, type ServiceWindow } from '../../components/media/reactions.tsx';
import { useAgents } from '../../stores/agents.ts';
import { conversationTitle } from '../../stores/inbox.ts';
import { selectMessageList } from '../../stores/message-list.ts';
import { useReplyContext } from '../../stores/reply-context.ts';
import { isWindowOpen, useThread } from '../../stores/thread.ts';
import { useThreadSearch } from '../../stores/thread-search.ts';
import { REPLY_INPUT_ID } from './reply-composer.tsx';

/** Who sent an outbound message or wrote a note, for the label above it; null for inbound. */
export function senderOf(message: Message, agents: ReadonlyMap<string, Agent>): string | null {
  if (message.direction === 'inbound' && !isNote(message)) return null;
  if (message.sentBy === 'bot' && message.campaignId) return 'Campaign';
  // Only campaigns and workflows send as the bot; the message does not say which workflow.
  if (message.sentBy === 'bot') return 'Workflow';
  if (message.sentBy === 'api') return 'API';
  if (message.agentId) return agents.get(message.agentId)?.name ?? 'Agent';
  return 'Agent';
}

/** "Reply" on a bubble: the composer shows the quote, and the agent types below it. */
function quote(message: Message): void {
  useReplyContext.getState().quote(message);
  document.getElementById(REPLY_INPUT_ID)?.focus();
}

/** The open conversation, oldest at the top; older pages load as it scrolls up. */
export function ThreadMessages() {
  const list = useThread(useShallow(selectMessageList));
  const agentList = useAgents((s) => s.agents);
  const agents = useMemo(() => new Map(agentList.map((a) => [a.id, a])), [agentList]);
  const sender = useCallback((message: Message) => senderOf(message, agents), [agents]);
  const now = useNow(60_000);
  const conversationId = useThread((s) => s.conversationId);
  const conversation = useThread((s) => s.conversation);
  const windowOpen = conversation ? isWindowOpen(conversation, now) : false;
  const serviceWindow = useMemo<ServiceWindow>(
    () => ({ open: windowOpen, reason: REACT_WINDOW_CLOSED }),
    [windowOpen],
  );
  const search = useThreadSearch(
    useShallow((s) => ({
      query: s.conversationId === conversationId ? s.query : '',
      current: s.conversationId === conversationId ? s.current : null,
    })),
  );

  return (
    <MessageList
      list={list}
      className="inbox-thread-scroll wa-wallpaper"
      testId="thread-messages"
      emptyText="No messages yet."
      endless
      senderOf={sender}
      now={now}
      search={search}
      contactName={conversation ? conversationTitle(conversation) : undefined}
      serviceWindow={conversation ? serviceWindow : undefined}
      onReply={quote}
    />
  );
}
