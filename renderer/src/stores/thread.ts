import { create } from 'zustand';
import type { Conversation, Message } from '../../../shared/schemas/index.ts';
import { api, type PatchConversation, type ReplyBody } from '../api/client.ts';
import { events } from '../api/events.ts';
import { onCampaignActivity } from './campaign-activity.ts';
import { holdInView, knownConversation, useInbox } from './inbox.ts';
import {
  createMessageList,
  emptyMessageList,
  MESSAGE_EVENTS,
  mergeMessages,
  SERVICE_WINDOW_MS,
  type MessageListData,
} from './message-list.ts';
import { quoteFor, useReplyContext } from './reply-context.ts';
import { useRoute } from './route.ts';
import { registerScopedStore } from './scope.ts';
import { notifyError } from './toasts.ts';

/** The conversation open in the inbox: its header state and its messages, oldest first. */
interface ThreadState extends MessageListData {
  conversationId: string | null;
  conversation: Conversation | null;
  open: (id: string) => void;
  close: () => void;
  reload: () => Promise<void>;
  loadOlder: () => Promise<void>;
  /**
   * Sends a reply or note. A text, attachment or list reply carries the quote shown above the
   * composer (`replyToMessageId`), which is cleared once sent; a template or a note never does.
   */
  reply: (body: ReplyBody) => Promise<Message>;
  patch: (body: PatchConversation) => Promise<Conversation>;
  /** Marks the open conversation read if it has unread messages. */
  markRead: () => void;
  apply: (conversation: Conversation) => void;
  applyMessage: (message: Message) => void;
  reset: () => void;
}

const emptyThread = (): Pick<
  ThreadState,
  'conversationId' | 'conversation' | keyof MessageListData
> => ({
  ...emptyMessageList(),
  conversationId: null,
  conversation: null,
});

/** A body the shown quote goes with: a text, attachment or list reply that quotes nothing else. */
const quotes = (body: ReplyBody): boolean =>
  !body.private && !('templateName' in body) && body.replyToMessageId === undefined;

const isNewer = (next: Conversation, current: Conversation | null): boolean =>
  !current || !(Date.parse(next.updatedAt) < Date.parse(current.updatedAt));

/** Whether the agent is looking at the inbox right now (so arriving messages count as read). */
const isWatching = (): boolean =>
  document.visibilityState === 'visible' &&
  document.hasFocus() &&
  useRoute.getState().route === 'inbox';

export const useThread = create<ThreadState>()((set, get) => {
  const list = createMessageList({
    set,
    get,
    empty: emptyThread,
    openId: (s) => s.conversationId,
    fetchPage: (id, page) => api.conversations.messages(id, page),
  });
  let marking: string | null = null;

  return {
    ...emptyThread(),

    open: (id) => {
      if (id === get().conversationId && get().status !== 'error') return;
      holdInView(id);
      // A quote belongs to its conversation: another one opening drops it.
      if (!quoteFor(id)) useReplyContext.getState().clear();
      list.open({ conversationId: id, conversation: knownConversation(id) ?? null });
      void get().reload();
    },

    close: list.clear,

    reload: () =>
      list.loadNewest({
        along: async (id): Promise<Conversation> => {
          const { messages: _latest, ...conversation } = await api.conversations.get(id);
          return conversation;
        },
        show: (conversation, s) => ({
          conversation: isNewer(conversation, s.conversation) ? conversation : s.conversation,
        }),
        then: (conversation) => {
          useInbox.getState().apply(conversation);
          if (isWatching()) get().markRead();
        },
      }),

    loadOlder: list.loadOlder,

    reply: async (body) => {
      const id = get().conversationId;
      if (!id) throw new Error('No conversation is open.');
      const quote = quotes(body) ? quoteFor(id) : null;
      const message = await api.conversations.reply(
        id,
        quote ? { ...body, replyToMessageId: quote.id } : body,
      );
      if (quote && useReplyContext.getState().quoted?.id === quote.id) {
        useReplyContext.getState().clear();
      }
      get().applyMessage(message);
      useInbox.getState().applyMessage(message);
      return message;
    },

    patch: async (body) => {
      const id = get().conversationId;
      if (!id) throw new Error('No conversation is open.');
      const conversation = await api.conversations.patch(id, body);
      get().apply(conversation);
      useInbox.getState().apply(conversation);
      return conversation;
    },

    markRead: () => {
      const { conversation, status } = get();
      if (!conversation || status !== 'ready' || conversation.unreadCount === 0) return;
      if (marking === conversation.id) return;
      const id = conversation.id;
      marking = id;
      api.conversations
        .patch(id, { read: true })
        .then((fresh) => {
          if (get().conversationId === id) get().apply(fresh);
          useInbox.getState().apply(fresh);
        })
        .catch(() => {
          // Stays unread; the next look at it tries again.
        })
        .finally(() => {
          if (marking === id) marking = null;
        });
    },

    apply: (conversation) => {
      if (conversation.id !== get().conversationId) return;
      set((s) => (isNewer(conversation, s.conversation) ? { conversation } : s));
    },

    applyMessage: (message) => {
      // While the first page loads, arrivals are kept too: the page merges in around them.
      const { conversationId, status } = get();
      if (message.conversationId !== conversationId || status === 'error') return;
      set((s) => {
        const messages = mergeMessages(s.messages, [message]);
        return messages === s.messages ? s : { messages };
      });
    },

    reset: list.clear,
  };
});

