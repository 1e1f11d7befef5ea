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
 * Media on the WhatsApp Cloud API, against the fake Graph API (Meta's two-step download, the
 * multipart upload, sends by id, reactions and quotes), with Meta's webhook shapes. The core
 * does not listen: webhooks are injected signed, and jobs run under a clock the test moves.
 */
let t: TestCore;
let g: FakeGraph;
let clock: ReturnType<typeof manualClock>;
afterEach(async () => {
  await g?.close();
  await t?.close();
});

const FROM = '14155550160';
const PHONE = `+${FROM}`;
const sample = (name: string) => fs.readFileSync(path.join(samplesDir(), name));

async function setup() {
  clock = manualClock(Date.now());
  t = await makeCore({ clock });
  g = await startFakeGraph();
  t.core.services.workspaces.updateSettings(t.workspaceId, { allowPrivateWebhooks: true });
  t.core.services.wallet.topup(t.workspaceId, 10_000_000);
  const put = await t.request('PUT', '/api/channel', { session: 'live', body: connectionTo(g) });
  expect(put.status, put.text).toBe(200);
  const account: meta.Account = { phoneNumberId: g.phoneNumberId, wabaId: g.wabaId };
  /** One signed delivery of Meta's `messages` field, as Meta posts it. */
  const deliver = async (messages: unknown[]) => {
    const raw = metaJson(
      meta.envelope(account, [
        meta.messagesValue(account, {
          contacts: [meta.sender({ waId: FROM, name: 'Dee' })],
          messages,
        }),
      ]),
    );
    // The fake's windows follow what its customers send.
    g.openWindow(FROM, clock.now());
    const res = await t.core.app.inject({
      method: 'POST',
      url: '/channel/webhook',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': signatureFor(g.appSecret, raw),
      },
      payload: raw,
    });
    expect(res.statusCode).toBe(200);
    return res.json() as { messages: number; rejected: number };
  };
  const key = t.key('live');
  const latest = async () => {
    const page = await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key });
    return page.body.data[0];
  };
  const run = () => t.core.services.scheduler.runDue();
  return { deliver, key, latest, run };
}

/** A customer's file Meta holds, and the webhook item naming it. */
function customerMedia(
  type: 'image' | 'audio' | 'video' | 'document' | 'sticker',
  bytes: Buffer,
  mimeType: string,
  extra: { caption?: string; filename?: string; voice?: boolean } = {},
) {
  const held = g.addMedia({ bytes, mimeType });
  return meta.media({
    from: FROM,
    type,
    mediaId: held.id,
    mimeType,
    sha256: held.sha256Base64,
    ...extra,
  });
}

