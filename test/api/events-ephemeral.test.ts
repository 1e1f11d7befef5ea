import { afterEach, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';
import { readEvents } from '../sse.ts';

/**
 * The hub's ephemeral path (presence, viewing, typing): written to the streams open now, to an
 * audience when given, and nowhere else — not stored, not replayed, no id, never a webhook.
 */
let t: TestCore;
afterEach(async () => {
  await t?.close();
});

it('reaches the open streams of its scope (its audience only, when given), and is never stored or replayed', async () => {
  // Heartbeats wake the readers that wait for nothing, so they can stop at their deadlines.
  t = await makeCore({ heartbeatMs: 100 });
  const { url } = await t.core.start({ port: 0 });
  const { hub, db } = t.core.services;
  const ana = t.agent('Ana', 'ana@example.com');
  const scope = { workspaceId: t.workspaceId, environment: 'test' as const };
  const stored = () => db.prepare('SELECT count(*) FROM events').pluck().get() as number;
  const before = stored();
  const key = t.key('test');
  let reached: number[] = [];
  const [asAna, anyone, live] = await Promise.all([
    readEvents(`${url}/events`, { 'x-api-key': key, 'x-parley-agent': ana.id }, 2),
    readEvents(`${url}/events`, { 'x-api-key': key }, 1),
    // Another scope hears nothing (it ends at its own short deadline).
    readEvents(`${url}/events`, { 'x-api-key': t.key('live') }, 1, undefined, 1500),
    (async () => {
      // Each stream has subscribed once the hub counts three readers of some scope.
      for (let i = 0; i < 200 && hubReaders(hub) < 3; i++)
        await new Promise((r) => setTimeout(r, 10));
      reached = [
        hub.publish(
          scope,
          'conversation.typing',
          { conversationId: 'conv_1', memberId: 'agt_x' },
          {
            audience: [ana.id],
          },
        ),
        hub.publish(scope, 'presence.updated', { memberId: ana.id, status: 'online' }),
      ];
    })(),
  ]);
  expect(reached).toEqual([1, 2]);
  expect(asAna.events.map((e) => e.event)).toEqual(['conversation.typing', 'presence.updated']);
  expect(asAna.events.every((e) => e.id === undefined)).toBe(true);
  expect(asAna.events[0]!.data).toMatchObject({
    type: 'conversation.typing',
    workspaceId: t.workspaceId,
    environment: 'test',
    data: { conversationId: 'conv_1', memberId: 'agt_x' },
  });
  expect(anyone.events.map((e) => e.event)).toEqual(['presence.updated']);
  expect(live.events).toEqual([]);
  expect(stored()).toBe(before);
  // A reader resuming from the start replays stored events only.
  const resumed = await readEvents(
    `${url}/events`,
    { 'x-api-key': key, 'last-event-id': '0' },
    1,
    undefined,
    1000,
  );
  expect(
    resumed.events.filter(
      (e) => e.event.startsWith('presence') || e.event.startsWith('conversation.typing'),
    ),
  ).toEqual([]);
});

it('accepts the ephemeral types in ?types= filters', async () => {
  t = await makeCore();
  // HEAD answers after the same checks GET makes, without opening a stream.
  const head = (types: string) =>
    t.core.app.inject({
      method: 'HEAD',
      url: `/events?types=${types}`,
      headers: { 'x-api-key': t.key('test') },
    });
  expect((await head('presence.updated,conversation.typing,message.received')).statusCode).toBe(
    200,
  );
  expect((await head('presence.typo')).statusCode).toBe(400);
});

/** How many readers the hub serves now (for waiting until every stream subscribed). */
function hubReaders(hub: TestCore['core']['services']['hub']): number {
  return hub.readers();
}
