import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGraph } from '../fake-graph.ts';
import { startFakeGraph } from '../fake-graph.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';
import { connectionTo, orderUpdateTemplate } from '../live-channel.ts';

let t: TestCore;
let graph: FakeGraph | null = null;
afterEach(async () => {
  await graph?.close();
  graph = null;
  await t?.close();
});

const ANN = '+14155550123';
const ANN_WA = '14155550123';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A listening core whose live account is connected to a fake Graph API (a real HTTP peer on
 * 127.0.0.1 that checks Meta's payloads and signs its webhooks), an approved live template
 * `order_update` ("Hi {{1}}, order {{2}} shipped") known to both, and a funded wallet.
 */
async function setup(opts: { connect?: boolean; autoStatuses?: boolean } = {}) {
  t = await makeCore();
  const { url } = await t.core.start({ port: 0 });
  const webhookUrl = `${url}/channel/webhook`;
  graph = await startFakeGraph({
    webhookUrl,
    tier: 'TIER_10K',
    throughputLevel: 'HIGH',
    ...(opts.autoStatuses ? { autoStatuses: { delayMs: 20 } } : {}),
  });
  const key = t.key('live');
  const services = t.core.services;
  // The fake Graph API listens on 127.0.0.1: the workspace allows private targets.
  services.workspaces.updateSettings(t.workspaceId, { allowPrivateWebhooks: true });
  services.simulator.update(t.workspaceId, { approvalWaitMs: 0 });
  services.wallet.topup(t.workspaceId, 10_000_000);
  await orderUpdateTemplate(t, key, graph);
  if (opts.connect !== false) {
    const put = await t.request('PUT', '/api/channel', {
      session: 'live',
      body: connectionTo(graph),
    });
    expect(put.status).toBe(200);
  }
  const send = (body: Record<string, unknown> = {}) =>
    t.request('POST', '/api/send', {
      key,
      body: {
        phone: ANN,
        templateName: 'order_update',
        variables: { 1: 'Ann', 2: 'A-17' },
        ...body,
      },
    });
  const message = (id: string) =>
    t.core.db.prepare('SELECT * FROM messages WHERE id = ?').get(id) as Record<string, unknown>;
  const byChannelId = (wamid: string) =>
    t.core.db.prepare('SELECT * FROM messages WHERE channel_message_id = ?').get(wamid) as
      Record<string, unknown> | undefined;
  return { key, url, webhookUrl, send, message, byChannelId, g: graph };
}

describe('channel settings (live only)', () => {
  it('keeps secrets write-only, names what is missing, and reads tier and throughput on check', async () => {
    const { key, g } = await setup({ connect: false });
    const test = await t.request('GET', '/api/channel', { key: t.key('test') });
    expect(test.status).toBe(403);
    const fresh = await t.request('GET', '/api/channel', { key });
    expect(fresh.body).toMatchObject({
      provider: 'simulated',
      connected: false,
      webhookPath: '/channel/webhook',
    });
    expect(fresh.body.verifyToken).toMatch(/^[A-Za-z0-9]{32}$/);
    const missing = await t.request('PUT', '/api/channel', {
      session: 'live',
      body: { provider: 'cloud_api', phoneNumberId: g.phoneNumberId, wabaId: g.wabaId },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('accessToken');
    const put = await t.request('PUT', '/api/channel', { session: 'live', body: connectionTo(g) });
    expect(put.body).toMatchObject({ connected: true, accessTokenSet: true, appSecretSet: true });
    expect(JSON.stringify(put.body)).not.toContain(g.accessToken);
    expect(JSON.stringify(put.body)).not.toContain(g.appSecret);
    const checked = await t.request('POST', '/api/channel/check', { session: 'live' });
    expect(checked.body.lastCheck).toMatchObject({ ok: true });
    expect(checked.body.number).toMatchObject({ messagingTier: 10_000, throughputMps: 1000 });
    const limits = t.core.services.workspaces.limitsFor(t.workspaceId, 'live');
    expect(limits).toMatchObject({ throughputMps: 1000, messagingTier: 10_000 });
    // A bad token is reported in plain words.
    await t.request('PUT', '/api/channel', {
      session: 'live',
      body: { accessToken: 'x'.repeat(40) },
    });
    const bad = await t.request('POST', '/api/channel/check', { session: 'live' });
    expect(bad.body.lastCheck.ok).toBe(false);
    expect(bad.body.lastCheck.message).toContain('code 190');
  });
});

describe('live sends through the Cloud API', () => {
  it('hands a template over inside the request: 200 with the provider id, Meta’s payload shape', async () => {
    const { send, g, message } = await setup();
    const res = await send();
    expect(res.status).toBe(200);
    expect(res.body.data.channelMessageId).toMatch(/^wamid\./);
    expect(res.body.data).not.toHaveProperty('messageId');
    const sent = g.sent.at(-1)!;
    expect(sent.body).toMatchObject({
      messaging_product: 'whatsapp',
      to: ANN_WA,
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'en' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ann' },
              { type: 'text', text: 'A-17' },
            ],
          },
        ],
      },
    });
    const row = t.core.db
      .prepare('SELECT * FROM messages WHERE channel_message_id = ?')
      .get(res.body.data.channelMessageId) as Record<string, unknown>;
    expect(row).toMatchObject({ status: 'sent', dispatching_at: null });
    expect(sent.body).toMatchObject({ biz_opaque_callback_data: row.id });
    expect(message(row.id as string).cost_micros).toBeGreaterThan(0);
  });

  it('maps provider errors, fails and refunds the message; a hang answers 202 and goes on behind', async () => {
    const { send, g } = await setup();
    const balance = () => t.core.services.wallet.get(t.workspaceId).balanceMicros;
    const before = balance();
    g.failNext({ code: 132000 });
    const mismatch = await send();
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({
      code: 'template_variables_mismatch',
      details: { channelCode: 132000 },
    });
    g.failNext({ code: 131026 });
    expect((await send()).body.error.code).toBe('recipient_invalid');
    g.failNext({ code: 190, httpStatus: 401 });
    const token = await send();
    expect(token.status).toBe(502);
    expect(token.body.error.message).toContain('access token');
    expect(balance()).toBe(before);
    const failed = t.core.db
      .prepare(`SELECT error_code FROM messages WHERE status = 'failed' ORDER BY created_at`)
      .pluck()
      .all();
    expect(failed).toEqual(['132000', '131026', '190']);

    g.hangNext(11_500);
    const slow = await send();
    expect(slow.status).toBe(202);
    expect(slow.body.data).toMatchObject({ channelMessageId: null, messageId: expect.any(String) });
    const row = t.core.db
      .prepare('SELECT * FROM messages WHERE id = ?')
      .get(slow.body.data.messageId) as {
      status: string;
      dispatching_at: number | null;
    };
    // In flight: not re-sent until a status arrives or the window passes.
    expect(row.status).toBe('accepted');
    expect(row.dispatching_at).not.toBeNull();
  }, 20_000);

  it('retries 130429 behind a 202 and sends free text and lists inside the window', async () => {
    const { key, send, g, byChannelId, message } = await setup();
    const byChannelIdOf = (id: string) => message(id).channel_message_id as string | null;
    g.failNext({ code: 130429, httpStatus: 429 });
    const throttled = await send();
    expect(throttled.status).toBe(202);
    // The delivery job tries again a second later, and Meta takes it.
    const retried = Date.now() + 5000;
    while (!byChannelIdOf(throttled.body.data.messageId) && Date.now() < retried) await sleep(50);
    expect(byChannelIdOf(throttled.body.data.messageId)).toMatch(/^wamid\./);
    // An inbound message opens the window (and the fake's).
    expect(await g.post(g.inboundText({ from: ANN_WA, name: 'Ann', text: 'Hello 👋 café' }))).toBe(
      200,
    );
    // An agent's reply from the inbox goes to Meta inside its request too.
    const conversation = (await t.request('GET', '/conversations', { key })).body.data[0];
    const reply = await t.request('POST', `/conversations/${conversation.id}/reply`, {
      key,
      body: { text: 'From the inbox' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'sent',
      channelMessageId: expect.stringMatching(/^wamid\./),
    });
    expect(g.sent.at(-1)!.body).toMatchObject({ type: 'text', text: { body: 'From the inbox' } });
    const text = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: ANN, message: 'Hi Ann!' },
    });
    expect(text.status).toBe(200);
    expect(g.sent.at(-1)!.body).toMatchObject({ type: 'text', text: { body: 'Hi Ann!' } });

    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }));
    const big = await t.request('POST', '/interactive-lists', {
      key,
      body: {
        name: 'Big',
        body: 'Pick one',
        buttonText: 'Options',
        sections: [
          { title: 'A', rows: rows(6) },
          { title: 'B', rows: rows(6).map((r) => ({ ...r, id: `b${r.id}` })) },
        ],
      },
    });
    const tooBig = await t.request('POST', '/api/send-list', {
      key,
      body: { phone: ANN, listId: big.body.id },
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error).toMatchObject({
      code: 'list_limits_exceeded',
      details: { providerLimit: 10 },
    });
    const menu = await t.request('POST', '/interactive-lists', {
      key,
      body: {
        name: 'Menu',
        body: 'How can we help?',
        buttonText: 'Topics',
        sections: [
          {
            title: 'Help',
            rows: [
              { id: 'billing', title: 'Billing' },
              { id: 'orders', title: 'Orders' },
            ],
          },
        ],
      },
    });
    const list = await t.request('POST', '/api/send-list', {
      key,
      body: { phone: ANN, listId: menu.body.id },
    });
    expect(list.status).toBe(200);
    expect(g.sent.at(-1)!.body).toMatchObject({
      type: 'interactive',
      interactive: { type: 'list', action: { button: 'Topics', sections: [{ title: 'Help' }] } },
    });
    // The pick comes back naming the row; context.id finds our list.
    expect(
      await g.post(
        g.inboundListReply({
          from: ANN_WA,
          listRowId: 'billing',
          title: 'Billing',
          contextId: list.body.data.channelMessageId,
        }),
      ),
    ).toBe(200);
    const pick = t.core.db
      .prepare(
        `SELECT * FROM messages WHERE direction = 'inbound' ORDER BY created_at DESC, id DESC LIMIT 1`,
      )
      .get() as { type: string; interactive: string; text: string };
    expect(pick.type).toBe('list');
    expect(JSON.parse(pick.interactive)).toEqual({
      listId: menu.body.id,
      rowId: 'billing',
      title: 'Billing',
    });
    expect(byChannelId(list.body.data.channelMessageId)).toMatchObject({ status: 'sent' });
  });
});

