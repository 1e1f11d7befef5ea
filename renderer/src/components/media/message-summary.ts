/**
 * A message told in one line: what the inbox list previews and what a quote shows above a reply.
 * A photo, voice note or document has no text of its own to show (its caption, when it has one,
 * is), so it is named by what it is.
 */
import type { Message } from '../../../../shared/schemas/index.ts';
import { mediaDurationMs, playLength } from './play-length.ts';

const MEDIA_LABEL = {
  image: { icon: '📷', name: 'Photo' },
  video: { icon: '🎥', name: 'Video' },
  sticker: { icon: '🖼️', name: 'Sticker' },
  audio: { icon: '🎵', name: 'Audio' },
  document: { icon: '📄', name: 'Document' },
} as const;

/** "Photo", "Voice note", "Video", …: what a message's media is, in words. */
export function mediaKind(message: Pick<Message, 'media'>): string | null {
  const media = message.media;
  if (!media) return null;
  if (media.type === 'audio' && media.voice) return 'Voice note';
  return MEDIA_LABEL[media.type].name;
}

const firstLine = (text: string): string => text.split('\n', 1)[0]!.trim();

/** The names of shared contact cards, or "Contact". */
function contactNames(message: Message): string {
  const names = (message.contacts ?? [])
    .map((card) => card.name?.trim())
    .filter((name): name is string => Boolean(name));
  return names.length > 0 ? names.join(', ') : 'Contact';
}

/**
 * One line for a message: its text, or what it carries ("📷 Photo", "🎤 Voice note",
 * "📄 invoice-17.pdf", "📍 Location", "👤 Ana Lima"). A caption stands in for the kind's name.
 */
export function messageSummary(message: Message): string {
  const caption = firstLine(message.media?.caption ?? message.text);
  switch (message.type) {
    case 'media': {
      const media = message.media;
      if (!media) return caption || 'Attachment';
      // A voice note, audio or video says how long it plays once the core has measured it.
      const ms = mediaDurationMs(media);
      const length = (named: boolean) =>
        ms === null ? '' : `${named ? ' ·' : ''} ${playLength(ms)}`;
      if (media.type === 'audio') {
        const name = media.fileName?.trim();
        return media.voice
          ? `🎤 Voice note${length(false)}`
          : `🎵 ${name || 'Audio'}${length(Boolean(name))}`;
      }
      const label = MEDIA_LABEL[media.type];
      if (media.type === 'document') {
        return `${label.icon} ${media.fileName?.trim() || caption || label.name}`;
      }
      if (media.type === 'sticker') return `${label.icon} ${label.name}`;
      if (media.type === 'video')
        return `${label.icon} ${caption || label.name}${length(Boolean(caption))}`;
      return `${label.icon} ${caption || label.name}`;
    }
    case 'location':
      return `📍 ${message.location?.name?.trim() || 'Location'}`;
    case 'contacts':
      return `👤 ${contactNames(message)}`;
    case 'reaction':
      return message.text ? `Reacted ${message.text}` : 'Took a reaction back';
    default:
      break;
  }
  if (message.listReply) return `Picked: ${message.text}`;
  if (message.list) return `List · ${message.text}`;
  if (message.type === 'template' && message.templateName && !message.text) {
    return message.templateName;
  }
  return message.text;
}

/** A quote's line: the first line of what the quoted message says. */
export const quoteSummary = (message: Message): string => firstLine(messageSummary(message));
