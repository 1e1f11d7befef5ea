import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { samplesDir } from '../../main/core/media/samples.ts';
import type { FakeGraph } from '../fake-graph.ts';
import { metaJson, signatureFor, startFakeGraph } from '../fake-graph.ts';
import * as meta from '../fixtures/meta/webhooks.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';
import { connectionTo } from '../live-channel.ts';

/**
 * How long a voice note, audio file or video plays (`media.durationMs`), and the file writer
 * that hashes and writes off the event loop: the same SHA-256, limits and sniffing as before,
 * for files received from the fake Graph API, the simulator's samples and uploads.
 */
let t: TestCore;
let g: FakeGraph | undefined;
afterEach(async () => {
  await g?.close();
  g = undefined;
  await t?.close();
});

const FROM = '14155550161';
const PHONE = `+${FROM}`;
const sample = (name: string) => fs.readFileSync(path.join(samplesDir(), name));
const fixture = (name: string) =>
  fs.readFileSync(path.join(import.meta.dirname, '../fixtures/media', name));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function live() {
  const clock = manualClock(Date.now());
  t = await makeCore({ clock });
  g = await startFakeGraph();
  const graph = g;
  t.core.services.workspaces.updateSettings(t.workspaceId, { allowPrivateWebhooks: true });
  const put = await t.request('PUT', '/api/channel', { session: 'live', body: connectionTo(g) });
  expect(put.status, put.text).toBe(200);
  const account: meta.Account = { phoneNumberId: g.phoneNumberId, wabaId: g.wabaId };
  const key = t.key('live');
  /** The customer sends a file Meta holds; the fetch job runs; the message as listed. */
  const receive = async (
    type: 'image' | 'audio' | 'video' | 'document' | 'sticker',
    bytes: Buffer,
    mimeType: string,
    extra: { voice?: boolean; declaredSize?: number } = {},
  ) => {
    const held = graph.addMedia({ bytes, mimeType, declaredSize: extra.declaredSize });
    const item = meta.media({
      from: FROM,
      type,
      mediaId: held.id,
      mimeType,
      sha256: held.sha256Base64,
      ...(extra.voice ? { voice: true } : {}),
    });
    const raw = metaJson(
      meta.envelope(account, [
        meta.messagesValue(account, {
          contacts: [meta.sender({ waId: FROM, name: 'Dee' })],
          messages: [item],
        }),
      ]),
    );
    const res = await t.core.app.inject({
      method: 'POST',
      url: '/channel/webhook',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': signatureFor(graph.appSecret, raw),
      },
      payload: raw,
    });
    expect(res.statusCode).toBe(200);
    await t.core.services.scheduler.runDue();
    const page = await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key });
    return page.body.data[0];
  };
  return { key, receive };
}

const mediaDir = () => path.join(t.dataDir, 'media');
const stored = () => fs.readdirSync(mediaDir()).filter((f) => !f.startsWith('.'));
const incoming = () => fs.readdirSync(mediaDir()).filter((f) => f.startsWith('.incoming'));

