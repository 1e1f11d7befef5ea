import { describe, expect, it } from 'vitest';
import { messageSchema, type Message } from '../../shared/schemas/index.ts';
import type { MessageMedia } from '../../shared/schemas/media.ts';
import { fileTypeLabel, formatFileSize } from '../../renderer/src/components/media/file-facts.ts';
import {
  messageSummary,
  quoteSummary,
} from '../../renderer/src/components/media/message-summary.ts';
import {
  createLinkCache,
  LINK_MARGIN_MS,
  LINK_RETRY_MS,
} from '../../renderer/src/stores/media-link-cache.ts';

// Every field null to begin with: these tests read only what a summary is made of.
const BLANK = Object.fromEntries(
  Object.keys(messageSchema.shape).map((field) => [field, null]),
) as unknown as Message;

function message(over: Partial<Message> = {}): Message {
  return { ...BLANK, id: 'msg_1', type: 'text', direction: 'inbound', text: '', ...over };
}

function media(over: Partial<MessageMedia>): Message {
  const m: MessageMedia = {
    id: 'med_1',
    type: 'image',
    mimeType: 'image/png',
    size: 2300,
    sha256: null,
    caption: null,
    fileName: null,
    voice: false,
    durationMs: null,
    status: 'ready',
    error: null,
    ...over,
  };
  return message({ type: 'media', media: m, text: m.caption ?? '' });
}

describe('a message in one line (inbox preview, quotes)', () => {
  it('names media by what they are, a caption standing in for the name', () => {
    expect(messageSummary(media({}))).toBe('📷 Photo');
    expect(messageSummary(media({ caption: 'The box\narrived broken' }))).toBe('📷 The box');
    expect(messageSummary(media({ type: 'audio', voice: true }))).toBe('🎤 Voice note');
    expect(messageSummary(media({ type: 'audio', fileName: 'song.mp3' }))).toBe('🎵 song.mp3');
    expect(messageSummary(media({ type: 'video' }))).toBe('🎥 Video');
    expect(messageSummary(media({ type: 'sticker' }))).toBe('🖼️ Sticker');
    expect(
      messageSummary(media({ type: 'document', fileName: 'invoice-17.pdf', caption: 'Here' })),
    ).toBe('📄 invoice-17.pdf');
    expect(messageSummary(media({ type: 'document' }))).toBe('📄 Document');
  });

  it('tells locations, contact cards and reactions', () => {
    expect(
      messageSummary(message({ type: 'location', location: { latitude: 1, longitude: 2 } })),
    ).toBe('📍 Location');
    expect(
      messageSummary(
        message({ type: 'location', location: { latitude: 1, longitude: 2, name: 'Depot' } }),
      ),
    ).toBe('📍 Depot');
    const card = { phones: [], emails: [], organization: null };
    expect(
      messageSummary(
        message({
          type: 'contacts',
          contacts: [
            { ...card, name: 'Ana' },
            { ...card, name: 'Bo' },
          ],
        }),
      ),
    ).toBe('👤 Ana, Bo');
    expect(messageSummary(message({ type: 'reaction', text: '👍' }))).toBe('Reacted 👍');
  });

  it('keeps text, lists and templates as the list showed them', () => {
    expect(messageSummary(message({ text: 'Hello\nthere' }))).toBe('Hello\nthere');
    expect(quoteSummary(message({ text: 'Hello\nthere' }))).toBe('Hello');
    expect(
      messageSummary(
        message({ text: 'Tuesday', listReply: { listId: 'l', rowId: 'r', title: 'Tuesday' } }),
      ),
    ).toBe('Picked: Tuesday');
    expect(
      messageSummary(message({ type: 'template', templateName: 'order_update', text: '' })),
    ).toBe('order_update');
  });
});

describe('the media link cache', () => {
  const later = (ms: number) => new Date(ms).toISOString();
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

  function setup(concurrency = 2) {
    let clock = 1_000_000;
    const asked: string[] = [];
    const answers = new Map<string, (v: { url: string; expiresAt: string }) => void>();
    const failures = new Map<string, (e: Error) => void>();
    const changed: string[] = [];
    const cache = createLinkCache({
      fetch: (id) => {
        asked.push(id);
        return new Promise((resolve, reject) => {
          answers.set(id, resolve);
          failures.set(id, reject);
        });
      },
      onChange: (id) => changed.push(id),
      now: () => clock,
      concurrency,
    });
    return {
      cache,
      asked,
      changed,
      answer: (id: string, ttl = 3_600_000) =>
        answers.get(id)!({ url: `/media/${id}/content?sig=x`, expiresAt: later(clock + ttl) }),
      fail: (id: string) => failures.get(id)!(new Error('offline')),
      tick: (ms: number) => (clock += ms),
    };
  }

  it('asks once per id however often it is asked, a few at a time', async () => {
    const t = setup(2);
    for (let i = 0; i < 3; i++) for (const id of ['a', 'b', 'c']) t.cache.request(id);
    await flush();
    expect(t.asked).toEqual(['a', 'b']);
    t.answer('a');
    await flush();
    expect(t.asked).toEqual(['a', 'b', 'c']);
    expect(t.cache.peek('a')?.url).toBe('/media/a/content?sig=x');
    expect(t.changed).toEqual(['a']);
    t.cache.request('a');
    await flush();
    expect(t.asked).toEqual(['a', 'b', 'c']);
  });

  it('asks again once a link is about to expire, and when it did not load', async () => {
    const t = setup();
    t.cache.request('a');
    await flush();
    t.answer('a', LINK_MARGIN_MS + 5_000);
    await flush();
    expect(t.cache.peek('a')).not.toBeNull();
    t.tick(6_000);
    expect(t.cache.peek('a')).toBeNull();
    t.cache.request('a');
    await flush();
    expect(t.asked).toEqual(['a', 'a']);
    t.answer('a');
    await flush();
    t.cache.renew('a');
    await flush();
    expect(t.asked).toEqual(['a', 'a', 'a']);
  });

  it('keeps a failure for a while instead of asking on every render', async () => {
    const t = setup();
    t.cache.request('a');
    await flush();
    t.fail('a');
    await flush();
    expect(t.cache.error('a')).toBe('offline');
    t.cache.request('a');
    await flush();
    expect(t.asked).toEqual(['a']);
    t.tick(LINK_RETRY_MS);
    t.cache.request('a');
    await flush();
    expect(t.asked).toEqual(['a', 'a']);
  });

  it('drops answers that arrive after it was cleared (another workspace)', async () => {
    const t = setup();
    t.cache.request('a');
    await flush();
    t.cache.clear();
    t.answer('a');
    await flush();
    expect(t.cache.peek('a')).toBeNull();
    expect(t.changed).toEqual([]);
  });
});

describe('a file card', () => {
  it('says a size as people read it', () => {
    expect(formatFileSize(712)).toBe('712 bytes');
    expect(formatFileSize(2355)).toBe('2.3 KB');
    expect(formatFileSize(1024)).toBe('1 KB');
    expect(formatFileSize(14 * 1024 * 1024 + 1)).toBe('14 MB');
    expect(formatFileSize(null)).toBeNull();
  });

  it('labels the kind by type, else by the name', () => {
    expect(fileTypeLabel('application/pdf', 'invoice-17.pdf')).toBe('PDF');
    expect(fileTypeLabel('application/octet-stream', 'data.csv')).toBe('CSV');
    expect(fileTypeLabel('application/octet-stream', null)).toBe('FILE');
  });
});
