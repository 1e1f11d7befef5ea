import net from 'node:net';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGraph } from '../fake-graph.ts';
import * as meta from '../fixtures/meta/webhooks.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';
import { connectionTo } from '../live-channel.ts';

/**
 * What Meta's own payloads and an attacker's settings showed (issue 18, items 1–5 and 7):
 * business-scoped user ids, one bad item in a delivery, media and reactions, template shapes,
 * settings that aim the core at a host, and who owns a phone number id.
 */
let t: TestCore;
const peers: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close();
  await t?.close();
});

const USER = 'US.13491208655302741918';
const live = { workspaceId: '', environment: 'live' as const };

async function connect(opts: { allowPrivate?: boolean } = {}) {
  t = await makeCore();
  live.workspaceId = t.workspaceId;
  const { url } = await t.core.start({ port: 0 });
  const g = await startFakeGraph({ webhookUrl: `${url}/channel/webhook` });
  peers.push(g);
  if (opts.allowPrivate !== false) {
    t.core.services.workspaces.updateSettings(t.workspaceId, { allowPrivateWebhooks: true });
  }
  t.core.services.wallet.topup(t.workspaceId, 10_000_000);
  const put = await t.request('PUT', '/api/channel', { session: 'live', body: connectionTo(g) });
  const account: meta.Account = { phoneNumberId: g.phoneNumberId, wabaId: g.wabaId };
  const post = (values: unknown[], field?: string) => g.post(meta.envelope(account, values, field));
  const contacts = async (query = '') =>
    (await t.request('GET', `/api/contacts${query}`, { key: t.key('live') })).body.data as {
      id: string;
      phone: string | null;
      waUserId: string | null;
      name: string | null;
    }[];
  const inbound = () =>
    t.core.db
      .prepare(`SELECT * FROM messages WHERE direction = 'inbound' ORDER BY rowid`)
      .all() as { text: string; contact_id: string; channel_message_id: string; phone: string }[];
  return { g, put, account, post, contacts, inbound, url };
}

