import { create } from 'zustand';
import type { Contact, Message } from '../../../shared/schemas/index.ts';
import { api } from '../api/client.ts';
import { events } from '../api/events.ts';
import { useApprovedTemplates } from './approved-templates.ts';
import {
  createMessageList,
  emptyMessageList,
  MESSAGE_STATUS_EVENTS,
  mergeMessages,
  SERVICE_WINDOW_MS,
  type MessageListData,
} from './message-list.ts';
import { onCampaignActivity } from './campaign-activity.ts';
import { useReplyContext } from './reply-context.ts';
import { registerScopedStore } from './scope.ts';

/** The thread of the contact open in the messages drawer, kept live by message.* events. */
interface MessagesState extends MessageListData {
  contact: Contact | null;
  open: (contact: Contact) => void;
  close: () => void;
  refresh: () => Promise<void>;
  loadOlder: () => Promise<void>;
  sendTemplate: (templateName: string, variables: Record<string, string>) => Promise<void>;
  /** Free text; quoting one of the contact's messages, it goes as a reply in that conversation. */
  sendText: (text: string, quoted?: Message | null) => Promise<void>;
  simulateInbound: (text: string) => Promise<void>;
  apply: (messages: Message[]) => void;
  reset: () => void;
}

const laterOf = (a: string | null, b: string | null): string | null =>
  !a ? b : !b ? a : Date.parse(a) >= Date.parse(b) ? a : b;

const emptyThread = (): Pick<MessagesState, 'contact' | keyof MessageListData> => ({
  ...emptyMessageList(),
  contact: null,
});

/**
 * Sends from the contacts drawer go by phone; a customer known only by their WhatsApp user id
 * is answered from their conversation in the inbox (README "Connecting WhatsApp").
 */
function phoneOf(contact: Pick<Contact, 'phone' | 'waUserId'>): string {
  if (contact.phone) return contact.phone;
  throw new Error(
    'This customer shares no phone number with you (WhatsApp user id only): reply from their conversation in the inbox.',
  );
}

export const useMessages = create<MessagesState>()((set, get) => {
  const list = createMessageList({
    set,
    get,
    empty: emptyThread,
    openId: (s) => s.contact?.id ?? null,
    fetchPage: (contactId, page) => api.messages.list({ contactId, ...page }),
  });

  return {
    ...emptyThread(),

    open: (contact) => {
      list.open({ contact });
      void get().refresh();
      useApprovedTemplates.getState().ensureLoaded();
    },

    close: list.clear,

    /**
     * Loads (or reloads) the newest page and merges it with what is shown. Once messages show,
     * a failed refresh (e.g. after a send) goes to the caller instead of replacing them.
     */
    refresh: () => list.loadNewest({ keepShown: true }),

    loadOlder: list.loadOlder,

    sendTemplate: async (templateName, variables) => {
      const contact = get().contact;
      if (!contact) return;
      const hasVariables = Object.keys(variables).length > 0;
      await api.messages.sendTemplate({
        phone: phoneOf(contact),
        templateName,
        ...(hasVariables ? { variables } : {}),
      });
      // The send answers the channel id only; the message itself comes with the next page.
      await get().refresh();
    },

    sendText: async (text, quoted) => {
      const contact = get().contact;
      if (!contact) return;
      if (quoted) {
        // `POST /api/send-text` takes a phone and text only (spec 2.3): a quote is a reply in the
        // quoted message's conversation, as the inbox sends it (and it works without a phone).
        await api.conversations.reply(quoted.conversationId, {
          text,
          replyToMessageId: quoted.id,
        });
        if (useReplyContext.getState().quoted?.id === quoted.id) useReplyContext.getState().clear();
      } else {
        await api.messages.sendText({ phone: phoneOf(contact), message: text });
      }
      await get().refresh();
    },

    simulateInbound: async (text) => {
      const contact = get().contact;
      if (!contact) return;
      await api.simulator.inbound({ phone: phoneOf(contact), message: text });
      const isCurrent = list.guard.start();
      const [fresh] = await Promise.all([
        api.contacts.get(contact.id).catch(() => null),
        get().refresh(),
      ]);
      if (fresh && isCurrent()) {
        set((s) =>
          s.contact
            ? {
                contact: {
                  ...fresh,
                  lastInboundAt: laterOf(fresh.lastInboundAt, s.contact.lastInboundAt),
                },
              }
            : s,
        );
      }
    },

    apply: (incoming) => {
      const contact = get().contact;
      if (!contact || get().status !== 'ready') return;
      const mine = incoming.filter((m) => m.contactId === contact.id);
      if (mine.length === 0) return;
      const lastInbound = mine
        .filter((m) => m.direction === 'inbound')
        .reduce<string | null>((latest, m) => laterOf(latest, m.createdAt), null);
      set((s) => ({
        messages: mergeMessages(s.messages, mine),
        contact:
          s.contact && lastInbound
            ? { ...s.contact, lastInboundAt: laterOf(s.contact.lastInboundAt, lastInbound) }
            : s.contact,
      }));
    },

    reset: list.clear,
  };
});

registerScopedStore(() => useMessages.getState().reset());

events.subscribe(MESSAGE_STATUS_EVENTS, (event) => {
  const message = event.data.message as Message | undefined;
  if (message?.id) useMessages.getState().apply([message]);
});

// A campaign may have written to the contact on screen (no event each on this stream).
onCampaignActivity(() => {
  const messages = useMessages.getState();
  if (messages.contact && messages.status === 'ready') messages.refresh().catch(() => {});
});

/** Whether free text may be sent: the contact wrote within the last 24 hours. */
export function windowClosesAt(contact: Contact | null): number | null {
  if (!contact?.lastInboundAt) return null;
  const closes = Date.parse(contact.lastInboundAt) + SERVICE_WINDOW_MS;
  return Number.isNaN(closes) ? null : closes;
}