describe('received media on the Cloud API', () => {
  it('fetches each kind in Meta’s two steps with the token, checks its hash and bytes, and keeps it', async () => {
    const { deliver, latest, run, key } = await setup();
    const kinds = [
      ['image', 'photo.png', 'image/png', { caption: 'the box' }],
      ['audio', 'voice-note.ogg', 'audio/ogg; codecs=opus', { voice: true }],
      ['video', 'video.mp4', 'video/mp4', {}],
      ['document', 'invoice.pdf', 'application/pdf', { filename: 'receipt.pdf' }],
      ['sticker', 'sticker.webp', 'image/webp', {}],
    ] as const;
    for (const [type, file, mime, extra] of kinds) {
      await deliver([customerMedia(type, sample(file), mime, extra)]);
      const before = await latest();
      expect(before.media).toMatchObject({ type, status: 'pending' });
      await run();
      const after = await latest();
      expect(after.media, type).toMatchObject({
        type,
        status: 'ready',
        size: sample(file).length,
        ...(type === 'document' ? { fileName: 'receipt.pdf' } : {}),
        ...(type === 'audio' ? { voice: true, mimeType: 'audio/ogg' } : {}),
        ...('caption' in extra ? { caption: extra.caption } : {}),
      });
      const served = await t.core.app.inject({
        method: 'GET',
        url: `/media/${after.media.id}`,
        headers: { 'x-api-key': key },
      });
      expect(served.rawPayload.equals(sample(file))).toBe(true);
    }
    // Step one asked for the URL with the number; step two fetched it with the bearer token.
    const asked = g.requests.filter(
      (r) => r.method === 'GET' && g.media.has(r.path.split('/').pop()!),
    );
    expect(asked).toHaveLength(5);
    expect(asked[0]!.query.phone_number_id).toBe(g.phoneNumberId);
    expect(asked[0]!.headers.authorization).toBe(`Bearer ${g.accessToken}`);
    const fetched = g.requests.filter((r) => r.path === '/whatsapp_business/attachments/');
    expect(fetched).toHaveLength(5);
    expect(fetched[0]!.headers.authorization).toBe(`Bearer ${g.accessToken}`);
  });

  it('retries a failing download with backoff, then says why it failed; Retry fetches it', async () => {
    const { deliver, latest, run, key } = await setup();
    g.failNextDownload({ status: 500, times: 6 });
    await deliver([customerMedia('image', sample('photo.png'), 'image/png')]);
    for (let i = 0; i < 8; i++) {
      await run();
      clock.advance(10 * 60_000);
    }
    const failed = await latest();
    expect(failed.media.status).toBe('failed');
    expect(failed.media.error).toMatch(/HTTP 500/);
    const events = t.core.db.prepare('SELECT type FROM events').pluck().all();
    expect(events).toContain('message.media_failed');

    const retried = await t.request('POST', `/media/${failed.media.id}/retry`, { key });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: failed.media.id, status: 'pending', error: null });
    await run();
    expect((await latest()).media.status).toBe('ready');
    const again = await t.request('POST', `/media/${failed.media.id}/retry`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('refuses a file over its type’s limit, and one whose bytes are not what Meta declared; a cut download is fetched again', async () => {
    const { deliver, latest, run } = await setup();
    const huge = Buffer.concat([sample('photo.png'), Buffer.alloc(5 * 1024 * 1024)]);
    await deliver([customerMedia('image', huge, 'image/png')]);
    await run();
    expect((await latest()).media).toMatchObject({ status: 'failed' });
    expect((await latest()).media.error).toMatch(/over the 5 MB an image may have/);
    // Nothing of it was fetched: the size Meta gave was enough.
    expect(g.requests.filter((r) => r.path === '/whatsapp_business/attachments/')).toHaveLength(0);

    await deliver([
      customerMedia('image', Buffer.from('<html><script>alert(1)</script></html>'), 'image/jpeg'),
    ]);
    await run();
    expect((await latest()).media).toMatchObject({ status: 'failed' });
    expect((await latest()).media.error).toMatch(/declared an image .*image\/jpeg.*not a format/);
    expect(
      fs.readdirSync(path.join(t.dataDir, 'media')).filter((f) => !f.startsWith('.')),
    ).toHaveLength(0);

    g.failNextDownload({ truncateAt: 100 });
    await deliver([customerMedia('image', sample('photo.png'), 'image/png')]);
    await run();
    expect((await latest()).media.status).toBe('pending');
    clock.advance(60_000);
    await run();
    expect((await latest()).media.status).toBe('ready');
  });

  it('keeps a malformed media or location item as a reject and the rest of the delivery', async () => {
    const { deliver, key } = await setup();
    const result = await deliver([
      { from: FROM, id: meta.wamid(), timestamp: '1733050000', type: 'image', image: {} },
      {
        ...meta.location({ from: FROM }),
        location: { latitude: 'north', longitude: 1, name: 'x' },
      },
      meta.text({ from: FROM, body: 'and a word' }),
    ]);
    expect(result).toMatchObject({ messages: 1, rejected: 2 });
    const rejects = await t.request('GET', '/api/channel/rejects', { key });
    expect(rejects.body.data.map((r: { reason: string }) => r.reason)).toEqual([
      expect.stringMatching(/latitude is not a coordinate/),
      expect.stringMatching(/names no media "id"/),
    ]);
  });

  it('keeps Meta’s location, contact card, reaction and quote examples as what they are', async () => {
    const { deliver, latest, key } = await setup();
    await deliver([meta.location({ from: FROM })]);
    expect(await latest()).toMatchObject({
      type: 'location',
      text: 'Philz Coffee, 101 Forest Ave, Palo Alto, CA 94301',
      location: {
        latitude: 37.44221496582,
        longitude: -122.16165924072,
        name: 'Philz Coffee',
        address: '101 Forest Ave, Palo Alto, CA 94301',
        url: 'https://philzcoffee.com/',
      },
    });
    await deliver([meta.contacts({ from: FROM })]);
    expect((await latest()).contacts).toEqual([
      {
        name: 'Lucía Gómez',
        phones: [{ phone: '+1 (983) 555-2319', waId: '19835552319', type: 'MOBILE' }],
        emails: [{ email: 'lucia@example.com', type: 'WORK' }],
        organization: 'Google',
      },
    ]);

    const sent = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: PHONE, message: 'Your parcel is on its way' },
    });
    expect(sent.status, sent.text).toBe(200);
    const wamid = sent.body.data.channelMessageId as string;
    await deliver([meta.text({ from: FROM, body: 'which parcel?', contextId: wamid })]);
    expect((await latest()).context).toEqual({
      messageId: sent.body.data.messageId,
      channelMessageId: wamid,
    });
    await deliver([meta.reaction({ from: FROM, messageId: wamid, emoji: '🙏' })]);
    const page = await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key });
    const ours = page.body.data.find((m: { id: string }) => m.id === sent.body.data.messageId);
    expect(ours.reaction).toMatchObject({ emoji: '🙏' });
  });
});

