import { create } from 'zustand';
import type { Contact, Message, MessageStatus } from '../../../shared/schemas/index.ts';
import { api, errorMessage, scopeGeneration } from '../api/client.ts';
import { events } from '../api/events.ts';
import { useApprovedTemplates } from './approved-templates.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

/** The thread of the contact open in the messages drawer, kept live by message.* events. */
interface MessagesState {
  contact: Contact | null;
  /** Oldest first, as a chat reads. */
  messages: Message[];
  nextCursor: string | null;
  status: LoadStatus;
  loadingOlder: boolean;
  error: string | null;
  open: (contact: Contact) => void;
  close: () => void;
  refresh: () => Promise<void>;
  loadOlder: () => Promise<void>;
  sendTemplate: (templateName: string, variables: Record<string, string>) => Promise<void>;
  sendText: (text: string) => Promise<void>;
  simulateInbound: (text: string) => Promise<void>;
  apply: (messages: Message[]) => void;
  reset: () => void;
}

export const MESSAGES_PAGE_SIZE = 30;
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Statuses only move forward (design.md §4): a late or replayed event never moves one back. */
const RANK: Record<MessageStatus, number> = {
  received: 0,
  note: 0,
  accepted: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  failed: 4,
};

const byTime = (a: Message, b: Message): number =>
  Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Merges fresher copies and new messages into a thread kept oldest first. */
export function mergeMessages(current: Message[], incoming: Message[]): Message[] {
  const byId = new Map(current.map((m) => [m.id, m]));
  let changed = false;
  for (const next of incoming) {
    const existing = byId.get(next.id);
    if (existing && RANK[next.status] < RANK[existing.status]) continue;
    if (existing === next) continue;
    byId.set(next.id, next);
    changed = true;
  }
  return changed ? [...byId.values()].sort(byTime) : current;
}

const laterOf = (a: string | null, b: string | null): string | null =>
  !a ? b : !b ? a : Date.parse(a) >= Date.parse(b) ? a : b;

type ThreadData = Pick<
  MessagesState,
  'contact' | 'messages' | 'nextCursor' | 'status' | 'loadingOlder' | 'error'
>;
const emptyThread = (): ThreadData => ({
  contact: null,
  messages: [],
  nextCursor: null,
  status: 'idle',
  loadingOlder: false,
  error: null,
});

export const useMessages = create<MessagesState>()((set, get) => {
  // Bumped whenever another contact is opened, so answers for the previous one are dropped.
  let threadSeq = 0;
  const isCurrent = (seq: number, generation: number): boolean =>
    seq === threadSeq && generation === scopeGeneration();

  return {
    ...emptyThread(),

    open: (contact) => {
      threadSeq += 1;
      set({ ...emptyThread(), contact });
      void get().refresh();
      useApprovedTemplates.getState().ensureLoaded();
    },

    close: () => {
      threadSeq += 1;
      set(emptyThread());
    },

    /** Loads (or reloads) the newest page and merges it with what is shown. */
    refresh: async () => {
      const contact = get().contact;
      if (!contact) return;
      const seq = threadSeq;
      const generation = scopeGeneration();
      if (get().status !== 'ready') set({ status: 'loading', error: null });
      try {
        const page = await api.messages.list({ contactId: contact.id, limit: MESSAGES_PAGE_SIZE });
        if (!isCurrent(seq, generation)) return;
        const first = get().status !== 'ready';
        set((s) => ({
          messages: mergeMessages(s.messages, page.data),
          // Only the first load decides where "load older" continues from.
          nextCursor: first ? page.nextCursor : s.nextCursor,
          status: 'ready',
        }));
      } catch (e) {
        if (isCurrent(seq, generation)) {
          if (get().status === 'ready') throw e;
          set({ status: 'error', error: errorMessage(e) });
        }
      }
    },

    loadOlder: async () => {
      const { contact, nextCursor, loadingOlder } = get();
      if (!contact || !nextCursor || loadingOlder) return;
      const seq = threadSeq;
      const generation = scopeGeneration();
      set({ loadingOlder: true });
      try {
        const page = await api.messages.list({
          contactId: contact.id,
          limit: MESSAGES_PAGE_SIZE,
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

    sendTemplate: async (templateName, variables) => {
      const contact = get().contact;
      if (!contact) return;
      const hasVariables = Object.keys(variables).length > 0;
      await api.messages.sendTemplate({
        phone: contact.phone,
        templateName,
        ...(hasVariables ? { variables } : {}),
      });
      // The send answers the channel id only; the message itself comes with the next page.
      await get().refresh();
    },

    sendText: async (text) => {
      const contact = get().contact;
      if (!contact) return;
      await api.messages.sendText({ phone: contact.phone, message: text });
      await get().refresh();
    },

    simulateInbound: async (text) => {
      const contact = get().contact;
      if (!contact) return;
      await api.simulator.inbound({ phone: contact.phone, message: text });
      const seq = threadSeq;
      const generation = scopeGeneration();
      const [fresh] = await Promise.all([
        api.contacts.get(contact.id).catch(() => null),
        get().refresh(),
      ]);
      if (fresh && isCurrent(seq, generation)) {
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

    reset: () => {
      threadSeq += 1;
      set(emptyThread());
    },
  };
});

registerScopedStore(() => useMessages.getState().reset());

events.subscribe(
  ['message.received', 'message.sent', 'message.delivered', 'message.read', 'message.failed'],
  (event) => {
    const message = event.data.message as Message | undefined;
    if (message?.id) useMessages.getState().apply([message]);
  },
);

/** Whether free text may be sent: the contact wrote within the last 24 hours. */
export function windowClosesAt(contact: Contact | null): number | null {
  if (!contact?.lastInboundAt) return null;
  const closes = Date.parse(contact.lastInboundAt) + SERVICE_WINDOW_MS;
  return Number.isNaN(closes) ? null : closes;
}
