import type { EphemeralPayloads, Message } from '../../../shared/schemas/index.ts';
import { api } from '../api/client.ts';
import { events } from '../api/events.ts';
import { useAgents } from './agents.ts';
import { conversationTitle, knownConversation, useInbox } from './inbox.ts';
import { useRoute } from './route.ts';
import { useThread } from './thread.ts';
import { useToasts } from './toasts.ts';

/**
 * Desktop touches for arriving messages and for the team's notifications (assigned to you,
 * mentioned in a note): a native notification through the shell while its window is in the
 * background (an in-page notice in a browser), the unread count in the title and on the dock
 * badge, and opening a conversation from a notification click.
 */
const BASE_TITLE = 'Parley';
const PREVIEW_CHARS = 140;
const TOAST_PREVIEW_CHARS = 60;

/** Brings the inbox up on one conversation (a notification or a notice was clicked). */
export function openConversation(conversationId: string): void {
  if (useRoute.getState().route !== 'inbox') useRoute.getState().navigate('inbox');
  useThread.getState().open(conversationId);
}

const preview = (text: string, chars = PREVIEW_CHARS): string =>
  text.length > chars ? `${text.slice(0, chars - 1).trimEnd()}…` : text;

function announce(message: Message): void {
  if (message.direction !== 'inbound') return;
  const conversation = knownConversation(message.conversationId);
  const name = conversation ? conversationTitle(conversation) : message.phone;
  const focused = document.hasFocus();
  const bridge = window.parley;
  if (!focused && bridge?.notify) {
    bridge.notify({
      title: name,
      body: preview(message.text),
      conversationId: message.conversationId,
    });
    return;
  }
  const watching =
    focused &&
    useRoute.getState().route === 'inbox' &&
    useThread.getState().conversationId === message.conversationId;
  if (watching) return;
  useToasts
    .getState()
    .push('info', `New message from ${name}: “${preview(message.text, TOAST_PREVIEW_CHARS)}”`, {
      label: 'Open',
      onSelect: () => openConversation(message.conversationId),
      key: message.conversationId,
    });
}

type TeamNotification = EphemeralPayloads['notification'];

/** "Ana assigned you Noor Haddad", "Ana mentioned you in Noor Haddad", in words for a person. */
function notificationText(n: TeamNotification, by: string | null, contact: string): string {
  if (n.kind === 'assigned')
    return by ? `${by} assigned you ${contact}` : `${contact} was assigned to you`;
  return by ? `${by} mentioned you in ${contact}` : `You were mentioned in ${contact}`;
}

/** The conversation's name for a notice: known already, else read (a conversation off the list). */
async function conversationName(conversationId: string): Promise<string> {
  const known = knownConversation(conversationId);
  if (known) return conversationTitle(known);
  try {
    return conversationTitle(await api.conversations.get(conversationId));
  } catch {
    return 'a conversation';
  }
}

/**
 * Work handed to this member, or a note naming them (README "Working together"): a desktop
 * notification while the app's window is in the background, a notice in the page otherwise;
 * either opens the conversation.
 */
async function announceNotification(n: TeamNotification): Promise<void> {
  const by = n.by ? (useAgents.getState().agents.find((a) => a.id === n.by)?.name ?? null) : null;
  const text = notificationText(
    n,
    n.by ? (by ?? 'A teammate') : null,
    await conversationName(n.conversationId),
  );
  const bridge = window.parley;
  if (!document.hasFocus() && bridge?.notify) {
    bridge.notify({
      title: n.kind === 'assigned' ? 'Assigned to you' : 'You were mentioned',
      body: text,
      conversationId: n.conversationId,
    });
    return;
  }
  useToasts.getState().push('info', text, {
    label: 'Open',
    onSelect: () => openConversation(n.conversationId),
    key: n.conversationId,
  });
}

/** Shows an unread total in the title and on the dock badge (the badge only when it changed). */
function unreadShower(): (total: number) => void {
  let lastBadge = -1;
  return (total) => {
    document.title = total > 0 ? `(${total}) ${BASE_TITLE}` : BASE_TITLE;
    if (total === lastBadge) return;
    lastBadge = total;
    window.parley?.setUnreadCount?.(total);
  };
}

/** Starts the alerts (once, from the app shell); returns the stop. */
export function startInboxAlerts(): () => void {
  const showUnread = unreadShower();
  const stops = [
    events.subscribe('message.received', (event) => {
      const message = event.data.message as Message | undefined;
      if (message?.conversationId) announce(message);
    }),
    events.subscribeEphemeral('notification', (event) => void announceNotification(event.data)),
    useInbox.subscribe((s, previous) => {
      if (s.unreadTotal !== previous.unreadTotal) showUnread(s.unreadTotal);
    }),
    window.parley?.onOpenConversation?.(openConversation) ?? (() => {}),
  ];
  showUnread(useInbox.getState().unreadTotal);
  return () => {
    for (const stop of stops) stop();
  };
}
