/**
 * What an agent does to a message on screen (react to it, fetch its file again), shown at once
 * in whichever thread holds it: the inbox's and the contacts drawer's. The events that follow
 * say the same again and merge as no change.
 */
import type { Message } from '../../../shared/schemas/index.ts';
import type { MessageMedia } from '../../../shared/schemas/media.ts';
import { api } from '../api/client.ts';
import { useMessages } from './messages.ts';
import { useThread } from './thread.ts';

/** Replaces a message in the threads holding it by `update(their copy)`, unless that is null. */
function updateEverywhere(id: string, update: (current: Message) => Message | null): void {
  const next = (messages: readonly Message[]) => {
    const current = messages.find((m) => m.id === id);
    return current ? update(current) : null;
  };
  const inThread = next(useThread.getState().messages);
  if (inThread) useThread.getState().applyMessage(inThread);
  const inDrawer = next(useMessages.getState().messages);
  if (inDrawer) useMessages.getState().apply([inDrawer]);
}

/** The business reacts to a customer's message; `''` takes its reaction back. */
export async function reactTo(message: Message, emoji: string): Promise<void> {
  const fresh = await api.conversations.react(message.conversationId, message.id, emoji);
  updateEverywhere(fresh.id, () => fresh);
}

/** Fetches a failed file again: the message shows it as being fetched until the job settles. */
export async function retryMedia(message: Message & { media: MessageMedia }): Promise<void> {
  const media = await api.media.retry(message.media.id);
  // Unless the job has settled already (its event came first).
  updateEverywhere(message.id, (current) =>
    current.media?.status === 'failed'
      ? { ...current, media: { ...current.media, status: media.status, error: null } }
      : null,
  );
}
