import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { lastEvent, makeCore, manualClock } from '../helpers.ts';
import type { SseEvent } from '../sse.ts';
import { followEvents } from '../sse.ts';

/**
 * Who works which conversation (design.md §6): auto-assignment round-robin over online agents
 * under capacity, assign on first reply, `@name` mentions in notes, the team view and
 * "reassign all" — with the assignee's and the mentioned member's notifications.
 */
let t: TestCore;
afterEach(async () => t?.close());

const owner = { session: 'test' as const };
const phone = (i: number) => `+49151${String(1000000 + i).padStart(8, '0')}`;

async function start() {
  const clock = manualClock();
  t = await makeCore({ clock, heartbeatMs: 200 });
  const { url } = await t.core.start({ port: 0 });
  const key = t.key('test');
  const stream = (cookie: string) =>
    followEvents(`${url}/events`, { cookie: `parley_session=${cookie}` });
  return { clock, key, stream };
}

/** A customer writes; the answer's conversation id. */
async function inbound(key: string, i: number, message = 'Hello'): Promise<string> {
  const res = await t.request('POST', '/api/simulator/inbound', {
    key,
    body: { phone: phone(i), message },
  });
  expect(res.status).toBe(200);
  return res.body.conversationId as string;
}

const assigneeOf = async (id: string) =>
  (await t.request('GET', `/conversations/${id}`, owner)).body.assignee as string | null;

const team = async () => {
  const res = await t.request('GET', '/api/team/agents', owner);
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (
      res.body.data as {
        id: string;
        status: string;
        capacity: number;
        conversations: { open: number };
      }[]
    ).map((a) => [a.id, a]),
  );
};

const notified = (s: { events: SseEvent[] }, kind: string) =>
  s.events.filter((e) => e.event === 'notification' && e.data.data.kind === kind);

/** Ana, Ben and Cy, signed-in agents (one after the other: their ids sort in that order). */
const threeAgents = async () => [
  await t.member({ name: 'Ana', role: 'agent' }),
  await t.member({ name: 'Ben', role: 'agent' }),
  await t.member({ name: 'Cy', role: 'agent' }),
];

describe('auto-assignment', () => {
  it('goes round-robin over online agents under capacity: 3 agents, 9 conversations, 3 each', async () => {
    const { key, stream } = await start();
    const agents = await threeAgents();
    const admin = await t.member({ name: 'Ada', role: 'admin' });
    const offline = await t.member({ name: 'Dee', role: 'agent' });
    const away = await t.member({ name: 'Eve', role: 'agent' });
    const streams = await Promise.all([...agents, admin, away].map((m) => stream(m.cookie)));
    await t.request('POST', '/api/presence', { cookie: away.cookie, body: { state: 'idle' } });

    // Off by default: nobody gets the first conversation.
    expect(await assigneeOf(await inbound(key, 0))).toBeNull();
    const on = await t.request('PATCH', '/api/workspace/settings', {
      ...owner,
      body: { autoAssign: true },
    });
    expect(on.body).toMatchObject({ autoAssign: true, assignOnFirstReply: true });

    const conversations: string[] = [];
    for (let i = 1; i <= 9; i++) conversations.push(await inbound(key, i));
    const order = await Promise.all(conversations.map(assigneeOf));
    const ids = agents.map((a) => a.id).sort();
    // Fair: each round of three gives one to each, in the same turn order.
    for (let round = 0; round < 3; round++) {
      expect(order.slice(round * 3, round * 3 + 3).sort()).toEqual(ids);
      expect(order.slice(round * 3, round * 3 + 3)).toEqual(order.slice(0, 3));
    }
    // A new message in an assigned conversation keeps its assignee.
    await inbound(key, 1, 'Me again');
    expect(await assigneeOf(conversations[0]!)).toBe(order[0]);

    const view = await team();
    for (const a of agents) {
      expect(view[a.id]).toMatchObject({
        status: 'online',
        capacity: 10,
        conversations: { open: 3 },
      });
    }
    // Not an agent, not online, or away: none.
    expect(view[admin.id]!.conversations.open).toBe(0);
    expect(view[offline.id]).toMatchObject({ status: 'offline', conversations: { open: 0 } });
    expect(view[away.id]).toMatchObject({ status: 'away', conversations: { open: 0 } });

    // Each assignee was told, by nobody (auto-assignment).
    const anas = streams[0]!;
    await anas.waitFor(() => notified(anas, 'assigned').length === 3);
    expect(notified(anas, 'assigned').map((e) => e.data.data)).toEqual(
      conversations
        .filter((_, i) => order[i] === agents[0]!.id)
        .map((conversationId) => ({ kind: 'assigned', conversationId, by: null })),
    );
  });

  it("an inbound message's conversation.updated carries the assignee auto-assignment gave it, as the API serves it", async () => {
    const { key, stream } = await start();
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    await stream(ana.cookie);
    await t.request('PATCH', '/api/workspace/settings', { ...owner, body: { autoAssign: true } });
    const id = await inbound(key, 1);
    const ev = lastEvent(t, 'conversation.updated')!;
    // Assigned inside the message's transaction (after its writes): the event reads it back.
    expect(ev.conversation).toMatchObject({ id, assignee: ana.id });
    const {
      activeRun: _r,
      messages: _m,
      messagesNextCursor: _c,
      ...got
    } = (await t.request('GET', `/conversations/${id}`, owner)).body;
    expect(JSON.stringify(ev.conversation)).toBe(JSON.stringify(got));
  });

  it('stops at capacity (the rest stay unassigned) and fills a freed place on the next message', async () => {
    const { key, stream } = await start();
    const agents = await threeAgents();
    await Promise.all(agents.map((m) => stream(m.cookie)));
    await t.request('PATCH', '/api/workspace/settings', { ...owner, body: { autoAssign: true } });
    for (const a of agents) {
      const res = await t.request('PATCH', `/api/team/agents/${a.id}`, {
        ...owner,
        body: { capacity: 2 },
      });
      expect(res.body).toMatchObject({ id: a.id, capacity: 2, autoAssignable: true });
    }
    const conversations: string[] = [];
    for (let i = 0; i < 9; i++) conversations.push(await inbound(key, i));
    const order = await Promise.all(conversations.map(assigneeOf));
    expect(order.filter((a) => a === null)).toHaveLength(3);
    for (const a of agents) expect(order.filter((x) => x === a.id)).toHaveLength(2);
    expect(order.slice(6)).toEqual([null, null, null]);

    // Ana resolves one: the next message to a waiting conversation goes to her.
    const anasFirst = conversations[order.indexOf(agents[0]!.id)]!;
    await t.request('PATCH', `/conversations/${anasFirst}`, {
      ...owner,
      body: { status: 'resolved' },
    });
    await inbound(key, 6, 'Anyone?');
    expect(await assigneeOf(conversations[6]!)).toBe(agents[0]!.id);
    // Capacity 0: no auto-assigned work at all.
    await t.request('PATCH', `/api/team/agents/${agents[0]!.id}`, {
      ...owner,
      body: { capacity: 0 },
    });
    expect((await team())[agents[0]!.id]).toMatchObject({ capacity: 0, autoAssignable: false });
    const audit = await t.request('GET', '/audit?action=member.capacity_changed', owner);
    expect(audit.body.data[0]).toMatchObject({
      action: 'member.capacity_changed',
      target: { type: 'member', id: agents[0]!.id },
      details: { capacity: { from: 2, to: 0 } },
    });
  });

  it('leaves conversations unassigned when no agent is online', async () => {
    const { key } = await start();
    await t.member({ name: 'Ana', role: 'agent' });
    await t.request('PATCH', '/api/workspace/settings', { ...owner, body: { autoAssign: true } });
    expect(await assigneeOf(await inbound(key, 0))).toBeNull();
  });
});

