import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { retentionFromEnv } from '../../main/core/jobs/retention.ts';
import { samplesDir } from '../../main/core/media/samples.ts';
import type { Message } from '../../shared/schemas/messages.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

/**
 * Media, locations, contact cards and quotes from the simulator (design.md §5 "Media,
 * reactions, quotes"): the same fetch job, store, scoping and serving as a live channel's.
 */
let t: TestCore;
let clock: ReturnType<typeof manualClock>;
let key: string;
const PHONE = '+14155550101';

beforeEach(async () => {
  clock = manualClock();
  t = await makeCore({ clock });
  key = t.key('test');
});
afterEach(async () => {
  await t.close();
});

const sample = (name: string) => fs.readFileSync(path.join(samplesDir(), name));

/** A simulated customer sends something; the fetch job runs. */
async function inbound(body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/simulator/inbound', {
    key,
    body: { phone: PHONE, ...body },
  });
  expect(res.status, res.text).toBe(200);
  await t.core.services.scheduler.runDue();
  return res.body as Message;
}

async function messageById(id: string) {
  const page = await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key });
  return page.body.data.find((m: { id: string }) => m.id === id);
}

const eventTypes = () =>
  t.core.db.prepare('SELECT type FROM events ORDER BY seq').pluck().all() as string[];