describe('the webhook', () => {
  it('verifies Meta’s handshake and refuses unsigned or mis-signed deliveries, storing nothing', async () => {
    const { webhookUrl, key, g } = await setup();
    const token = (await t.request('GET', '/api/channel', { key })).body.verifyToken as string;
    expect(await g.verify(webhookUrl, token, 'challenge-123')).toMatchObject({
      status: 200,
      body: 'challenge-123',
    });
    expect((await g.verify(webhookUrl, 'wrong-token-xyz', 'c')).status).toBe(403);
    const count = () => t.core.db.prepare(`SELECT count(*) FROM messages`).pluck().get();
    const payload = g.inboundText({ from: ANN_WA, text: 'hi' });
    expect(await g.post(payload, { signature: 'bad' })).toBe(401);
    expect(await g.post(payload, { signature: 'none' })).toBe(401);
    // Signed, but not JSON, or not an envelope (an object whose entry, if any, is an array).
    for (const rawBody of ['{"entry":', '[{"entry":[]}]', 'null', '"x"', '{"entry":{}}']) {
      expect(await g.post(null, { rawBody }), rawBody).toBe(400);
    }
    expect(await g.post(null, { rawBody: '{"object":"whatsapp_business_account"}' })).toBe(200);
    expect(count()).toBe(0);
    expect(await g.post(payload)).toBe(200);
    // Meta redelivers: nothing is stored twice.
    expect(await g.post(payload)).toBe(200);
    expect(count()).toBe(1);
  });

  it('stores every entry and change, keeps unsupported types with a placeholder, moves statuses forward only', async () => {
    const { send, g, byChannelId } = await setup();
    const wamid = (await send()).body.data.channelMessageId as string;
    const both = g.mergeEntries(
      g.inboundText({ from: ANN_WA, text: 'first' }),
      g.envelope([
        g.inboundUnsupported({ from: '14155550999', type: 'unsupported' }),
        g.inboundText({ from: '14155550999', text: 'second 😀' }),
      ]),
    );
    expect(await g.post(both)).toBe(200);
    const texts = t.core.db
      .prepare(`SELECT text FROM messages WHERE direction = 'inbound' ORDER BY text`)
      .pluck()
      .all() as string[];
    expect(texts).toEqual([
      '[an unsupported message — open WhatsApp to see it]',
      'first',
      'second 😀',
    ]);
    // Read arrives before delivered: read stays.
    await g.post(g.status({ wamid, status: 'read', recipient: ANN_WA }));
    await g.post(g.status({ wamid, status: 'delivered', recipient: ANN_WA }));
    await g.post(
      g.status({
        wamid,
        status: 'failed',
        recipient: ANN_WA,
        errors: [{ code: 131026, title: 'Message undeliverable' }],
      }),
    );
    expect(byChannelId(wamid)).toMatchObject({ status: 'read' });
    const types = t.core.db
      .prepare(`SELECT type FROM events WHERE type LIKE 'message.%' ORDER BY seq`)
      .pluck()
      .all();
    expect(types.filter((x) => x === 'message.read')).toHaveLength(1);
    expect(types).not.toContain('message.delivered');
    // A failure with its code, for a message not yet delivered.
    const other = (await send()).body.data.channelMessageId as string;
    await g.post(
      g.status({
        wamid: other,
        status: 'failed',
        recipient: ANN_WA,
        errors: [{ code: 131049, title: 'Not delivered to maintain healthy ecosystem engagement' }],
      }),
    );
    expect(byChannelId(other)).toMatchObject({ status: 'failed', error_code: '131049' });
  });

  it('reconciles a send whose answer was lost through biz_opaque_callback_data, and moves templates', async () => {
    const { send, g, message } = await setup({ autoStatuses: true });
    g.dropNext({ processed: true });
    const lost = await send();
    expect(lost.status).toBe(202);
    await g.settled();
    await sleep(50);
    const row = message(lost.body.data.messageId);
    expect(row.status).toBe('read');
    expect(row.channel_message_id).toMatch(/^wamid\./);
    expect(row.dispatching_at).toBeNull();
    expect(g.sent).toHaveLength(1);

    expect(await g.setTemplateStatus('order_update', 'en', 'PAUSED', 'Quality rating low')).toBe(
      200,
    );
    const tpl = await t.request('GET', '/api/templates?name=order_update', { key: t.key('live') });
    expect(tpl.body.data[0].status).toBe('PAUSED');
  });
});