describe('assign on first reply', () => {
  it('a member’s reply to an unassigned conversation takes it; notes and the setting’s off position do not', async () => {
    t = await makeCore();
    const key = t.key('test');
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const ben = await t.member({ name: 'Ben', role: 'agent' });
    const conv = await inbound(key, 0);
    const reply = (cookie: string, body: Record<string, unknown>) =>
      t.request('POST', `/conversations/${conv}/reply`, { cookie, body });

    expect((await reply(ana.cookie, { text: 'Noted', private: true })).status).toBe(200);
    expect(await assigneeOf(conv)).toBeNull();
    expect((await reply(ana.cookie, { text: 'On it!' })).status).toBe(200);
    expect(await assigneeOf(conv)).toBe(ana.id);
    const updated = t.core.services.db
      .prepare(
        `SELECT data FROM events WHERE type = 'conversation.updated' AND json_extract(data, '$.changes.assignee.to') = ?`,
      )
      .pluck()
      .all(ana.id) as string[];
    expect(updated).toHaveLength(1);
    // Someone else's reply does not take it from her.
    expect((await reply(ben.cookie, { text: 'Me too' })).status).toBe(200);
    expect(await assigneeOf(conv)).toBe(ana.id);

    const off = await t.request('PATCH', '/api/workspace/settings', {
      ...owner,
      body: { assignOnFirstReply: false },
    });
    expect(off.body.assignOnFirstReply).toBe(false);
    const other = await inbound(key, 1);
    await t.request('POST', `/conversations/${other}/reply`, {
      cookie: ben.cookie,
      body: { text: 'Hi' },
    });
    expect(await assigneeOf(other)).toBeNull();
  });
});

