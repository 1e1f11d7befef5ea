import { describe, expect, it } from 'vitest';
import { messageSchema, type Message } from '../../shared/schemas/index.ts';
import type { MessageMedia } from '../../shared/schemas/media.ts';
import { messageSummary } from '../../renderer/src/components/media/message-summary.ts';
import {
  mediaDurationMs,
  playLength,
  playLengthWords,
} from '../../renderer/src/components/media/play-length.ts';

// Every field null to begin with: these tests read only what a summary is made of.
const BLANK = Object.fromEntries(
  Object.keys(messageSchema.shape).map((field) => [field, null]),
) as unknown as Message;

/** A media message; `durationMs` as the core sends it (null: unknown). */
function withMedia(over: Partial<MessageMedia>): Message {
  const media: MessageMedia = {
    id: 'med_1',
    type: 'audio',
    mimeType: 'audio/ogg',
    size: 3498,
    sha256: null,
    caption: null,
    fileName: null,
    voice: true,
    durationMs: null,
    status: 'ready',
    error: null,
    ...over,
  };
  return { ...BLANK, id: 'msg_1', type: 'media', direction: 'inbound', text: '', media };
}

describe('how long a voice note, audio or video plays', () => {
  it('says a length as a player does, never 0:00 for a sound', () => {
    expect(playLength(2006)).toBe('0:02');
    expect(playLength(400)).toBe('0:01');
    expect(playLength(0)).toBe('0:00');
    expect(playLength(65_000)).toBe('1:05');
    expect(playLength(12 * 60_000 + 4_400)).toBe('12:04');
    expect(playLength(3_723_000)).toBe('1:02:03');
  });

  it('says it in words for screen readers', () => {
    expect(playLengthWords(2006)).toBe('2 seconds');
    expect(playLengthWords(1000)).toBe('1 second');
    expect(playLengthWords(65_000)).toBe('1 minute 5 seconds');
    expect(playLengthWords(120_000)).toBe('2 minutes');
    expect(playLengthWords(3_723_000)).toBe('1 hour 2 minutes 3 seconds');
  });

  it('reads durationMs: null or not a length is unknown', () => {
    expect(mediaDurationMs(withMedia({ durationMs: 2006 }).media)).toBe(2006);
    expect(mediaDurationMs(withMedia({ durationMs: null }).media)).toBeNull();
    expect(mediaDurationMs(withMedia({ durationMs: -5 }).media)).toBeNull();
    expect(mediaDurationMs(null)).toBeNull();
  });

  it('the inbox preview and quotes say it once known', () => {
    expect(messageSummary(withMedia({ durationMs: 2006 }))).toBe('🎤 Voice note 0:02');
    expect(messageSummary(withMedia({ durationMs: null }))).toBe('🎤 Voice note');
    expect(
      messageSummary(withMedia({ voice: false, fileName: 'song.mp3', durationMs: 192_000 })),
    ).toBe('🎵 song.mp3 · 3:12');
    expect(messageSummary(withMedia({ voice: false, durationMs: 5_000 }))).toBe('🎵 Audio 0:05');
    expect(
      messageSummary(
        withMedia({ type: 'video', mimeType: 'video/mp4', voice: false, durationMs: 14_000 }),
      ),
    ).toBe('🎥 Video 0:14');
    expect(
      messageSummary(
        withMedia({ type: 'video', voice: false, caption: 'The dent', durationMs: 14_000 }),
      ),
    ).toBe('🎥 The dent · 0:14');
    expect(messageSummary(withMedia({ type: 'image', voice: false, durationMs: null }))).toBe(
      '📷 Photo',
    );
  });
});