registerScopedStore(() => useThread.getState().reset());

events.subscribe(['conversation.created', 'conversation.updated'], (event) => {
  const conversation = event.data.conversation as Conversation | undefined;
  if (!conversation?.id) return;
  const thread = useThread.getState();
  thread.apply(conversation);
  // A message arrived in the conversation on screen: it is read as it lands.
  if (conversation.id === thread.conversationId && conversation.unreadCount > 0 && isWatching()) {
    thread.markRead();
  }
});

events.subscribe(MESSAGE_EVENTS, (event) => {
  const message = event.data.message as Message | undefined;
  if (message?.id) useThread.getState().applyMessage(message);
});

// A campaign may have written to the conversation on screen (no event each on this stream).
onCampaignActivity(() => {
  const { conversationId: id, status } = useThread.getState();
  if (!id || status !== 'ready') return;
  // One read: the conversation comes with its newest messages, all a campaign's send can add.
  api.conversations.get(id).then(
    ({ messages, ...conversation }) => {
      const thread = useThread.getState();
      if (thread.conversationId !== id) return;
      thread.apply(conversation);
      useInbox.getState().apply(conversation);
      useThread.setState((s) => {
        const merged = mergeMessages(s.messages, messages);
        return merged === s.messages ? s : { messages: merged };
      });
    },
    () => {
      // Still showing what it had; the next campaign move or reconnect reads again.
    },
  );
});

// Back at the desk: whatever arrived in the open conversation meanwhile is now seen.
window.addEventListener('focus', () => {
  if (isWatching()) useThread.getState().markRead();
});

/** Changes the open conversation (header controls, shortcuts); a refusal shows the API's message. */
export function changeConversation(body: PatchConversation): void {
  useThread.getState().patch(body).catch(notifyError);
}

/** Whether free text may be sent now: the API's answer, closed early once 24 h have passed. */
export function isWindowOpen(conversation: Conversation, now: number): boolean {
  if (!conversation.windowOpen) return false;
  if (!conversation.lastInboundAt) return true;
  return Date.parse(conversation.lastInboundAt) + SERVICE_WINDOW_MS > now;
}

/** When the service window closes (ms), or null when it is closed. */
export function windowClosesAt(conversation: Conversation, now: number): number | null {
  if (!isWindowOpen(conversation, now) || !conversation.lastInboundAt) return null;
  return Date.parse(conversation.lastInboundAt) + SERVICE_WINDOW_MS;
}