describe('live templates on the Cloud API', () => {
  it('submits, edits and deletes them at Meta; webhooks and sync bring Meta’s verdicts back', async () => {
    const { key, g } = await setup();
    const jobs = t.core.services.scheduler;
    const created = await t.request('POST', '/api/templates', {
      key,
      body: {
        name: 'spring_promo',
        category: 'MARKETING',
        language: 'en_US',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Hello {{1}}' },
          { type: 'BODY', text: 'Save {{2}} today, {{3}}' },
        ],
      },
    });
    expect(created.status).toBe(200);
    await jobs.runDue();
    const submitted = g.templates.find((x) => x.name === 'spring_promo')!;
    expect(submitted).toMatchObject({
      status: 'PENDING',
      language: 'en_US',
      category: 'MARKETING',
    });
    // Meta numbers variables per component.
    expect(JSON.stringify(submitted.components)).toContain('Save {{1}} today, {{2}}');
    const id = created.body.template.id as string;
    const get = async () => (await t.request('GET', `/api/templates/${id}`, { key })).body;
    expect((await get()).status).toBe('PENDING');

    expect(await g.setTemplateStatus('spring_promo', 'en_US', 'APPROVED')).toBe(200);
    expect(await get()).toMatchObject({ status: 'APPROVED' });
    // Usable at once: a provider's approval has no simulated wait.
    const sent = await t.request('POST', '/api/send', {
      key,
      body: {
        phone: ANN,
        templateName: 'spring_promo',
        variables: { 1: 'Ann', 2: '20%', 3: 'Ann' },
      },
    });
    expect(sent.status).toBe(200);
    expect(g.sent.at(-1)!.body).toMatchObject({
      template: {
        components: [
          { type: 'header', parameters: [{ type: 'text', text: 'Ann' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: '20%' },
              { type: 'text', text: 'Ann' },
            ],
          },
        ],
      },
    });

    // An edit goes to Meta as an edit of the same template; Meta's rejection comes back by sync.
    const edited = await t.request('PUT', `/api/templates/${id}/edit`, {
      key,
      body: { components: [{ type: 'BODY', text: 'Save {{1}} now' }] },
    });
    expect(edited.status).toBe(200);
    await jobs.runDue();
    expect(g.requests.some((r) => r.method === 'POST' && r.path.endsWith(`/${submitted.id}`))).toBe(
      true,
    );
    const t2 = g.templates.find((x) => x.name === 'spring_promo')!;
    t2.status = 'REJECTED';
    t2.rejectedReason = 'INVALID_FORMAT';
    const synced = await t.request('POST', '/api/templates/sync', { key });
    expect(synced.status).toBe(200);
    expect(await get()).toMatchObject({ status: 'REJECTED', rejectionReason: 'INVALID_FORMAT' });

    expect((await t.request('DELETE', `/api/templates/${id}`, { key })).status).toBe(200);
    await jobs.runDue();
    expect(g.templates.some((x) => x.name === 'spring_promo')).toBe(false);
  });
});

