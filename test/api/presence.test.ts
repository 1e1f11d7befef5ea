import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';
import type { SseEvent } from '../sse.ts';
import { followEvents } from '../sse.ts';

/**
 * Working together (design.md §6): presence (online / away / offline) and who is viewing or
 * typing, as ephemeral events on the stream — in memory only, never stored, never a webhook.
 */
let t: TestCore;
afterEach(async () => t?.close());

const MINUTE = 60_000;

/** A started core on a clock the test moves, with a webhook that would see any stored event. */
async function start() {
  const clock = manualClock();
  t = await makeCore({ clock, heartbeatMs: 200 });
  const { url } = await t.core.start({ port: 0 });
  const { db } = t.core.services;
  const count = (table: string) =>
    db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  const key = t.key('test');
  await t.request('PATCH', '/api/workspace/settings', {
    session: 'test',
    body: { allowPrivateWebhooks: true },
  });
  const hook = await t.request('POST', '/webhooks', {
    key,
    body: { url: 'http://127.0.0.1:9/never' },
  });
  expect(hook.status).toBe(201);
  const stored = () => ({ events: count('events'), deliveries: count('webhook_deliveries') });
  const stream = (cookie: string) =>
    followEvents(`${url}/events`, { cookie: `parley_session=${cookie}` });
  return { clock, key, stored, stream };
}

const presenceOf = async (cookie: string) => {
  const res = await t.request('GET', '/api/presence', { cookie });
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (res.body.data as { memberId: string; status: string }[]).map((p) => [p.memberId, p.status]),
  );
};

const presenceEvent = (memberId: string, status: string) => (e: SseEvent) =>
  e.event === 'presence.updated' &&
  e.data.data.memberId === memberId &&
  e.data.data.status === status;

