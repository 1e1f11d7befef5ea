/**
 * How long a voice note, audio file or video plays: `media.durationMs` when the core knows it
 * (null while the file is fetched, for other types, or when the file does not say), said as a
 * player says it ("0:02", "12:05", "1:02:03") and in words for screen readers ("2 seconds").
 */
import type { Message } from '../../../../shared/schemas/index.ts';

/** The media's length in milliseconds, or null when the core did not say (or could not tell). */
export function mediaDurationMs(media: Message['media']): number | null {
  const value = media?.durationMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** Whole seconds, a recording shorter than one counting as one (never "0:00" for a sound). */
const wholeSeconds = (ms: number): number => (ms > 0 ? Math.max(1, Math.round(ms / 1000)) : 0);

const twoDigits = (n: number): string => String(n).padStart(2, '0');

/** "0:02", "3:15", "1:02:03": a length as a player shows it. */
export function playLength(ms: number): string {
  const total = wholeSeconds(ms);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0
    ? `${hours}:${twoDigits(minutes)}:${twoDigits(seconds)}`
    : `${minutes}:${twoDigits(seconds)}`;
}

const unit = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 seconds", "1 minute 5 seconds", "1 hour 2 minutes": a length in words. */
export function playLengthWords(ms: number): string {
  const total = wholeSeconds(ms);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const parts = [
    hours ? unit(hours, 'hour') : '',
    minutes ? unit(minutes, 'minute') : '',
    seconds || total === 0 ? unit(seconds, 'second') : '',
  ].filter(Boolean);
  return parts.join(' ');
}
