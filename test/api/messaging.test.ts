import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const ANN = '+14155552671';
const tpl = (name = 'order_update', category = 'UTILITY') => ({
  name,
  category,
  language: 'en',
  components: [{ type: 'BODY', text: 'Hello {{1}}, your order {{2}} has shipped.' }],
});

/** A core on a manual clock with an approved template in test and live. */
async function setup() {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const live = t.key('live');
  const jobs = t.core.services.scheduler;
  for (const k of [key, live]) {
    const id = (await t.request('POST', '/api/templates', { key: k, body: tpl() })).body.template
      .id;
    t.core.services.templates.decide(
      k === key
        ? { workspaceId: t.workspaceId, environment: 'test' }
        : { workspaceId: t.workspaceId, environment: 'live' },
      id,
      'approve',
    );
  }
  clock.advance(600_000); // past the live post-approval wait
  await jobs.runDue();
  const send = (k: string, body: Record<string, unknown> = {}) =>
    t.request('POST', '/api/send', {
      key: k,
      body: {
        phone: ANN,
        templateName: 'order_update',
        variables: { '1': 'Ann', '2': 'A-1' },
        ...body,
      },
    });
  return { clock, key, live, jobs, send };
}

const balance = () => t.core.services.wallet.get(t.workspaceId).balanceMicros;
const messagesOf = async (key: string, phone = ANN) =>
  (await t.request('GET', `/messages?phone=${encodeURIComponent(phone)}`, { key })).body.data;

describe('POST /api/send', () => {
  it('answers exactly per spec §2.2 and creates the contact and conversation', async () => {
    const { key, send } = await setup();
    const res = await send(key);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual([
      'channelMessageId',
      'contactId',
      'phone',
      'templateName',
      'wabaId',
    ]);
    expect(res.body.data).toMatchObject({ phone: ANN, templateName: 'order_update' });
    expect(res.body.data.wabaId).toBe(
      (await t.request('GET', '/api/me', { key })).body.businessAccount.id,
    );
    const contact = await t.request('GET', `/api/contacts/${res.body.data.contactId}`, { key });
    expect(contact.body.phone).toBe(ANN);
    const [m] = await messagesOf(key);
    expect(m).toMatchObject({
      status: 'accepted',
      direction: 'outbound',
      type: 'template',
      text: 'Hello Ann, your order A-1 has shipped.',
      environment: 'test',
      costMicros: 0,
      channelMessageId: res.body.data.channelMessageId,
    });
  });

  it('opens a conversation with one conversation.created carrying the message, the JSON the API serves', async () => {
    const { key, send } = await setup();
    const types = () =>
      t.core.db
        .prepare("SELECT type FROM events WHERE type LIKE 'conversation.%' ORDER BY seq")
        .pluck()
        .all() as string[];
    const res = await send(key);
    expect(types()).toEqual(['conversation.created']);
    const created = JSON.parse(
      t.core.db
        .prepare("SELECT data FROM events WHERE type = 'conversation.created'")
        .pluck()
        .get() as string,
    ).conversation;
    const [listed] = (await t.request('GET', '/conversations', { key })).body.data;
    // Built from the rows in hand, not read back: the same keys in the same order, the same values.
    expect(JSON.stringify(created)).toBe(JSON.stringify(listed));
    expect(created.lastMessage).toMatchObject({
      status: 'accepted',
      channelMessageId: res.body.data.channelMessageId,
    });
    // A send to a conversation that exists moves it.
    await send(key);
    expect(types()).toEqual(['conversation.created', 'conversation.updated']);
  });

  it('refuses unknown (case-sensitive), unapproved, paused and not-yet-usable templates', async () => {
    const { clock, key, live, send } = await setup();
    expect((await send(key, { templateName: 'Order_Update' })).body.error.code).toBe(
      'template_not_found',
    );
    expect((await send(key, { templateName: 'Order_Update' })).status).toBe(404);
    const pending = (await t.request('POST', '/api/templates', { key, body: tpl('pending_one') }))
      .body.template.id;
    const r1 = await send(key, { templateName: 'pending_one' });
    expect(r1.status).toBe(422);
    expect(r1.body.error.code).toBe('template_not_approved');
    await t.request('POST', `/api/simulator/templates/${pending}/review`, {
      key,
      body: { decision: 'approve' },
    });
    await t.request('POST', `/api/simulator/templates/${pending}/review`, {
      key,
      body: { decision: 'pause' },
    });
    expect((await send(key, { templateName: 'pending_one' })).body.error.code).toBe(
      'template_paused',
    );
    // Live templates wait ~10 minutes after approval.
    const liveTpl = (await t.request('POST', '/api/templates', { key: live, body: tpl('fresh') }))
      .body.template.id;
    t.core.services.templates.decide(
      { workspaceId: t.workspaceId, environment: 'live' },
      liveTpl,
      'approve',
    );
    await t.request('POST', '/api/wallet/topup', {
      session: 'live',
      body: { amountMicros: 1_000_000 },
    });
    const early = await send(live, { templateName: 'fresh' });
    expect(early.status).toBe(422);
    expect(early.body.error.code).toBe('template_not_ready');
    expect(early.body.error.details.usableAt).toBeDefined();
    clock.advance(600_000);
    expect((await send(live, { templateName: 'fresh' })).status).toBe(200);
  });

  it('checks the variables against the placeholders', async () => {
    const { key, send } = await setup();
    for (const variables of [
      {},
      { '1': 'a' },
      { '1': 'a', '2': 'b', '3': 'c' },
      { '1': 'a', '3': 'b' },
    ]) {
      const res = await send(key, { variables });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('template_variables_mismatch');
      expect(res.body.error.details.expected).toEqual(['1', '2']);
    }
    const badKey = await send(key, { variables: { one: 'a' } });
    expect(badKey.body.error.code).toBe('validation_error');
    const badPhone = await send(key, { phone: '4155552671' });
    expect(badPhone.body.error.param).toBe('phone');
    expect(await messagesOf(key)).toEqual([]);
  });

  it('replays a POST with the same Idempotency-Key instead of sending twice', async () => {
    const { key } = await setup();
    const body = {
      phone: ANN,
      templateName: 'order_update',
      variables: { '1': 'Ann', '2': 'A-1' },
    };
    const headers = { 'idempotency-key': 'send-1' };
    const a = await t.request('POST', '/api/send', { key, body, headers });
    const b = await t.request('POST', '/api/send', { key, body, headers });
    expect(b.body).toEqual(a.body);
    expect(await messagesOf(key)).toHaveLength(1);
  });
});