describe('sending media on the Cloud API', () => {
  it('uploads the file once (multipart, Meta’s type), sends it by id with its caption and quote', async () => {
    const { deliver, latest, run, key } = await setup();
    await deliver([meta.text({ from: FROM, body: 'can I have the label?' })]);
    const question = await latest();
    const body = new FormData();
    body.set('file', new Blob([sample('photo.png')], { type: 'image/png' }), 'label.png');
    const req = new Request('http://x/media', { method: 'POST', body });
    const upload = await t.core.app.inject({
      method: 'POST',
      url: '/media',
      headers: {
        'x-api-key': key,
        'content-type': req.headers.get('content-type')!,
      },
      payload: Buffer.from(await req.arrayBuffer()),
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const mediaId = upload.json().id as string;

    const send = () =>
      t.request('POST', '/api/send-media', {
        key,
        body: { phone: PHONE, mediaId, caption: 'your label', replyToMessageId: question.id },
      });
    const first = await send();
    // Handed to Meta by its job (the upload comes first): 202, no provider id yet.
    expect(first.status, first.text).toBe(202);
    expect(first.body.data).toMatchObject({ channelMessageId: null, mediaId });
    await run();
    const uploads = g.requests.filter((r) => r.path.endsWith(`/${g.phoneNumberId}/media`));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(uploads[0]!.rawBytes.includes(Buffer.from('name="messaging_product"'))).toBe(true);
    const held = [...g.media.values()].find((m) => m.origin === 'upload')!;
    expect(held).toMatchObject({ mimeType: 'image/png', fileName: 'label.png' });
    expect(held.bytes.equals(sample('photo.png'))).toBe(true);
    const out = g.sent.at(-1)!;
    expect(out.type).toBe('image');
    expect(out.body).toMatchObject({
      type: 'image',
      image: { id: held.id, caption: 'your label' },
      context: { message_id: question.channelMessageId },
      biz_opaque_callback_data: first.body.data.messageId,
    });
    const message = (
      await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key })
    ).body.data.find((m: { id: string }) => m.id === first.body.data.messageId);
    expect(message).toMatchObject({ status: 'sent', channelMessageId: out.wamid });

    // Sent again within Meta's 30 days: by the same id, no second upload.
    await send();
    await run();
    expect(g.requests.filter((r) => r.path.endsWith(`/${g.phoneNumberId}/media`))).toHaveLength(1);
    expect(g.sent.at(-1)!.body).toMatchObject({ image: { id: held.id } });
  });

  it('fails (and refunds) a media message whose upload Meta refuses, and reacts with Meta’s payload', async () => {
    const { deliver, latest, run, key } = await setup();
    await deliver([meta.text({ from: FROM, body: 'thanks' })]);
    const thanks = await latest();
    t.core.services.prices.set(t.workspaceId, { SERVICE: 5000 });
    const pdf = await t.core.app.inject({
      method: 'POST',
      url: '/media',
      headers: {
        'x-api-key': key,
        'content-type': 'multipart/form-data; boundary=XyZ',
      },
      payload: Buffer.concat([
        Buffer.from(
          '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="m.pdf"\r\nContent-Type: application/pdf\r\n\r\n',
        ),
        sample('invoice.pdf'),
        Buffer.from('\r\n--XyZ--\r\n'),
      ]),
    });
    expect(pdf.statusCode, pdf.body).toBe(201);
    g.failNext({ code: 131053, on: 'any' });
    const sent = await t.request('POST', '/api/send-media', {
      key,
      body: { phone: PHONE, mediaId: pdf.json().id },
    });
    expect(sent.status).toBe(202);
    await run();
    const failed = (
      await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key })
    ).body.data.find((m: { id: string }) => m.id === sent.body.data.messageId);
    expect(failed).toMatchObject({ status: 'failed', error: { code: '131053' } });
    const wallet = await t.request('GET', '/api/wallet', { key });
    expect(wallet.body.balanceMicros).toBe(10_000_000);

    const liked = await t.request(
      'POST',
      `/conversations/${thanks.conversationId}/messages/${thanks.id}/reaction`,
      { session: 'live', body: { emoji: '❤️' } },
    );
    expect(liked.status, liked.text).toBe(200);
    expect(liked.body.agentReaction).toMatchObject({ emoji: '❤️' });
    expect(g.sent.at(-1)!.body).toMatchObject({
      type: 'reaction',
      reaction: { message_id: thanks.channelMessageId, emoji: '❤️' },
    });
  });
});