describe('runners on the Cloud API', () => {
  it('a live campaign hands every recipient to Meta once, and statuses complete its funnel', async () => {
    const { key, g } = await setup({ autoStatuses: true });
    const phones = Array.from({ length: 6 }, (_, i) => `+1415555070${i}`);
    const ids: string[] = [];
    for (const phone of phones) {
      ids.push(
        (
          await t.request('POST', '/api/contacts', {
            key,
            body: { phone, name: `P${phone.slice(-1)}` },
          })
        ).body.id,
      );
    }
    const group = (
      await t.request('POST', '/api/contacts/groups', {
        key,
        body: { name: 'Live', contactIds: ids },
      })
    ).body;
    const campaign = (
      await t.request('POST', '/campaigns', {
        key,
        body: {
          name: 'Live run',
          templateName: 'order_update',
          variables: { 1: '{{contact.name}}', 2: 'B-1' },
          target: { groupId: group.id },
        },
      })
    ).body;
    expect(
      (await t.request('POST', '/campaigns/launch', { key, body: { id: campaign.id } })).status,
    ).toBe(200);
    const deadline = Date.now() + 15_000;
    let progress: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      progress = (await t.request('GET', `/campaigns/${campaign.id}/progress`, { key })).body;
      if (progress.status === 'completed' && progress.read === 6) break;
      await sleep(50);
    }
    expect(progress).toMatchObject({ status: 'completed', sent: 6, read: 6, failed: 0 });
    const to = g.sent
      .filter((s) => s.type === 'template')
      .map((s) => s.to)
      .sort();
    expect(to).toEqual(phones.map((p) => p.slice(1)).sort());
  }, 20_000);
});