describe('presence', () => {
  it('online with a stream open, away after 5 minutes without input, offline when the stream closes', async () => {
    const { clock, stored, stream } = await start();
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const ben = await t.member({ name: 'Ben', role: 'agent' });
    const before = stored();

    const bens = await stream(ben.cookie);
    expect(await presenceOf(ben.cookie)).toMatchObject({ [ben.id]: 'online', [ana.id]: 'offline' });

    const anas = await stream(ana.cookie);
    const online = await bens.waitFor(presenceEvent(ana.id, 'online'));
    // Ephemeral: no id, so it never moves a reader's Last-Event-ID.
    expect(online.id).toBeUndefined();
    expect(online.data).toMatchObject({ type: 'presence.updated', workspaceId: t.workspaceId });

    // Ben has input after 4 minutes, Ana none: at 5 minutes she is away, he is not.
    clock.advance(4 * MINUTE);
    const report = await t.request('POST', '/api/presence', {
      cookie: ben.cookie,
      body: { state: 'active' },
    });
    expect(report.body).toEqual({ memberId: ben.id, status: 'online' });
    clock.advance(MINUTE);
    expect(await presenceOf(ben.cookie)).toMatchObject({ [ben.id]: 'online', [ana.id]: 'away' });
    await bens.waitFor(presenceEvent(ana.id, 'away'));

    // Input brings her back; a client saying idle makes her away at once.
    expect(
      (await t.request('POST', '/api/presence', { cookie: ana.cookie, body: { state: 'active' } }))
        .body.status,
    ).toBe('online');
    await bens.waitFor((e) => presenceEvent(ana.id, 'online')(e) && e !== online);
    expect(
      (await t.request('POST', '/api/presence', { cookie: ana.cookie, body: { state: 'idle' } }))
        .body.status,
    ).toBe('away');

    // Her last stream closes: offline at once, and everyone hears it.
    anas.close();
    await bens.waitFor(presenceEvent(ana.id, 'offline'));
    expect(await presenceOf(ben.cookie)).toMatchObject({ [ana.id]: 'offline', [ben.id]: 'online' });

    // Each transition went out once, in order; none was stored or became a webhook delivery.
    expect(
      bens.events
        .filter((e) => e.event === 'presence.updated' && e.data.data.memberId === ana.id)
        .map((e) => e.data.data.status),
    ).toEqual(['online', 'away', 'online', 'away', 'offline']);
    expect(stored()).toEqual(before);
    bens.close();
  });

  it('counts every window of a member: away only when none has input, offline when all close', async () => {
    const { clock, stream } = await start();
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const ben = await t.member({ name: 'Ben', role: 'agent' });
    const bens = await stream(ben.cookie);
    const first = await stream(ana.cookie);
    const second = await stream(ana.cookie);
    first.close();
    // One stream of hers is still open: she stays online (no offline in between).
    await t.request('POST', '/api/presence', { cookie: ben.cookie, body: { state: 'active' } });
    expect((await presenceOf(ben.cookie))[ana.id]).toBe('online');
    clock.advance(5 * MINUTE);
    expect((await presenceOf(ben.cookie))[ana.id]).toBe('away');
    second.close();
    await bens.waitFor(presenceEvent(ana.id, 'offline'));
    expect(bens.events.filter((e) => presenceEvent(ana.id, 'offline')(e)).length).toBe(1);
    bens.close();
  });

  it('is a signed-in member’s: an API key has no presence', async () => {
    t = await makeCore();
    const res = await t.request('POST', '/api/presence', {
      key: t.key('test'),
      body: { state: 'active' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/API key has none/);
    expect(res.body.error.details).toBeUndefined();
    // Reading the team's presence is fine for a script.
    expect((await t.request('GET', '/api/presence', { key: t.key('test') })).status).toBe(200);
    const bad = await t.request('POST', '/api/presence', { session: 'test', body: { state: 'x' } });
    expect(bad.status).toBe(400);
  });
});

describe('viewing and typing', () => {
  it('reach the other members’ streams, never the sender’s; repeats within 3 s are dropped; nothing is stored', async () => {
    const { clock, key, stored, stream } = await start();
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const ben = await t.member({ name: 'Ben', role: 'agent' });
    const inbound = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+4915112345678', message: 'Hello?' },
    });
    const conv = inbound.body.conversationId as string;
    const anas = await stream(ana.cookie);
    const bens = await stream(ben.cookie);
    await anas.waitFor(presenceEvent(ben.id, 'online'));
    const before = stored();
    const signal = (cookie: string, kind: 'viewing' | 'typing', id = conv) =>
      t.request('POST', `/conversations/${id}/${kind}`, { cookie });

    expect((await signal(ana.cookie, 'viewing')).status).toBe(204);
    expect((await signal(ana.cookie, 'typing')).status).toBe(204);
    // Within 3 s: answered the same, sent to nobody.
    expect((await signal(ana.cookie, 'typing')).status).toBe(204);
    clock.advance(1000);
    expect((await signal(ana.cookie, 'viewing')).status).toBe(204);
    // Ben's signal comes after Ana's on every stream: once Ana has his, she would have had hers.
    expect((await signal(ben.cookie, 'viewing')).status).toBe(204);
    await anas.waitFor((e) => e.event === 'conversation.viewing');
    await bens.waitFor((e) => e.event === 'conversation.typing');

    const signals = (s: { events: SseEvent[] }) =>
      s.events
        .filter((e) => e.event.startsWith('conversation.'))
        .map((e) => [e.event, e.data.data.memberId, e.data.data.conversationId]);
    expect(signals(bens)).toEqual([
      ['conversation.viewing', ana.id, conv],
      ['conversation.typing', ana.id, conv],
    ]);
    expect(signals(anas)).toEqual([['conversation.viewing', ben.id, conv]]);

    // 3 s after the last one went out, the next goes out again.
    clock.advance(2000);
    await signal(ana.cookie, 'typing');
    await signal(ben.cookie, 'typing');
    await anas.waitFor((e) => e.event === 'conversation.typing');
    expect(signals(bens).filter(([type]) => type === 'conversation.typing')).toHaveLength(2);

    // A page opened now learns who is there; each signal lasts 6 s.
    const viewers = await t.request('GET', `/conversations/${conv}/viewers`, {
      cookie: ben.cookie,
    });
    expect(viewers.status).toBe(200);
    expect(viewers.body.data).toEqual([
      { memberId: ana.id, name: 'Ana', typing: true, lastSeenAt: expect.any(String) },
    ]);
    clock.advance(6000);
    expect(
      (await t.request('GET', `/conversations/${conv}/viewers`, { cookie: ben.cookie })).body.data,
    ).toEqual([]);

    // Nothing of it was stored, so nothing of it can reach a webhook.
    expect(stored()).toEqual(before);
    anas.close();
    bens.close();
  });

  it('answer 404 for a conversation out of scope and 403 for an API key', async () => {
    t = await makeCore();
    const key = t.key('test');
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const inbound = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+4915112345678', message: 'Hello?' },
    });
    const conv = inbound.body.conversationId as string;
    expect(
      (await t.request('POST', '/conversations/conv_nothing/typing', { cookie: ana.cookie }))
        .status,
    ).toBe(404);
    // Live mode does not see a test conversation.
    expect(
      (
        await t.request('POST', `/conversations/${conv}/viewing`, {
          cookie: ana.cookie,
          headers: { 'x-parley-environment': 'live' },
        })
      ).status,
    ).toBe(404);
    const byKey = await t.request('POST', `/conversations/${conv}/viewing`, { key });
    expect(byKey.status).toBe(403);
    expect((await t.request('GET', `/conversations/${conv}/viewers`, { key })).body.data).toEqual(
      [],
    );
  });
});
