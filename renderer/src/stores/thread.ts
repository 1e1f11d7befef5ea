import { create } from 'zustand';
import type { Conversation, Message } from '../../../shared/schemas/index.ts';
import {
  api,
  errorMessage,
  scopeGeneration,
  type PatchConversation,
  type ReplyBody,
} from '../api/client.ts';
import { events } from '../api/events.ts';
import { knownConversation, useInbox } from './inbox.ts';
import { mergeMessages } from './messages.ts';
import { useRoute } from './route.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';
import { notifyError } from './toasts.ts';

/** The conversation open in the inbox: its header state and its messages, oldest first. */
interface ThreadState {
  conversationId: string | null;
  conversation: Conversation | null;
  messages: Message[];
  nextCursor: string | null;
  status: LoadStatus;
  loadingOlder: boolean;
  error: string | null;
  open: (id: string) => void;
  close: () => void;
  reload: () => Promise<void>;
  loadOlder: () => Promise<void>;
  reply: (body: ReplyBody) => Promise<Message>;
  patch: (body: PatchConversation) => Promise<Conversation>;
  /** Marks the open conversation read if it has unread messages. */
  markRead: () => void;
  apply: (conversation: Conversation) => void;
  applyMessage: (message: Message) => void;
  reset: () => void;
}

export const THREAD_PAGE_SIZE = 30;
const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

type ThreadData = Pick<
  ThreadState,
  | 'conversationId'
  | 'conversation'
  | 'messages'
  | 'nextCursor'
  | 'status'
  | 'loadingOlder'
  | 'error'
>;
const emptyThread = (): ThreadData => ({
  conversationId: null,
  conversation: null,
  messages: [],
  nextCursor: null,
  status: 'idle',
  loadingOlder: false,
  error: null,
});

const isNewer = (next: Conversation, current: Conversation | null): boolean =>
  !current || !(Date.parse(next.updatedAt) < Date.parse(current.updatedAt));

/** Whether the agent is looking at the inbox right now (so arriving messages count as read). */
const isWatching = (): boolean =>
  document.visibilityState === 'visible' &&
  document.hasFocus() &&
  useRoute.getState().route === 'inbox';

export const useThread = create<ThreadState>()((set, get) => {
  // Bumped whenever another conversation opens, so answers for the previous one are dropped.
  let threadSeq = 0;
  let marking: string | null = null;
  const isCurrent = (seq: number, generation: number): boolean =>
    seq === threadSeq && generation === scopeGeneration();

  return {
    ...emptyThread(),

    open: (id) => {
      if (id === get().conversationId && get().status !== 'error') return;
      threadSeq += 1;
      set({ ...emptyThread(), conversationId: id, conversation: knownConversation(id) ?? null });
      void get().reload();
    },

    close: () => {
      threadSeq += 1;
      set(emptyThread());
    },

    reload: async () => {
      const id = get().conversationId;
      if (!id) return;
      const seq = threadSeq;
      const generation = scopeGeneration();
      if (get().status !== 'ready') set({ status: 'loading', error: null });
      try {
        const [detail, page] = await Promise.all([
          api.conversations.get(id),
          api.conversations.messages(id, { limit: THREAD_PAGE_SIZE }),
        ]);
        if (!isCurrent(seq, generation)) return;
        const { messages: _latest, ...conversation } = detail;
        const first = get().status !== 'ready';
        set((s) => ({
          conversation: isNewer(conversation, s.conversation) ? conversation : s.conversation,
          messages: mergeMessages(s.messages, page.data),
          nextCursor: first ? page.nextCursor : s.nextCursor,
          status: 'ready',
        }));
        useInbox.getState().apply(conversation);
        if (isWatching()) get().markRead();
      } catch (e) {
        if (isCurrent(seq, generation)) set({ status: 'error', error: errorMessage(e) });
      }
    },

    loadOlder: async () => {
      const { conversationId, nextCursor, loadingOlder } = get();
      if (!conversationId || !nextCursor || loadingOlder) return;
      const seq = threadSeq;
      const generation = scopeGeneration();
      set({ loadingOlder: true });
      try {
        const page = await api.conversations.messages(conversationId, {
          limit: THREAD_PAGE_SIZE,
          cursor: nextCursor,
        });
        if (!isCurrent(seq, generation)) return;
        set((s) => ({
          messages: mergeMessages(s.messages, page.data),
          nextCursor: page.nextCursor,
        }));
      } finally {
        if (isCurrent(seq, generation)) set({ loadingOlder: false });
      }
    },

    reply: async (body) => {
      const id = get().conversationId;
      if (!id) throw new Error('No conversation is open.');
      const message = await api.conversations.reply(id, body);
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

    reset: () => {
      threadSeq += 1;
      set(emptyThread());
    },
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

events.subscribe(
  [
    'message.received',
    'message.sent',
    'message.delivered',
    'message.read',
    'message.failed',
    'message.note',
  ],
  (event) => {
    const message = event.data.message as Message | undefined;
    if (message?.id) useThread.getState().applyMessage(message);
  },
);

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