describe('status simulation', () => {
  it('moves accepted → sent → delivered → read, with an event for each', async () => {
    const { clock, key, jobs, send } = await setup();
    await send(key);
    await jobs.runDue();
    expect((await messagesOf(key))[0].status).toBe('sent');
    clock.advance(1_100); // delivery latency 800 ms ±25%
    await jobs.runDue();
    expect((await messagesOf(key))[0].status).toBe('delivered');
    clock.advance(4_000);
    await jobs.runDue();
    const [m] = await messagesOf(key);
    expect(m.status).toBe('read');
    expect(m.sentAt <= m.deliveredAt && m.deliveredAt <= m.readAt).toBe(true);
    const types = (
      t.core.db.prepare('SELECT type FROM events ORDER BY seq').pluck().all() as string[]
    ).filter((x) => x.startsWith('message.'));
    expect(types).toEqual(['message.sent', 'message.delivered', 'message.read']);
  });

  it('plays the magic numbers: always fails, fails once then succeeds, never read', async () => {
    const { clock, key, jobs, send } = await setup();
    await send(key, { phone: '+15550000001' });
    await send(key, { phone: '+15550000002' });
    await send(key, { phone: '+15550000003' });
    await jobs.runDue();
    const [failed] = await messagesOf(key, '+15550000001');
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: '131026', message: 'Message undeliverable' });
    expect((await messagesOf(key, '+15550000002'))[0].status).toBe('accepted'); // retrying
    clock.advance(1_000);
    await jobs.runDue();
    expect((await messagesOf(key, '+15550000002'))[0].status).toBe('sent');
    clock.advance(60_000);
    await jobs.runDue();
    expect((await messagesOf(key, '+15550000002'))[0].status).toBe('read');
    expect((await messagesOf(key, '+15550000003'))[0].status).toBe('delivered');
  });

  it('is deterministic for a seed', async () => {
    const { clock, key, jobs, send } = await setup();
    await t.request('PUT', '/api/simulator/settings', {
      key,
      body: { deliveryLatencyMs: 1000, readLatencyMs: 1000, seed: 7 },
    });
    await send(key);
    await jobs.runDue();
    // The receipts' jobs (one per status), each with its message's time.
    const due = (
      t.core.db
        .prepare("SELECT payload FROM jobs WHERE kind = 'message.receipts' ORDER BY run_at")
        .pluck()
        .all() as string[]
    ).flatMap((p) =>
      (JSON.parse(p) as { receipts: [string, string, number][] }).receipts.map(
        ([, , at]) => at - clock.now(),
      ),
    );
    expect(due).toHaveLength(2);
    // Same seed and message → same schedule: recompute from the channel itself.
    const [m] = await messagesOf(key);
    const channel = t.core.services.channel;
    if (channel.kind !== 'local') throw new Error('the simulated channel is local');
    const outcome = channel.handOver(
      { ...m, workspaceId: t.workspaceId, templateName: m.templateName, variables: m.variables },
      1,
    );
    expect(outcome.ok && outcome.followUps.map((f) => f.delayMs)).toEqual(due);
    // The configured latencies hold (±25%), and another seed gives another schedule.
    const [delivered, read] = due as [number, number];
    expect(delivered).toBeGreaterThanOrEqual(750);
    expect(delivered).toBeLessThanOrEqual(1250);
    expect(read - delivered).toBeGreaterThanOrEqual(750);
    expect(read - delivered).toBeLessThanOrEqual(1250);
    await t.request('PUT', '/api/simulator/settings', { key, body: { seed: 8 } });
    const other = channel.handOver(
      { ...m, workspaceId: t.workspaceId, templateName: m.templateName, variables: m.variables },
      1,
    );
    expect(other.ok && other.followUps.map((f) => f.delayMs)).not.toEqual(due);
  });

  it('keeps the messaging tier and throughput on the business account', async () => {
    const { key } = await setup();
    const put = await t.request('PUT', '/api/simulator/settings', {
      key,
      body: { messagingTier: 10000, throughputMps: 20 },
    });
    expect(put.body).toMatchObject({ messagingTier: 10000, throughputMps: 20, seed: 42 });
    const me = await t.request('GET', '/api/me', { key });
    expect(me.body.businessAccount).toMatchObject({ messagingTier: 10000, throughputMps: 20 });
  });
});

