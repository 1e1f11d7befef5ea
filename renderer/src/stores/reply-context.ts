/**
 * The message the agent is answering in the open thread (a quote): set by a bubble's "Reply"
 * action, shown above the composer, sent as `replyToMessageId` with the next text, attachment or
 * list, and cleared when that is sent, when it is dismissed, or when another conversation opens.
 */
import { create } from 'zustand';
import type { Message } from '../../../shared/schemas/index.ts';
import { registerScopedStore } from './scope.ts';

interface ReplyContextState {
  /** The quoted message, in the conversation it belongs to. */
  quoted: Message | null;
  quote: (message: Message) => void;
  clear: () => void;
}

export const useReplyContext = create<ReplyContextState>()((set) => ({
  quoted: null,
  quote: (message) => set({ quoted: message }),
  clear: () => set({ quoted: null }),
}));

registerScopedStore(() => useReplyContext.getState().clear());

/** The quote for a conversation, or null when the quoted message is another conversation's. */
export const quoteFor = (conversationId: string | null): Message | null => {
  const { quoted } = useReplyContext.getState();
  return quoted && quoted.conversationId === conversationId ? quoted : null;
};