describe('what the review found', () => {
  it('a delivery signed with one workspace’s secret never lands in another’s', async () => {
    const { g, send, byChannelId } = await setup();
    const wamid = (await send()).body.data.channelMessageId as string;
    // Workspace B connects its own (fake) app with its own secret.
    const other = t.core.services.workspaces.create('Other');
    t.core.services.workspaces.updateSettings(other.id, { allowPrivateWebhooks: true });
    const gB = await startFakeGraph({
      phoneNumberId: '109999999999999',
      wabaId: '209999999999999',
      appSecret: 'b-secret-0123456789',
    });
    try {
      const put = await t.request('PUT', '/api/channel', {
        session: 'live',
        headers: { 'x-parley-workspace': other.id },
        body: {
          provider: 'cloud_api',
          phoneNumberId: gB.phoneNumberId,
          wabaId: gB.wabaId,
          accessToken: gB.accessToken,
          appSecret: gB.appSecret,
          graphBaseUrl: gB.baseUrl,
        },
      });
      expect(put.status).toBe(200);
      // B signs (validly, with its own secret) a payload naming A's number and A's message.
      const forged = g.mergeEntries(
        g.inboundText({ from: ANN_WA, text: 'Please refund order 42 to IBAN …' }),
        g.status({
          wamid,
          status: 'failed',
          recipient: ANN_WA,
          errors: [{ code: 131026, title: 'x' }],
        }),
      );
      const { createHmac } = await import('node:crypto');
      const raw = JSON.stringify(forged);
      const url = `http://127.0.0.1:${(t.core.app.server.address() as { port: number }).port}/channel/webhook`;
      const post = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${createHmac('sha256', gB.appSecret).update(raw).digest('hex')}`,
        },
        body: raw,
      });
      expect(post.status).toBe(200);
      expect(
        t.core.db
          .prepare(`SELECT count(*) FROM messages WHERE direction = 'inbound'`)
          .pluck()
          .get(),
      ).toBe(0);
      expect(byChannelId(wamid)).toMatchObject({ status: 'sent' });
    } finally {
      await gB.close();
    }
  });

  it('sends the token only where it was given for; a retry of a refused send hears the refusal', async () => {
    const { key, g, send } = await setup();
    const moved = await t.request('PUT', '/api/channel', {
      session: 'live',
      body: { graphBaseUrl: 'http://127.0.0.1:9/v21.0' },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.param).toBe('accessToken');
    g.failNext({ code: 131026 });
    const headers = { 'idempotency-key': 'refund-me-once' };
    const body = { phone: ANN, templateName: 'order_update', variables: { 1: 'Ann', 2: 'A-1' } };
    const first = await t.request('POST', '/api/send', { key, body, headers });
    expect(first.status).toBe(422);
    const again = await t.request('POST', '/api/send', { key, body, headers });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('recipient_invalid');
    expect(g.sent).toHaveLength(0);
    // The same key never sends again.
    expect((await send()).status).toBe(200);
  });

  it('a message in flight when the channel is switched off fails and is refunded', async () => {
    const { g, send, message } = await setup();
    const balance = () => t.core.services.wallet.get(t.workspaceId).balanceMicros;
    const before = balance();
    g.dropNext();
    const lost = await send();
    expect(lost.status).toBe(202);
    await t.request('PUT', '/api/channel', { session: 'live', body: { provider: 'simulated' } });
    // The delivery job finds no provider any more.
    t.core.db.prepare(`UPDATE jobs SET run_at = 0 WHERE kind = 'message.deliver'`).run();
    await t.core.services.scheduler.runDue();
    expect(message(lost.body.data.messageId)).toMatchObject({
      status: 'failed',
      error_code: 'channel_disconnected',
    });
    expect(balance()).toBe(before);
  });
});