describe('service window and free text', () => {
  it('refuses text before the contact wrote and after 24 h; allows it inside the window', async () => {
    const { clock, key, send } = await setup();
    await send(key);
    const closed = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: ANN, message: 'hi' },
    });
    expect(closed.status).toBe(422);
    expect(closed.body.error.code).toBe('outside_service_window');
    expect(closed.body.error.details.channelCode).toBe(131047);
    const inbound = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: ANN, message: 'Where is it?' },
    });
    expect(inbound.body).toMatchObject({
      direction: 'inbound',
      status: 'received',
      text: 'Where is it?',
    });
    const text = 'On its way 🚚 '.repeat(10);
    const ok = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: ANN, message: text },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ phone: ANN, conversationId: inbound.body.conversationId });
    expect((await messagesOf(key))[0].text).toBe(text);
    const tooLong = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: ANN, message: 'x'.repeat(4097) },
    });
    expect(tooLong.body.error.param).toBe('message');
    clock.advance(24 * 3600_000);
    const later = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: ANN, message: 'hi' },
    });
    expect(later.body.error.code).toBe('outside_service_window');
    // An inbound message with a past receivedAt opens the window from that time.
    const past = new Date(clock.now() - 23 * 3600_000).toISOString();
    await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: ANN, message: 'again', receivedAt: past },
    });
    expect(
      (await t.request('POST', '/api/send-text', { key, body: { phone: ANN, message: 'hi' } }))
        .status,
    ).toBe(200);
  });

  it('keeps the simulator to test keys', async () => {
    const { live } = await setup();
    for (const [method, url, body] of [
      ['POST', '/api/simulator/inbound', { phone: ANN, message: 'x' }],
      ['GET', '/api/simulator/settings', undefined],
      ['PUT', '/api/simulator/settings', { seed: 1 }],
    ] as const) {
      const res = await t.request(method, url, { key: live, ...(body ? { body } : {}) });
      expect(res.status).toBe(403);
    }
  });
});

