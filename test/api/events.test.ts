import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';
import { readEvents } from '../sse.ts';

let t: TestCore;
afterEach(async () => {
  await t?.close();
});

async function listening(opts: Parameters<typeof makeCore>[0] = {}) {
  t = await makeCore(opts);
  const { url } = await t.core.start({ port: 0 });
  return url;
}

describe('GET /events (SSE)', () => {
  it('streams events of its scope only, filtered by ?types=', async () => {
    const url = await listening();
    const key = t.key('test');
    const live = t.key('live');
    const { events } = await readEvents(
      `${url}/events?types=message.received`,
      { 'x-api-key': key },
      2,
      async () => {
        await t.request('POST', '/api/simulator/inbound', {
          key,
          body: { phone: '+14155552671', message: 'one' },
        });
        await t.request('POST', '/api/templates', {
          key,
          body: {
            name: 'x',
            category: 'UTILITY',
            language: 'en',
            components: [{ type: 'BODY', text: 'b' }],
          },
        });
        await t.request('POST', '/api/templates', {
          key: live,
          body: {
            name: 'y',
            category: 'UTILITY',
            language: 'en',
            components: [{ type: 'BODY', text: 'b' }],
          },
        });
        await t.request('POST', '/api/simulator/inbound', {
          key,
          body: { phone: '+14155552672', message: 'two' },
        });
      },
    );
    expect(events.map((e) => e.event)).toEqual(['message.received', 'message.received']);
    expect(events.map((e) => (e.data.data.message as { text: string }).text)).toEqual([
      'one',
      'two',
    ]);
    expect(events[0]!.data).toMatchObject({
      type: 'message.received',
      environment: 'test',
      workspaceId: t.workspaceId,
    });
    expect(events[0]!.data.id).toMatch(/^evt_/);
    expect(Number(events[1]!.id)).toBeGreaterThan(Number(events[0]!.id));
  });

  it('resumes after Last-Event-ID without gaps or duplicates', async () => {
    const url = await listening();
    const key = t.key();
    for (let i = 0; i < 5; i++) {
      await t.request('POST', '/api/simulator/inbound', {
        key,
        body: { phone: '+14155552671', message: `m${i}` },
      });
    }
    const all = await readEvents(
      `${url}/events?types=message.received`,
      { 'x-api-key': key, 'last-event-id': '0' },
      5,
    );
    expect(all.events.map((e) => (e.data.data.message as { text: string }).text)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
    ]);
    const resumed = await readEvents(
      `${url}/events?types=message.received`,
      { 'x-api-key': key, 'last-event-id': all.events[2]!.id },
      3,
      () =>
        t
          .request('POST', '/api/simulator/inbound', {
            key,
            body: { phone: '+14155552671', message: 'm5' },
          })
          .then(() => {}),
    );
    expect(resumed.events.map((e) => (e.data.data.message as { text: string }).text)).toEqual([
      'm3',
      'm4',
      'm5',
    ]);
  });

  it('sends heartbeats, refuses bad filters and needs a key', async () => {
    const url = await listening({ heartbeatMs: 30 });
    const key = t.key();
    const controller = new AbortController();
    const res = await fetch(`${url}/events`, {
      headers: { 'x-api-key': key },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': ping')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(
      (await fetch(`${url}/events?types=nope`, { headers: { 'x-api-key': key } })).status,
    ).toBe(400);
    expect((await fetch(`${url}/events`)).status).toBe(401);
  });
});