describe('mentions', () => {
  it('a note’s @names are stored on it and notify each member named', async () => {
    const { key, stream } = await start();
    const anaL = await t.member({ name: 'Ana López', role: 'agent' });
    await t.member({ name: 'Ana María', role: 'agent' });
    const ben = await t.member({ name: 'Ben Ray', role: 'agent' });
    const cy = await t.member({ name: 'Cy', role: 'admin' });
    const bens = await stream(ben.cookie);
    const conv = await inbound(key, 0);

    const note = await t.request('POST', `/conversations/${conv}/reply`, {
      cookie: cy.cookie,
      body: {
        text: '@ana lópez and @Ben, see ana@example.com (and @Ana, whichever of you)',
        private: true,
      },
    });
    expect(note.status).toBe(200);
    expect(note.body).toMatchObject({ type: 'note', mentions: [anaL.id, ben.id] });
    const listed = await t.request('GET', `/conversations/${conv}/messages`, owner);
    expect(listed.body.data[0]).toMatchObject({ id: note.body.id, mentions: [anaL.id, ben.id] });
    // Other messages mention nobody.
    expect(listed.body.data[1].mentions).toEqual([]);

    const told = await bens.waitFor((e) => e.event === 'notification');
    expect(told.data.data).toEqual({
      kind: 'mention',
      conversationId: conv,
      by: cy.id,
      messageId: note.body.id,
    });
    // The stored event carries the mentions too.
    const event = t.core.services.db
      .prepare(`SELECT data FROM events WHERE type = 'message.note'`)
      .pluck()
      .get() as string;
    expect(JSON.parse(event).message.mentions).toEqual([anaL.id, ben.id]);
  });
});

describe('reassign all', () => {
  it('moves every open, pending and snoozed conversation of a member in one action, audited', async () => {
    const { clock, key, stream } = await start();
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const ben = await t.member({ name: 'Ben', role: 'agent' });
    const cy = await t.member({ name: 'Cy', role: 'agent' });
    const admin = await t.member({ name: 'Ada', role: 'admin' });
    const bens = await stream(ben.cookie);
    const patch = (id: string, body: Record<string, unknown>) =>
      t.request('PATCH', `/conversations/${id}`, { ...owner, body });
    const convs: string[] = [];
    for (let i = 0; i < 4; i++) {
      convs.push(await inbound(key, i));
      await patch(convs[i]!, { assignee: ana.id });
    }
    await patch(convs[1]!, { status: 'pending' });
    await patch(convs[2]!, {
      status: 'snoozed',
      snoozedUntil: new Date(clock.now() + 3600_000).toISOString(),
    });
    await patch(convs[3]!, { status: 'resolved' });
    expect((await team())[ana.id]!.conversations).toEqual({ open: 1, pending: 1, snoozed: 1 });

    const moved = await t.request('POST', `/api/members/${ana.id}/reassign`, {
      cookie: admin.cookie,
      body: { to: ben.id },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ moved: 3, unassigned: 0 });
    expect(moved.body.conversations.map((c: { id: string }) => c.id).sort()).toEqual(
      convs.slice(0, 3).sort(),
    );
    for (const id of convs.slice(0, 3)) expect(await assigneeOf(id)).toBe(ben.id);
    // A resolved conversation stays hers (it is history).
    expect(await assigneeOf(convs[3]!)).toBe(ana.id);
    await bens.waitFor(() => notified(bens, 'assigned').length === 3);
    expect(notified(bens, 'assigned').every((e) => e.data.data.by === admin.id)).toBe(true);
    const audit = await t.request('GET', '/audit?action=conversations.reassigned', owner);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      actor: { kind: 'member', id: admin.id },
      target: { type: 'member', id: ana.id },
      details: { to: ben.id, moved: 3, unassigned: 0, environment: 'test' },
    });

    // Round-robin over the online agents (Ben; Cy has no stream) but the one they leave.
    const back = await t.request('POST', `/api/members/${ben.id}/reassign`, {
      ...owner,
      body: { to: 'round_robin' },
    });
    expect(back.body).toMatchObject({ moved: 3, unassigned: 3 });
    await stream(cy.cookie);
    await patch(convs[0]!, { assignee: ben.id });
    const rr = await t.request('POST', `/api/members/${ben.id}/reassign`, {
      ...owner,
      body: { to: 'round_robin' },
    });
    expect(rr.body).toMatchObject({
      moved: 1,
      unassigned: 0,
      conversations: [{ assignee: cy.id }],
    });
    expect(
      (
        await t.request('POST', `/api/members/${cy.id}/reassign`, {
          ...owner,
          body: { to: 'unassigned' },
        })
      ).body,
    ).toMatchObject({ moved: 1, unassigned: 1 });

    // Checks: an unknown or inactive target, oneself as target, an unknown member.
    const bad = (id: string, to: string) =>
      t.request('POST', `/api/members/${id}/reassign`, { ...owner, body: { to } });
    expect((await bad(ana.id, 'mem_nobody')).body.error).toMatchObject({
      code: 'validation_error',
      param: 'to',
    });
    expect((await bad(ana.id, ana.id)).status).toBe(400);
    expect((await bad('mem_nobody', ben.id)).status).toBe(404);
    // Agents do not reassign others' work.
    expect(
      (
        await t.request('POST', `/api/members/${ana.id}/reassign`, {
          cookie: ben.cookie,
          body: { to: ben.id },
        })
      ).status,
    ).toBe(403);
  });
});