describe('media.durationMs', () => {
  it('reads how long a received voice note, audio file or video plays; null for the rest', async () => {
    const { receive } = await live();
    const cases = [
      ['audio', sample('voice-note.ogg'), 'audio/ogg; codecs=opus', [2000, 2000], true],
      ['audio', fixture('tone-1500ms.mp3'), 'audio/mpeg', [1450, 1650], false],
      ['audio', fixture('tone-1500ms.m4a'), 'audio/mp4', [1450, 1650], false],
      ['video', sample('video.mp4'), 'video/mp4', [1000, 1000], false],
    ] as const;
    for (const [type, bytes, mime, [low, high], voice] of cases) {
      const message = await receive(type, bytes, mime, { voice });
      expect(message.media, mime).toMatchObject({ type, status: 'ready', voice });
      expect(Number.isInteger(message.media.durationMs), mime).toBe(true);
      expect(message.media.durationMs, mime).toBeGreaterThanOrEqual(low);
      expect(message.media.durationMs, mime).toBeLessThanOrEqual(high);
      // The event that told the desk it is ready says the same.
      const event = t.core.db
        .prepare(
          "SELECT data FROM events WHERE type = 'message.media_ready' ORDER BY seq DESC LIMIT 1",
        )
        .pluck()
        .get() as string;
      expect(JSON.parse(event).message.media.durationMs).toBe(message.media.durationMs);
    }
    const photo = await receive('image', sample('photo.png'), 'image/png');
    expect(photo.media).toMatchObject({ status: 'ready', durationMs: null });
    const pdf = await receive('document', sample('invoice.pdf'), 'application/pdf');
    expect(pdf.media).toMatchObject({ status: 'ready', durationMs: null });
  });

  it('gives the simulator’s voice note and video their real length, and uploads theirs', async () => {
    t = await makeCore({ clock: manualClock() });
    const key = t.key('test');
    const send = async (type: string) => {
      const res = await t.request('POST', '/api/simulator/inbound', {
        key,
        body: { phone: '+14155550102', media: { type } },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.media.durationMs).toBeNull(); // still being fetched
      await t.core.services.scheduler.runDue();
      const page = await t.request('GET', '/messages?phone=%2B14155550102', { key });
      return page.body.data.find((m: { id: string }) => m.id === res.body.id).media;
    };
    expect(await send('audio')).toMatchObject({ status: 'ready', durationMs: 2000 });
    expect(await send('video')).toMatchObject({ status: 'ready', durationMs: 1000 });
    expect(await send('image')).toMatchObject({ status: 'ready', durationMs: null });

    const body = new FormData();
    body.set('file', new Blob([fixture('tone-1500ms.m4a')], { type: 'audio/mp4' }), 'tone.m4a');
    const req = new Request('http://x/media', { method: 'POST', body });
    const res = await t.core.app.inject({
      method: 'POST',
      url: '/media',
      headers: { 'x-api-key': key, 'content-type': req.headers.get('content-type')! },
      payload: Buffer.from(await req.arrayBuffer()),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ type: 'audio', mimeType: 'audio/mp4' });
    expect(res.json().durationMs).toBeGreaterThanOrEqual(1450);
    expect(res.json().durationMs).toBeLessThanOrEqual(1650);
  });
});

describe('the file writer (off the event loop)', () => {
  it('stores a file of many batches under its SHA-256, 0600, and leaves nothing half-written', async () => {
    const { key, receive } = await live();
    // 1.5 MB of a PDF-headed document: several of the writer's 256 KB batches.
    const bytes = Buffer.concat([
      Buffer.from('%PDF-1.4\n'),
      createHash('sha512').update('seed').digest(),
      Buffer.alloc(1_500_000, 7),
    ]);
    const message = await receive('document', bytes, 'application/pdf');
    expect(message.media).toMatchObject({
      status: 'ready',
      size: bytes.length,
      sha256: sha256(bytes),
      mimeType: 'application/pdf',
    });
    const file = path.join(mediaDir(), sha256(bytes));
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(incoming()).toEqual([]);
    const served = await t.core.app.inject({
      method: 'GET',
      url: `/media/${message.media.id}?download=1`,
      headers: { 'x-api-key': key },
    });
    expect(served.headers.etag).toContain(sha256(bytes));
    // The same bytes again: one file.
    await receive('document', bytes, 'application/pdf');
    expect(stored()).toEqual([sha256(bytes)]);
  });

  it('refuses a file that streams in past its limit though Meta said it was small', async () => {
    const { receive } = await live();
    const png = sample('photo.png');
    const huge = Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024 + 1 - png.length)]);
    const message = await receive('image', huge, 'image/png', { declaredSize: png.length });
    expect(message.media).toMatchObject({ status: 'failed', sha256: null, size: null });
    expect(message.media.error).toMatch(/larger than the 5 MB an image may have/);
    expect(stored()).toEqual([]);
    expect(incoming()).toEqual([]);
  });

  it('sniffs the first bytes: a PNG declared as a JPEG is a PNG, a PDF declared as an image fails', async () => {
    const { receive } = await live();
    // Longer than the head the sniffer reads (64 KB): its type comes from the first bytes.
    const png = Buffer.concat([sample('photo.png'), Buffer.alloc(100_000)]);
    const photo = await receive('image', png, 'image/jpeg');
    expect(photo.media).toMatchObject({ status: 'ready', mimeType: 'image/png' });
    expect(photo.media.sha256).toBe(sha256(png));
    const pdf = await receive('image', sample('invoice.pdf'), 'image/jpeg');
    expect(pdf.media).toMatchObject({ status: 'failed', durationMs: null });
    expect(pdf.media.error).toMatch(
      /declared an image .*\(image\/jpeg\), but the file is application\/pdf/,
    );
    expect(stored()).toEqual([sha256(png)]);
    expect(incoming()).toEqual([]);
  });
});