describe('a simulated customer sends media', () => {
  it('keeps a photo as a photo: fetched by the job, stored by its hash, served inline to its scope', async () => {
    const sent = await inbound({ media: { type: 'image', caption: 'the box arrived like this' } });
    expect(sent).toMatchObject({
      type: 'media',
      text: 'the box arrived like this',
      media: { type: 'image', status: 'pending', caption: 'the box arrived like this' },
    });
    const message = await messageById(sent.id);
    const bytes = sample('photo.png');
    expect(message.media).toMatchObject({
      type: 'image',
      mimeType: 'image/png',
      size: bytes.length,
      status: 'ready',
      error: null,
      caption: 'the box arrived like this',
      voice: false,
    });
    expect(eventTypes()).toContain('message.media_ready');
    // The event carries the message as the API shows it (SQL-built JSON = toMessage).
    const event = JSON.parse(
      t.core.db
        .prepare(`SELECT data FROM events WHERE type = 'message.media_ready'`)
        .pluck()
        .get() as string,
    );
    expect(event.message).toEqual(message);

    // Content-addressed, owner-only.
    const stored = path.join(t.dataDir, 'media', message.media.sha256);
    expect(fs.readFileSync(stored).equals(bytes)).toBe(true);
    if (process.platform !== 'win32') {
      expect(fs.statSync(stored).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(t.dataDir, 'media')).mode & 0o777).toBe(0o700);
    }

    const file = await t.core.app.inject({
      method: 'GET',
      url: `/media/${message.media.id}`,
      headers: { 'x-api-key': key },
    });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(bytes)).toBe(true);
    expect(file.headers).toMatchObject({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(file.headers['content-disposition']).toMatch(/^inline; filename="image-med_[^"]+\.png"/);
    expect(file.headers['cache-control']).toMatch(/^private, max-age=\d+, immutable$/);

    // Another environment's or workspace's key: as if it did not exist.
    const live = await t.request('GET', `/media/${message.media.id}`, { key: t.key('live') });
    expect(live.status).toBe(404);
    const other = t.core.services.workspaces.create('Other');
    const theirs = await t.request('GET', `/media/${message.media.id}`, {
      key: t.key('test', other.id),
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
  });

  it('keeps every kind with its type: voice note, video, document (a download with its name), sticker', async () => {
    const voice = await inbound({ media: { type: 'audio' } });
    const video = await inbound({ media: { type: 'video', caption: 'see the scratch' } });
    const doc = await inbound({ media: { type: 'document', caption: 'my invoice' } });
    const sticker = await inbound({ media: { type: 'sticker' } });
    expect((await messageById(voice.id)).media).toMatchObject({
      type: 'audio',
      mimeType: 'audio/ogg',
      voice: true,
      status: 'ready',
      caption: null,
    });
    expect((await messageById(video.id)).media).toMatchObject({
      type: 'video',
      mimeType: 'video/mp4',
      status: 'ready',
    });
    const document = (await messageById(doc.id)).media;
    expect(document).toMatchObject({
      type: 'document',
      mimeType: 'application/pdf',
      fileName: 'invoice-17.pdf',
      caption: 'my invoice',
      status: 'ready',
    });
    expect((await messageById(sticker.id)).media).toMatchObject({
      type: 'sticker',
      mimeType: 'image/webp',
      status: 'ready',
    });

    const get = (id: string, query = '') =>
      t.core.app.inject({
        method: 'GET',
        url: `/media/${id}${query}`,
        headers: { 'x-api-key': key },
      });
    const pdf = await get(document.id);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(
      `attachment; filename="invoice-17.pdf"; filename*=UTF-8''invoice-17.pdf`,
    );
    expect(pdf.rawPayload.equals(sample('invoice.pdf'))).toBe(true);
    const audio = await get((await messageById(voice.id)).media.id);
    expect(audio.headers['content-type']).toBe('audio/ogg');
    expect(audio.headers['content-disposition']).toMatch(/^inline;/);
    // A player asks for ranges.
    const part = await t.core.app.inject({
      method: 'GET',
      url: `/media/${(await messageById(video.id)).media.id}`,
      headers: { 'x-api-key': key, range: 'bytes=0-99' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-99/${sample('video.mp4').length}`);
    expect(part.rawPayload.equals(sample('video.mp4').subarray(0, 100))).toBe(true);
    // `?download=1` makes anything an attachment.
    const forced = await get((await messageById(sticker.id)).media.id, '?download=1');
    expect(forced.headers['content-disposition']).toMatch(/^attachment;/);
  });

  it('gives the desktop window a signed link that needs no credential, for this file only, for a while', async () => {
    const sent = await inbound({ media: { type: 'image' } });
    const id = (await messageById(sent.id)).media.id as string;
    const link = await t.request('GET', `/media/${id}/link`, { session: 'test' });
    expect(link.status).toBe(200);
    expect(link.body.url).toMatch(new RegExp(`^/media/${id}/content\\?exp=\\d+&sig=[\\w-]{43}$`));
    const open = await t.core.app.inject({ method: 'GET', url: link.body.url });
    expect(open.statusCode).toBe(200);
    expect(open.rawPayload.equals(sample('photo.png'))).toBe(true);
    expect(open.headers['content-type']).toBe('image/png');

    // Another first character (the signature may already start with "A": 1 in 64).
    const forged = await t.request(
      'GET',
      link.body.url.replace(/sig=(.)/, (_: string, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`),
    );
    expect(forged.status).toBe(404);
    const other = await inbound({ media: { type: 'sticker' } });
    const otherId = (await messageById(other.id)).media.id as string;
    const moved = await t.request('GET', link.body.url.replace(id, otherId));
    expect(moved.status).toBe(404);
    // A link of another scope's media cannot be minted.
    expect((await t.request('GET', `/media/${id}/link`, { key: t.key('live') })).status).toBe(404);
    clock.advance(12 * 3600_000 + 1000);
    expect((await t.request('GET', link.body.url)).status).toBe(404);
  });

  it('keeps a location and shared contact cards, and a quote of an earlier message', async () => {
    const first = await inbound({ message: 'hello' });
    const place = await inbound({
      location: { latitude: 52.52, longitude: 13.405, name: 'Depot', address: 'Berlin' },
      replyToMessageId: first.id,
    });
    expect(await messageById(place.id)).toMatchObject({
      type: 'location',
      text: 'Depot, Berlin',
      location: { latitude: 52.52, longitude: 13.405, name: 'Depot', address: 'Berlin' },
      context: { messageId: first.id, channelMessageId: null },
      media: null,
    });
    const card = await inbound({
      contacts: [
        { name: 'Barbara Johnson', phones: ['+1 (650) 555-1234'], emails: ['b@example.com'] },
      ],
    });
    expect((await messageById(card.id)).contacts).toEqual([
      {
        name: 'Barbara Johnson',
        phones: [{ phone: '+1 (650) 555-1234', waId: '16505551234', type: null }],
        emails: [{ email: 'b@example.com', type: null }],
        organization: null,
      },
    ]);
  });

  it('finds media messages by caption and by file name', async () => {
    await inbound({ media: { type: 'document', fileName: 'warranty-card.pdf' } });
    await inbound({ media: { type: 'image', caption: 'broken parcel corner' } });
    const byName = await t.request('GET', '/conversations?q=warranty', { key });
    expect(byName.body.data).toHaveLength(1);
    const byCaption = await t.request('GET', '/conversations?q=parcel', { key });
    expect(byCaption.body.data).toHaveLength(1);
    expect(
      (await t.request('GET', '/conversations?q=nothingsuch', { key })).body.data,
    ).toHaveLength(0);
  });
});

/** A multipart body as a browser's FormData sends it. */
function multipart(
  parts: { name: string; value: string | Buffer; fileName?: string; type?: string }[],
) {
  const boundary = `----vitest${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.fileName !== undefined ? `; filename="${p.fileName}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function upload(
  file: Buffer,
  opts: { fileName?: string; type?: string; kind?: string; headers?: Record<string, string> } = {},
) {
  const body = multipart([
    ...(opts.kind ? [{ name: 'type', value: opts.kind }] : []),
    {
      name: 'file',
      value: file,
      fileName: opts.fileName ?? 'upload.bin',
      type: opts.type ?? 'application/octet-stream',
    },
  ]);
  const res = await t.core.app.inject({
    method: 'POST',
    url: '/media',
    headers: { 'x-api-key': key, 'content-type': body.contentType, ...opts.headers },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

const incoming = () =>
  fs.existsSync(path.join(t.dataDir, 'media'))
    ? fs.readdirSync(path.join(t.dataDir, 'media')).filter((f) => f.startsWith('.incoming'))
    : [];

describe('uploads to send', () => {
  it('takes a file by its bytes: its type is what they are, within WhatsApp’s limit for it', async () => {
    const png = await upload(sample('photo.png'), { fileName: 'label.png', type: 'image/png' });
    expect(png.status).toBe(201);
    expect(png.body).toMatchObject({
      type: 'image',
      mimeType: 'image/png',
      size: sample('photo.png').length,
      fileName: 'label.png',
      status: 'ready',
    });
    const sticker = await upload(sample('sticker.webp'));
    expect(sticker.body).toMatchObject({ type: 'sticker', mimeType: 'image/webp' });
    const pdf = await upload(sample('invoice.pdf'), { fileName: 'manual.pdf' });
    expect(pdf.body).toMatchObject({ type: 'document', mimeType: 'application/pdf' });
    const voice = await upload(sample('voice-note.ogg'));
    expect(voice.body).toMatchObject({ type: 'audio', mimeType: 'audio/ogg' });
    const video = await upload(sample('video.mp4'));
    expect(video.body).toMatchObject({ type: 'video', mimeType: 'video/mp4' });
    const text = await upload(Buffer.from('Opening hours: 9-17\n'), {
      fileName: 'hours.txt',
      type: 'text/plain',
    });
    expect(text.body).toMatchObject({ type: 'document', mimeType: 'text/plain' });

    // What it claims does not matter: a page is not a photo, nor an SVG, nor a program.
    const page = await upload(Buffer.from('<html><script>alert(1)</script></html>'), {
      fileName: 'photo.png',
      type: 'image/png',
    });
    expect(page.status).toBe(415);
    expect(page.body.error).toMatchObject({ code: 'unsupported_media_type', param: 'file' });
    const svg = await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), {
      fileName: 'logo.txt',
      type: 'text/plain',
    });
    expect(svg.status).toBe(415);
    const elf = await upload(
      Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(64)]),
    );
    expect(elf.status).toBe(415);
    // A photo asked to go as a document is refused: WhatsApp's documents are PDF, Office, text.
    const asDoc = await upload(sample('photo.png'), { kind: 'document' });
    expect(asDoc.status).toBe(415);

    // Over its type's limit: refused while it streams in, nothing kept.
    const big = Buffer.concat([sample('photo.png').subarray(0, 64), Buffer.alloc(5 * 1024 * 1024)]);
    const tooBig = await upload(big, { fileName: 'huge.png' });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error).toMatchObject({
      code: 'payload_too_large',
      details: { limitBytes: 5 * 1024 * 1024 },
    });
    expect(incoming()).toEqual([]);
    const files = fs.readdirSync(path.join(t.dataDir, 'media'));
    expect(files).toHaveLength(6);

    // JSON is not an upload.
    const json = await t.request('POST', '/media', { key, body: { file: 'x' } });
    expect(json.status).toBe(415);
  });

  it('replays an upload under its Idempotency-Key and refuses the key for other bytes', async () => {
    const headers = { 'idempotency-key': 'up-1' };
    const first = await upload(sample('photo.png'), { headers });
    const again = await upload(sample('photo.png'), { headers });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const other = await upload(sample('sticker.webp'), { headers });
    expect(other.status).toBe(409);
  });
});

describe('sending media, quotes and reactions', () => {
  it('sends an upload inside the service window only, quoted or not, with statuses like any send', async () => {
    const photo = (await upload(sample('photo.png'), { fileName: 'label.png' })).body;
    const outside = await t.request('POST', '/api/send-media', {
      key,
      body: { phone: PHONE, mediaId: photo.id, caption: 'your label' },
    });
    expect(outside.status).toBe(422);
    expect(outside.body.error.code).toBe('outside_service_window');

    const hello = await inbound({ message: 'where is my label?' });
    const sent = await t.request('POST', '/api/send-media', {
      key,
      body: { phone: PHONE, mediaId: photo.id, caption: 'your label', replyToMessageId: hello.id },
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({
      success: true,
      message: `Media message accepted for ${PHONE}`,
      data: { mediaId: photo.id, phone: PHONE },
    });
    await t.core.services.scheduler.runDue();
    const message = await messageById(sent.body.data.messageId);
    expect(message).toMatchObject({
      type: 'media',
      direction: 'outbound',
      status: 'sent',
      text: 'your label',
      category: 'SERVICE',
      media: { id: photo.id, type: 'image', caption: 'your label', status: 'ready' },
      context: { messageId: hello.id },
    });

    // Unknown, of another scope, or wrong for its kind.
    const unknown = await t.request('POST', '/api/send-media', {
      key,
      body: { phone: PHONE, mediaId: 'med_nothing' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('mediaId');
    const voice = (await upload(sample('voice-note.ogg'))).body;
    const captioned = await t.request('POST', '/api/send-media', {
      key,
      body: { phone: PHONE, mediaId: voice.id, caption: 'hi' },
    });
    expect(captioned.status).toBe(400);
    expect(captioned.body.error.param).toBe('caption');

    // An inbox reply with an attachment, quoting the customer.
    const conversation = hello.conversationId;
    const pdf = (await upload(sample('invoice.pdf'), { fileName: 'manual.pdf' })).body;
    const reply = await t.request('POST', `/conversations/${conversation}/reply`, {
      session: 'test',
      body: {
        mediaId: pdf.id,
        caption: 'the manual',
        fileName: 'Manual v2.pdf',
        replyToMessageId: hello.id,
      },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      type: 'media',
      media: { type: 'document', fileName: 'Manual v2.pdf', caption: 'the manual' },
      context: { messageId: hello.id },
    });
    const badQuote = await t.request('POST', `/conversations/${conversation}/reply`, {
      session: 'test',
      body: { text: 'x', replyToMessageId: 'msg_nothing' },
    });
    expect(badQuote.status).toBe(400);
    expect(badQuote.body.error.param).toBe('replyToMessageId');
  });

  it('reacts to a customer’s message inside the window, takes it back, and not to its own', async () => {
    const hello = await inbound({ message: 'thanks!' });
    const url = `/conversations/${hello.conversationId}/messages/${hello.id}/reaction`;
    const liked = await t.request('POST', url, { session: 'test', body: { emoji: '👍' } });
    expect(liked.status, liked.text).toBe(200);
    expect(liked.body).toMatchObject({ id: hello.id, agentReaction: { emoji: '👍' } });
    await t.core.services.scheduler.runDue();
    const page = await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key });
    const reaction = page.body.data.find((m: { type: string }) => m.type === 'reaction');
    expect(reaction).toMatchObject({
      text: '👍',
      status: 'sent',
      context: { messageId: hello.id },
    });
    expect(eventTypes()).toContain('message.reaction');

    const undone = await t.request('POST', url, { session: 'test', body: { emoji: '' } });
    expect(undone.body.agentReaction).toBeNull();
    const words = await t.request('POST', url, { session: 'test', body: { emoji: 'ok' } });
    expect(words.status).toBe(400);

    const out = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: PHONE, message: 'glad to help' },
    });
    const own = await t.request(
      'POST',
      `/conversations/${hello.conversationId}/messages/${out.body.data.messageId}/reaction`,
      { session: 'test', body: { emoji: '❤️' } },
    );
    expect(own.status).toBe(400);

    clock.advance(25 * 3600_000);
    const late = await t.request('POST', url, { session: 'test', body: { emoji: '🎉' } });
    expect(late.status).toBe(422);
    expect(late.body.error.code).toBe('outside_service_window');
  });
});

describe('media retention', () => {
  it('removes a file after its period once no message needs it; the message keeps its facts', async () => {
    expect(retentionFromEnv({ PARLEY_RETENTION_MEDIA_DAYS: '30' }).mediaDays).toBe(30);
    expect(retentionFromEnv({}).mediaDays).toBe(365);
    const DAY = 24 * 3600_000;
    const old = await inbound({ media: { type: 'image', caption: 'first' } });
    clock.advance(200 * DAY);
    // The same photo again: one file, two records.
    const young = await inbound({ media: { type: 'image', caption: 'again' } });
    const first = (await messageById(old.id)).media;
    const second = (await messageById(young.id)).media;
    expect(second.sha256).toBe(first.sha256);
    const file = path.join(t.dataDir, 'media', first.sha256);

    clock.advance(166 * DAY);
    t.core.services.retention.pruneOnce();
    expect((await messageById(old.id)).media).toMatchObject({
      status: 'expired',
      sha256: first.sha256,
      size: first.size,
      mimeType: 'image/png',
      caption: 'first',
    });
    const gone = await t.request('GET', `/media/${first.id}`, { key });
    expect(gone.status).toBe(404);
    expect(gone.body.error.details).toEqual({ status: 'expired' });
    // The younger message still needs the bytes.
    expect(fs.existsSync(file)).toBe(true);
    expect(
      (
        await t.core.app.inject({
          method: 'GET',
          url: `/media/${second.id}`,
          headers: { 'x-api-key': key },
        })
      ).statusCode,
    ).toBe(200);

    clock.advance(200 * DAY);
    t.core.services.retention.pruneOnce();
    expect((await messageById(young.id)).media.status).toBe('expired');
    expect(fs.existsSync(file)).toBe(false);
    expect((await messageById(young.id)).text).toBe('again');
  });

  it('removes an upload no message used after a day', async () => {
    const unused = (await upload(sample('sticker.webp'))).body;
    const file = path.join(t.dataDir, 'media', unused.sha256);
    t.core.services.retention.pruneOnce();
    expect(fs.existsSync(file)).toBe(true);
    clock.advance(25 * 3600_000);
    t.core.services.retention.pruneOnce();
    expect(fs.existsSync(file)).toBe(false);
    const send = await t.request('POST', '/api/send-media', {
      key,
      body: { phone: PHONE, mediaId: unused.id },
    });
    expect(send.status).toBe(409);
    expect(send.body.error).toMatchObject({ code: 'invalid_state', param: 'mediaId' });
  });
});
