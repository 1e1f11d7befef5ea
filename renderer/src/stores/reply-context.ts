/**
 * The message the agent is answering in the open thread (a quote): set by a bubble's "Reply"
 * action, shown above the composer, sent as `replyToMessageId` with the next text, attachment or
 * list, and cleared when that is sent, when it is dismissed, or when another conversation opens.
 * One quote for both threads that offer Reply: the inbox's (by conversation) and the contacts
 * drawer's (by contact; closing the drawer drops its quote).
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

/** The quote when it is one of this contact's messages (the contacts drawer's composer). */
export const useContactQuote = (contactId: string): Message | null =>
  useReplyContext((s) => (s.quoted?.contactId === contactId ? s.quoted : null));