describe('who a customer is: business-scoped user ids (item 1)', () => {
  it('stores a BSUID-only message, one with both ids and a plain one from one signed POST; a malformed item is kept as a reject', async () => {
    const { post, contacts, inbound, account } = await connect();
    const status = await post([
      meta.messagesValue(account, {
        contacts: [meta.sender({ userId: USER, username: '@ann.bakes', name: 'Ann' })],
        messages: [meta.text({ fromUserId: USER, body: 'hi, I only have a username' })],
      }),
      meta.messagesValue(account, {
        contacts: [meta.sender({ waId: '14155550124', userId: 'US.777000111', name: 'Bea' })],
        messages: [meta.text({ from: '14155550124', fromUserId: 'US.777000111', body: 'both' })],
      }),
      meta.messagesValue(account, {
        contacts: [meta.sender({ waId: '14155550125', name: 'Cy' })],
        messages: [
          meta.text({ from: '14155550125', body: 'plain' }),
          // Neither a phone nor a user id: cannot be stored, must not sink the rest.
          { id: meta.wamid(), timestamp: '1733050000', type: 'text', text: { body: 'who?' } },
        ],
      }),
    ]);
    expect(status).toBe(200);
    expect(inbound().map((m) => m.text)).toEqual(['hi, I only have a username', 'both', 'plain']);
    const all = await contacts();
    expect(all.find((c) => c.waUserId === USER)).toMatchObject({ phone: null, name: 'Ann' });
    expect(all.find((c) => c.phone === '+14155550124')).toMatchObject({
      waUserId: 'US.777000111',
      name: 'Bea',
    });
    const rejects = await t.request('GET', '/api/channel/rejects', { key: t.key('live') });
    expect(rejects.status).toBe(200);
    expect(rejects.body.data).toHaveLength(1);
    expect(rejects.body.data[0]).toMatchObject({ kind: 'message' });
    expect(rejects.body.data[0].reason).toMatch(/neither a phone/);
    expect(JSON.parse(rejects.body.data[0].raw).text.body).toBe('who?');
    // Test keys never see the live channel's rejects.
    expect((await t.request('GET', '/api/channel/rejects', { key: t.key('test') })).status).toBe(
      403,
    );
  });

  it('finds a BSUID contact again by its id, merges a phone onto it, searches it, and replies with `recipient`', async () => {
    const { g, post, contacts, account } = await connect();
    await post([
      meta.messagesValue(account, {
        contacts: [meta.sender({ userId: USER, name: 'Ann' })],
        messages: [meta.text({ fromUserId: USER, body: 'first' })],
      }),
    ]);
    await post([
      meta.messagesValue(account, {
        contacts: [meta.sender({ userId: USER })],
        messages: [meta.text({ fromUserId: USER, body: 'second' })],
      }),
    ]);
    const [ann] = await contacts(`?waUserId=${USER}`);
    expect(ann).toMatchObject({ phone: null, waUserId: USER });
    expect(await contacts('?q=Ann')).toHaveLength(1);
    const conversations = await t.request('GET', '/conversations', { session: 'live' });
    expect(conversations.body.data).toHaveLength(1);
    const conv = conversations.body.data[0];
    expect(conv.contact).toMatchObject({ waUserId: USER, phone: null, name: 'Ann' });

    g.openWindow(USER);
    const reply = await t.request('POST', `/conversations/${conv.id}/reply`, {
      session: 'live',
      body: { text: 'Hello Ann', as: 'agent' },
    });
    expect(reply.status).toBe(200);
    const sent = g.sent.at(-1)!.body as Record<string, unknown>;
    expect(sent.recipient).toBe(USER);
    expect(sent).not.toHaveProperty('to');

    // Later the same customer writes with a phone too: it joins the contact, not a new one.
    await post([
      meta.messagesValue(account, {
        contacts: [meta.sender({ waId: '14155550199', userId: USER })],
        messages: [meta.text({ from: '14155550199', fromUserId: USER, body: 'third' })],
      }),
    ]);
    const again = await contacts();
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ phone: '+14155550199', waUserId: USER, name: 'Ann' });
    // A phone-only feature says so for a contact without one: the API sends by phone.
    const bad = await t.request('POST', '/api/send-text', {
      key: t.key('live'),
      body: { phone: USER, message: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('phone');
  });

  it('answers 200 and keeps a reject for a malformed change, never 500 (Meta would redeliver forever)', async () => {
    const { post, account, inbound } = await connect();
    const status = await post([
      { ...meta.messagesValue(account, {}), messages: 'not a list' },
      meta.messagesValue(account, {
        messages: [meta.text({ from: '14155550126', body: 'still here' })],
      }),
    ]);
    expect(status).toBe(200);
    expect(inbound().map((m) => m.text)).toEqual(['still here']);
    const rows = t.core.db.prepare('SELECT kind, reason FROM webhook_rejects').all();
    expect(rows).toEqual([{ kind: 'change', reason: '"messages" is not an array' }]);
    // Rejects are kept 30 days (PARLEY_RETENTION_WEBHOOK_REJECTS_DAYS), then swept.
    t.core.services.retention.pruneOnce();
    expect(t.core.db.prepare('SELECT count(*) FROM webhook_rejects').pluck().get()).toBe(1);
    t.core.db.prepare('UPDATE webhook_rejects SET received_at = received_at - 31 * 86400000').run();
    t.core.services.retention.pruneOnce();
    expect(t.core.db.prepare('SELECT count(*) FROM webhook_rejects').pluck().get()).toBe(0);
  });
});

describe('template shapes Meta documents (item 2)', () => {
  it('submits buttons in Meta’s field names and sends a copy-code button’s coupon_code', async () => {
    const { g } = await connect();
    const key = t.key('live');
    const created = await t.request('POST', '/api/templates', {
      key,
      body: {
        name: 'spring_sale',
        category: 'MARKETING',
        language: 'en_US',
        components: [
          { type: 'BODY', text: 'Hi {{1}}, spring sale is on' },
          { type: 'FOOTER', text: 'Reply STOP to opt out' },
          {
            type: 'BUTTONS',
            buttons: [
              { type: 'PHONE_NUMBER', text: 'Call us', phoneNumber: '+14155550100' },
              { type: 'URL', text: 'Shop', url: 'https://example.com/sale' },
              { type: 'COPY_CODE', text: 'Copy code', example: 'SPRING20' },
            ],
          },
        ],
      },
    });
    expect(created.status).toBe(200);
    await t.core.services.scheduler.runDue();
    const submitted = g.templates.find((x) => x.name === 'spring_sale');
    // The fake peer checks Meta's template-creation schema strictly: `phoneNumber` is refused.
    expect(submitted).toBeDefined();
    const buttons = (submitted!.components.find((c) => c.type === 'BUTTONS') as {
      buttons: Record<string, unknown>[];
    })!.buttons;
    expect(buttons).toEqual([
      { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+14155550100' },
      { type: 'URL', text: 'Shop', url: 'https://example.com/sale' },
      { type: 'COPY_CODE', example: 'SPRING20' },
    ]);
    expect(await g.setTemplateStatus('spring_sale', 'en_US', 'APPROVED')).toBe(200);
    g.openWindow('14155550123');
    const sent = await t.request('POST', '/api/send', {
      key,
      body: { phone: '+14155550123', templateName: 'spring_sale', variables: { 1: 'Ann' } },
    });
    expect(sent.status).toBe(200);
    const body = g.sent.at(-1)!.body as { template: { components: unknown[] } };
    expect(body.template.components).toContainEqual({
      type: 'button',
      sub_type: 'copy_code',
      index: '2',
      parameters: [{ type: 'coupon_code', coupon_code: 'SPRING20' }],
    });
  });

  it('matches a template status update in en-US to a template in en_US', async () => {
    const { post } = await connect();
    const key = t.key('live');
    await t.request('POST', '/api/templates', {
      key,
      body: {
        name: 'order_note',
        category: 'UTILITY',
        language: 'en_US',
        components: [{ type: 'BODY', text: 'Order {{1}} is on its way' }],
      },
    });
    const status = await post(
      [
        {
          event: 'APPROVED',
          message_template_id: 123456789,
          message_template_name: 'order_note',
          message_template_language: 'en-US',
          reason: 'NONE',
        },
      ],
      'message_template_status_update',
    );
    expect(status).toBe(200);
    const tpl = await t.request('GET', '/api/templates?name=order_note', { key });
    expect(tpl.body.data[0].status).toBe('APPROVED');
  });
});

describe('what an inbox shows of Meta’s other messages (item 3)', () => {
  it('keeps captions, reads articles right, puts a reaction on its message and moves a changed number', async () => {
    const { post, account, inbound, contacts } = await connect();
    const from = '14155550130';
    await post([
      meta.messagesValue(account, {
        contacts: [meta.sender({ waId: from, name: 'Dee' })],
        messages: [
          meta.image({ from, caption: 'the box arrived like this' }),
          meta.document({ from, filename: 'invoice-17.pdf', caption: 'my invoice' }),
          meta.unsupported({ from }),
        ],
      }),
    ]);
    // A photo and a document are kept as what they are (test/api/media-live.test.ts fetches
    // them); their captions are their text, a document keeps its name.
    const rows = inbound() as unknown as { text: string; type: string; file_name: string | null }[];
    expect(rows[0]).toMatchObject({ type: 'media', text: 'the box arrived like this' });
    expect(rows[1]).toMatchObject({
      type: 'media',
      text: 'my invoice',
      file_name: 'invoice-17.pdf',
    });
    expect(rows[2]!.text).toMatch(/^\[an unsupported message/);

    // The customer reacts to one of their own messages we have: the emoji goes on it.
    const photo = inbound()[0]!;
    await post([
      meta.messagesValue(account, {
        messages: [meta.reaction({ from, messageId: photo.channel_message_id, emoji: '😢' })],
      }),
    ]);
    expect(inbound()).toHaveLength(3);
    const page = await t.request('GET', `/messages?contactId=${photo.contact_id}`, {
      key: t.key('live'),
    });
    const reacted = page.body.data.find((m: { id: string; channelMessageId: string }) => {
      return m.channelMessageId === photo.channel_message_id;
    });
    expect(reacted.reaction).toMatchObject({ emoji: '😢' });

    // A reaction to a message we do not have is kept as what it is.
    await post([
      meta.messagesValue(account, {
        messages: [meta.reaction({ from, messageId: 'wamid.unknown==', emoji: '👍' })],
      }),
    ]);
    expect(inbound().at(-1)!.text).toBe('Reacted 👍 to a message');

    // Meta's notice of a new number is not the customer's words; the contact moves to it.
    await post([
      meta.messagesValue(account, {
        messages: [meta.changedNumber({ from, to: '14155550131', name: 'Dee' })],
      }),
    ]);
    expect(inbound()).toHaveLength(4);
    const dee = (await contacts()).find((c) => c.name === 'Dee');
    expect(dee?.phone).toBe('+14155550131');
    const note = t.core.db
      .prepare(`SELECT text FROM messages WHERE type = 'note' ORDER BY rowid DESC LIMIT 1`)
      .pluck()
      .get() as string;
    expect(note).toContain('changed their number from +14155550130 to +14155550131');
  });

  it('says a failed status’s error once when its title and message are the same', async () => {
    const { post, account } = await connect();
    // The customer writes first: a text goes out inside the window, then Meta fails it.
    await post([
      meta.messagesValue(account, {
        messages: [meta.text({ from: '14155550140', body: 'hello' })],
      }),
    ]);
    const reply = await t.request('POST', '/api/send-text', {
      key: t.key('live'),
      body: { phone: '+14155550140', message: 'hi there' },
    });
    expect(reply.status).toBe(200);
    const wamid = reply.body.data.channelMessageId as string;
    await post([
      meta.messagesValue(account, {
        statuses: [
          meta.failedStatus({
            id: wamid,
            recipient: '14155550140',
            code: 131026,
            title: 'Message undeliverable',
            message: 'Message undeliverable',
            details: 'The recipient is not on WhatsApp',
          }),
        ],
      }),
    ]);
    const row = t.core.db
      .prepare('SELECT error_message FROM messages WHERE channel_message_id = ?')
      .get(wamid) as { error_message: string };
    expect(row.error_message).toBe('Message undeliverable: The recipient is not on WhatsApp');
  });
});

describe('settings that aim the core at a host (items 4, 5, 7)', () => {
  it('no API key may change the channel or run its check; a loopback Graph URL needs the workspace’s leave', async () => {
    t = await makeCore();
    const key = t.key('live');
    const byKey = await t.request('PUT', '/api/channel', {
      key,
      body: { graphBaseUrl: 'http://127.0.0.1:22/v21.0' },
    });
    expect(byKey.status).toBe(403);
    expect((await t.request('POST', '/api/channel/check', { key })).status).toBe(403);
    for (const url of [
      'http://127.0.0.1:22/v21.0',
      'http://127.1/v21.0',
      'http://0x7f000001/v21.0',
      'http://[::ffff:127.0.0.1]/v21.0',
      'http://169.254.169.254/latest',
    ]) {
      const res = await t.request('PUT', '/api/channel', {
        session: 'live',
        body: { graphBaseUrl: url },
      });
      expect(res.status, url).toBe(400);
      expect(res.body.error.param).toBe('graphBaseUrl');
    }
  });

  it('reports a classified outcome, never the peer’s bytes, and follows no redirect', async () => {
    t = await makeCore();
    t.core.services.workspaces.updateSettings(t.workspaceId, { allowPrivateWebhooks: true });
    // An SSH-like service: it greets and says nothing an HTTP client can read.
    const ssh = net.createServer((s) => {
      s.on('error', () => {});
      s.end('SSH-2.0-OpenSSH_9.6 secret-banner\r\n');
    });
    // A web server that redirects and one that answers HTML.
    const web = http.createServer((req, res) => {
      if (req.url!.startsWith('/redirect')) {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        res.end('moved: internal-detail-xyz');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>router admin internal-detail-xyz</html>');
      }
    });
    await new Promise<void>((r) => ssh.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    peers.push({ close: () => void ssh.close() }, { close: () => void web.close() });
    const sshPort = (ssh.address() as net.AddressInfo).port;
    const webPort = (web.address() as net.AddressInfo).port;
    const check = async (graphBaseUrl: string) => {
      const put = await t.request('PUT', '/api/channel', {
        session: 'live',
        body: {
          provider: 'cloud_api',
          phoneNumberId: '106540352242922',
          wabaId: '102290129340398',
          accessToken: 'EAAG'.padEnd(40, 'x'),
          appSecret: 'app-secret-123',
          graphBaseUrl,
        },
      });
      expect(put.status).toBe(200);
      return (await t.request('GET', '/api/channel', { key: t.key('live') })).body;
    };
    const banner = await check(`http://127.0.0.1:${sshPort}/v21.0`);
    expect(banner.lastCheck).toMatchObject({ ok: false, outcome: 'unreachable' });
    expect(JSON.stringify(banner)).not.toContain('OpenSSH');
    const redirect = await check(`http://127.0.0.1:${webPort}/redirect/v21.0`);
    expect(redirect.lastCheck).toMatchObject({ ok: false, outcome: 'not_graph' });
    const html = await check(`http://127.0.0.1:${webPort}/v21.0`);
    expect(html.lastCheck).toMatchObject({ ok: false, outcome: 'not_graph' });
    expect(JSON.stringify([redirect, html])).not.toContain('internal-detail-xyz');
  });

  it('a number proved by a signed webhook cannot be taken by another workspace’s check against its own fake', async () => {
    const { g, post, account, inbound } = await connect();
    // Before any proof the owner's check against a non-Meta host proves nothing.
    const before = await t.request('GET', '/api/channel', { key: t.key('live') });
    expect(before.body.phoneNumberProved).toBe(false);
    await post([
      meta.messagesValue(account, {
        messages: [meta.text({ from: '14155550150', body: 'hi' })],
      }),
    ]);
    const after = await t.request('GET', '/api/channel', { key: t.key('live') });
    expect(after.body.phoneNumberProved).toBe(true);

    const other = t.core.services.workspaces.create('Intruder');
    t.core.services.workspaces.updateSettings(other.id, { allowPrivateWebhooks: true });
    const fake = await startFakeGraph({ phoneNumberId: g.phoneNumberId, appSecret: 'other-1234' });
    peers.push(fake);
    const take = await t.request('PUT', '/api/channel', {
      session: 'live',
      headers: { 'x-parley-workspace': other.id },
      body: {
        provider: 'cloud_api',
        phoneNumberId: g.phoneNumberId,
        wabaId: fake.wabaId,
        accessToken: fake.accessToken,
        appSecret: fake.appSecret,
        graphBaseUrl: fake.baseUrl,
      },
    });
    expect(take.status).toBe(400);
    expect(take.body.error.param).toBe('phoneNumberId');
    // The owner still receives its messages.
    await post([
      meta.messagesValue(account, {
        messages: [meta.text({ from: '14155550150', body: 'still mine' })],
      }),
    ]);
    expect(inbound().at(-1)!.text).toBe('still mine');
  });

  it('rate-limits /channel/webhook per client address', async () => {
    const { url } = await connect();
    let limited = 0;
    for (let i = 0; i < 1500 && limited === 0; i++) {
      const res = await fetch(`${url}/channel/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' },
        body: '{}',
      });
      if (res.status === 429) limited = i;
      await res.arrayBuffer();
    }
    expect(limited).toBeGreaterThanOrEqual(400);
  });
});