describe('GET /messages', () => {
  it('lists newest first with a cursor, by conversation, contact or phone (exactly one)', async () => {
    const { key, send } = await setup();
    for (let i = 0; i < 5; i++) await send(key, { variables: { '1': 'Ann', '2': `A-${i}` } });
    const first = await t.request('GET', `/messages?phone=${encodeURIComponent(ANN)}&limit=2`, {
      key,
    });
    expect(first.body.data.map((m: { text: string }) => m.text.match(/A-\d/)![0])).toEqual([
      'A-4',
      'A-3',
    ]);
    const next = await t.request(
      'GET',
      `/messages?phone=${encodeURIComponent(ANN)}&limit=2&cursor=${first.body.nextCursor}`,
      { key },
    );
    expect(next.body.data.map((m: { text: string }) => m.text.match(/A-\d/)![0])).toEqual([
      'A-2',
      'A-1',
    ]);
    const m = first.body.data[0];
    const byConv = await t.request('GET', `/messages?conversationId=${m.conversationId}&limit=1`, {
      key,
    });
    expect(byConv.body.data[0]).toEqual(m);
    const byContact = await t.request('GET', `/messages?contactId=${m.contactId}&limit=1`, { key });
    expect(byContact.body.data[0]).toEqual(m);
    expect((await t.request('GET', '/messages', { key })).body.error.code).toBe('validation_error');
    expect(
      (
        await t.request(
          'GET',
          `/messages?contactId=${m.contactId}&conversationId=${m.conversationId}`,
          { key },
        )
      ).status,
    ).toBe(400);
    // Another scope sees nothing.
    expect(
      (
        await t.request('GET', `/messages?conversationId=${m.conversationId}`, {
          key: t.key('live'),
        })
      ).body.data,
    ).toEqual([]);
  });

  it('shows a message in lists exactly as its events carry it', async () => {
    const { key, jobs, send } = await setup();
    await send(key, { phone: '+15550000001' });
    await jobs.runDue();
    const [listed] = await messagesOf(key, '+15550000001');
    const event = JSON.parse(
      t.core.db
        .prepare("SELECT data FROM events WHERE type = 'message.failed'")
        .pluck()
        .get() as string,
    );
    expect(listed).toEqual(event.message);
  });
});

describe('wallet charging', () => {
  it('debits a live send by its category price in the same transaction; test sends never touch the wallet', async () => {
    const { live, key, send } = await setup();
    await t.request('POST', '/api/wallet/topup', {
      session: 'live',
      body: { amountMicros: 1_000_000 },
    });
    await send(key);
    expect(balance()).toBe(1_000_000);
    const res = await send(live);
    expect(res.status).toBe(200);
    expect(balance()).toBe(1_000_000 - 5_000);
    const [m] = await messagesOf(live);
    expect(m).toMatchObject({ costMicros: 5_000, category: 'UTILITY', environment: 'live' });
    const [entry] = (await t.request('GET', '/api/wallet/transactions?limit=1', { key: live })).body
      .data;
    expect(entry).toMatchObject({ type: 'charge', amountMicros: -5_000, reference: m.id });
    expect((await t.request('GET', '/api/wallet/prices', { key: live })).body).toEqual({
      MARKETING: 25_000,
      UTILITY: 5_000,
      AUTHENTICATION: 4_000,
      SERVICE: 0,
    });
  });

  it('sends nothing with 402 insufficient_balance', async () => {
    const { live, send } = await setup();
    await t.request('POST', '/api/wallet/topup', {
      session: 'live',
      body: { amountMicros: 4_999 },
    });
    const res = await send(live);
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('insufficient_balance');
    expect(res.body.error.details).toEqual({ balanceMicros: 4_999, priceMicros: 5_000 });
    expect(balance()).toBe(4_999);
    expect(t.core.db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(0);
    expect((await t.request('GET', '/api/contacts', { key: live })).body.data).toEqual([]); // nothing half-written
  });

  it('refunds a charged send the channel fails', async () => {
    const { live, jobs, send } = await setup();
    await t.request('POST', '/api/wallet/topup', {
      session: 'live',
      body: { amountMicros: 1_000_000 },
    });
    await send(live, { phone: '+15550000001' });
    expect(balance()).toBe(995_000);
    await jobs.runDue();
    expect(balance()).toBe(1_000_000);
    const [refund] = (await t.request('GET', '/api/wallet/transactions?limit=1', { key: live }))
      .body.data;
    expect(refund).toMatchObject({ type: 'refund', amountMicros: 5_000 });
    expect(t.core.services.wallet.ledgerSum(t.workspaceId)).toBe(balance());
  });

  it('emits wallet.low_balance when a charge crosses the threshold', async () => {
    const { live, send } = await setup();
    await t.request('PATCH', '/api/workspace/settings', {
      session: 'live',
      body: { lowBalanceThresholdMicros: 1_000_000 },
    });
    await t.request('POST', '/api/wallet/topup', {
      session: 'live',
      body: { amountMicros: 1_008_000 },
    });
    await send(live); // 1,003,000: above
    await send(live); //   998,000: crosses
    await send(live); //   993,000: already below
    const events = t.core.db
      .prepare("SELECT data FROM events WHERE type = 'wallet.low_balance'")
      .pluck()
      .all() as string[];
    expect(events.map((e) => JSON.parse(e))).toEqual([
      { balanceMicros: 998_000, thresholdMicros: 1_000_000 },
    ]);
  });
});
