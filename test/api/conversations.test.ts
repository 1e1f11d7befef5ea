import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { lastEvent, makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const phone = (i: number) => `+4915112${String(i).padStart(6, '0')}`;

async function setup() {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const jobs = t.core.services.scheduler;
  const inbound = (i: number, message: string) =>
    t.request('POST', '/api/simulator/inbound', { key, body: { phone: phone(i), message } });
  // Adding an agent is an admin's (the desk's session); a key may act for one (X-Parley-Agent).
  const ann = (
    await t.request('POST', '/agents', {
      session: 'test',
      body: { name: 'Ann Agent', email: 'ann@example.com' },
    })
  ).body;
  const bob = (
    await t.request('POST', '/agents', {
      session: 'test',
      body: { name: 'Bob Agent', email: 'bob@example.com' },
    })
  ).body;
  const as = (agent: { id: string }) => ({ 'x-parley-agent': agent.id });
  return { clock, key, jobs, inbound, ann, bob, as };
}

const list = async (key: string, qs = '', headers: Record<string, string> = {}) =>
  (await t.request('GET', `/conversations${qs ? `?${qs}` : ''}`, { key, headers })).body;

describe('conversations', () => {
  it('lists by last activity with contact, last message, window and counts per status', async () => {
    const { clock, key, inbound } = await setup();
    await inbound(1, 'first');
    clock.advance(1000);
    await inbound(2, 'second');
    clock.advance(1000);
    await inbound(1, 'third');
    const page = await list(key);
    expect(page.data.map((c: { contact: { phone: string } }) => c.contact.phone)).toEqual([
      phone(1),
      phone(2),
    ]);
    expect(page.data[0]).toMatchObject({
      status: 'open',
      assignee: null,
      labels: [],
      unreadCount: 2,
      windowOpen: true,
    });
    expect(page.data[0].lastMessage).toMatchObject({
      text: 'third',
      direction: 'inbound',
      sentBy: 'contact',
    });
    expect(page.counts).toEqual({ open: 2, pending: 0, snoozed: 0, resolved: 0 });
    clock.advance(24 * 3600_000);
    expect((await list(key)).data[0].windowOpen).toBe(false);
    const detail = await t.request('GET', `/conversations/${page.data[0].id}`, { key });
    expect(detail.body.messages.map((m: { text: string }) => m.text)).toEqual(['third', 'first']);
    expect(detail.body.contact.phone).toBe(phone(1));
    expect((await t.request('GET', '/conversations/conv_nope', { key })).status).toBe(404);
    expect((await list(t.key('live'))).data).toEqual([]);
  });

  it('pages by cursor in activity order', async () => {
    const { clock, key, inbound } = await setup();
    for (let i = 0; i < 7; i++) {
      await inbound(i, `m${i}`);
      clock.advance(10);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p: { data: { contact: { phone: string } }[]; nextCursor: string | null } = await list(
        key,
        `limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...p.data.map((c) => c.contact.phone));
      cursor = p.nextCursor;
    } while (cursor);
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0].map(phone));
  });

  it('filters by status, assignee (id, me, unassigned), label and q over names, phones and message text', async () => {
    const { key, inbound, ann, bob, as } = await setup();
    const ids: string[] = [];
    for (const [i, text] of [
      [1, 'my parcel is late'],
      [2, 'refund please'],
      [3, 'hello'],
    ] as const) {
      ids.push((await inbound(i, text)).body.conversationId);
    }
    await t.request('PATCH', `/api/contacts/${(await list(key)).data[0].contact.id}`, {
      key,
      body: { name: 'Zoë Parcelwood' },
    });
    await t.request('PATCH', `/conversations/${ids[0]}`, {
      key,
      body: { assignee: 'me', labels: ['shipping', 'vip'] },
      headers: as(ann),
    });
    await t.request('PATCH', `/conversations/${ids[1]}`, {
      key,
      body: { assignee: bob.id, status: 'pending', labels: ['billing'] },
    });
    const phones = async (qs: string, headers: Record<string, string> = {}) =>
      (await list(key, qs, headers)).data.map(
        (c: { contact: { phone: string } }) => c.contact.phone,
      );
    expect(await phones('status=pending')).toEqual([phone(2)]);
    expect(await phones(`assignee=${ann.id}`)).toEqual([phone(1)]);
    expect(await phones('assignee=me', as(bob))).toEqual([phone(2)]);
    expect(await phones('assignee=unassigned')).toEqual([phone(3)]);
    expect(await phones('label=vip')).toEqual([phone(1)]);
    expect((await phones('q=parcel')).sort()).toEqual([phone(1), phone(3)].sort()); // message text + contact name
    expect(await phones('q=refund')).toEqual([phone(2)]);
    expect(await phones('q=000003')).toEqual([phone(3)]);
    expect(await phones('q="quoted')).toEqual([]);
    const counted = await list(key, 'assignee=unassigned');
    expect(counted.counts).toEqual({ open: 1, pending: 0, snoozed: 0, resolved: 0 });
    expect((await list(key, 'status=open')).counts).toEqual({
      open: 2,
      pending: 1,
      snoozed: 0,
      resolved: 0,
    });
    const noMe = await t.request('GET', '/conversations?assignee=me', { key });
    expect(noMe.status).toBe(400);
    expect(noMe.body.error.param).toBe('assignee');
    const badAgent = await t.request('GET', '/conversations?assignee=agt_nope', { key });
    expect(badAgent.body.error.param).toBe('assignee');
    expect((await t.request('GET', '/conversations?status=closed', { key })).body.error.param).toBe(
      'status',
    );
  });

  it('changes status, assignee and labels, emitting conversation.updated with what changed', async () => {
    const { key, inbound, ann } = await setup();
    const id = (await inbound(1, 'hi')).body.conversationId;
    const res = await t.request('PATCH', `/conversations/${id}`, {
      key,
      body: { status: 'resolved', assignee: ann.id, labels: ['a', 'a', 'b'], read: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'resolved',
      assignee: ann.id,
      labels: ['a', 'b'],
      unreadCount: 0,
    });
    const ev = JSON.parse(
      t.core.db
        .prepare(
          "SELECT data FROM events WHERE type = 'conversation.updated' ORDER BY seq DESC LIMIT 1",
        )
        .pluck()
        .get() as string,
    );
    expect(ev.changes).toEqual({
      status: { from: 'open', to: 'resolved' },
      assignee: { from: null, to: ann.id },
      labels: { from: [], to: ['a', 'b'] },
      unreadCount: { from: 1, to: 0 },
    });
    expect(ev.conversation).toEqual(res.body);
    const bad: [unknown, string][] = [
      [{ status: 'closed' }, 'status'],
      [{ assignee: 'agt_nope' }, 'assignee'],
      [{ labels: [''] }, 'labels.0'],
      [{ status: 'snoozed' }, 'snoozedUntil'],
      [{ status: 'snoozed', snoozedUntil: '2020-01-01T00:00:00Z' }, 'snoozedUntil'],
      [{ snoozedUntil: '2099-01-01T00:00:00Z' }, 'snoozedUntil'],
      [{ status: 'snoozed', snoozedUntil: 'tomorrow' }, 'snoozedUntil'],
    ];
    for (const [body, param] of bad) {
      const r = await t.request('PATCH', `/conversations/${id}`, { key, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.param, JSON.stringify(body)).toBe(param);
    }
    expect(
      (await t.request('PATCH', '/conversations/conv_nope', { key, body: { status: 'open' } }))
        .status,
    ).toBe(404);
  });

  it("an inbound message's conversation.updated carries the JSON the API serves, byte for byte", async () => {
    const { clock, key, inbound, ann } = await setup();
    const lastUpdated = () => lastEvent(t, 'conversation.updated')!;
    const same = async (id: string) => {
      const ev = lastUpdated();
      // GET /conversations/:id: the conversation, then its thread (left out here).
      const { activeRun, messages, messagesNextCursor, ...got } = (
        await t.request('GET', `/conversations/${id}`, { key })
      ).body;
      expect([activeRun, messagesNextCursor, messages.length > 0]).toEqual([null, null, true]);
      // Same keys in the same order, same values: the event is stored as JSON.stringify of it.
      expect(JSON.stringify(ev.conversation)).toBe(JSON.stringify(got));
      const listed = (await t.request('GET', '/conversations', { key })).body.data.find(
        (c: { id: string }) => c.id === id,
      );
      expect(JSON.stringify(ev.conversation)).toBe(JSON.stringify(listed));
      return ev;
    };
    const patch = (id: string, body: Record<string, unknown>) =>
      t.request('PATCH', `/conversations/${id}`, { key, body });
    const send = async (i: number, body: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/simulator/inbound', {
        key,
        body: { phone: phone(i), ...body },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // Each of these messages is the one the next event carries as the conversation's last.
      expect(lastEvent(t, 'conversation.updated')!.conversation.lastMessage.id).toBe(res.body.id);
    };

    // A new contact (its conversation created by this message).
    const id = (await inbound(1, 'hi')).body.conversationId;
    await same(id);
    // An existing open conversation, later; then one whose window had closed.
    clock.advance(5_000);
    await inbound(1, 'again');
    await same(id);
    clock.advance(25 * 3600_000);
    await inbound(1, 'a day later');
    await same(id);
    // A message received before the last activity (lastMessageAt stays), one a bit ahead.
    await send(1, { message: 'late', receivedAt: new Date(clock.now() - 60_000).toISOString() });
    await same(id);
    await send(1, { message: 'early', receivedAt: new Date(clock.now() + 30_000).toISOString() });
    await same(id);
    // A resolved conversation reopens; a snoozed one wakes.
    await patch(id, { status: 'resolved', read: true });
    await inbound(1, 'me again');
    expect((await same(id)).changes.status).toEqual({ from: 'resolved', to: 'open' });
    await patch(id, {
      status: 'snoozed',
      snoozedUntil: new Date(clock.now() + 3600_000).toISOString(),
    });
    await inbound(1, 'still there?');
    expect((await same(id)).changes).toMatchObject({
      status: { from: 'snoozed', to: 'open' },
      snoozedUntil: { to: null },
    });
    // Assigned, with labels, pending.
    await patch(id, { status: 'pending', assignee: ann.id, labels: ['vip', 'billing'] });
    await inbound(1, 'any news?');
    expect(await same(id)).toMatchObject({
      conversation: { status: 'pending', assignee: ann.id, labels: ['vip', 'billing'] },
    });
    // Other kinds of message, and a quote of one of ours.
    await send(1, { location: { latitude: 52.5, longitude: 13.4, name: 'Office' } });
    await same(id);
    await send(1, { contacts: [{ name: 'Ada', phones: ['+4915112000099'] }] });
    await same(id);
    await send(1, { media: { type: 'image', caption: 'look' } });
    await same(id);
    const reply = await t.request('POST', `/conversations/${id}/reply`, {
      key,
      body: { text: 'Hello' },
      headers: { 'x-parley-agent': ann.id },
    });
    expect(reply.body).toMatchObject({ direction: 'outbound', text: 'Hello' });
    await send(1, { message: 'thanks', replyToMessageId: reply.body.id });
    expect((await same(id)).conversation).toMatchObject({
      lastMessage: { text: 'thanks', context: { messageId: reply.body.id } },
    });
    // A second contact, while the first has a note as its newest message.
    const note = await t.request('POST', `/conversations/${id}/reply`, {
      key,
      body: { text: 'note to self', private: true },
      headers: { 'x-parley-agent': ann.id },
    });
    expect(note.body).toMatchObject({ type: 'note' });
    await inbound(1, 'after the note');
    expect((await same(id)).conversation).toMatchObject({
      lastMessage: { text: 'after the note' },
    });
    const other = (await inbound(2, 'hello')).body.conversationId;
    await same(other);
  });

  it('reopens resolved conversations and wakes snoozed ones on an inbound message', async () => {
    const { clock, key, inbound } = await setup();
    const id = (await inbound(1, 'hi')).body.conversationId;
    await t.request('PATCH', `/conversations/${id}`, { key, body: { status: 'resolved' } });
    await inbound(1, 'me again');
    expect((await t.request('GET', `/conversations/${id}`, { key })).body.status).toBe('open');
    const until = new Date(clock.now() + 3600_000).toISOString();
    await t.request('PATCH', `/conversations/${id}`, {
      key,
      body: { status: 'snoozed', snoozedUntil: until },
    });
    await inbound(1, 'still there?');
    const woke = (await t.request('GET', `/conversations/${id}`, { key })).body;
    expect(woke).toMatchObject({ status: 'open', snoozedUntil: null });
  });

  it('wakes a snoozed conversation at snoozedUntil through a durable job, even after a restart', async () => {
    const { clock, key, inbound } = await setup();
    const id = (await inbound(1, 'hi')).body.conversationId;
    const until = new Date(clock.now() + 3600_000).toISOString();
    const s = await t.request('PATCH', `/conversations/${id}`, {
      key,
      body: { status: 'snoozed', snoozedUntil: until },
    });
    expect(s.body).toMatchObject({ status: 'snoozed', snoozedUntil: until });
    const dataDir = t.dataDir;
    await t.core.stop();
    t = await makeCore({ clock, dataDir });
    clock.advance(3599_000);
    await t.core.services.scheduler.runDue();
    expect((await t.request('GET', `/conversations/${id}`, { key })).body.status).toBe('snoozed');
    clock.advance(1_000);
    await t.core.services.scheduler.runDue();
    expect((await t.request('GET', `/conversations/${id}`, { key })).body).toMatchObject({
      status: 'open',
      snoozedUntil: null,
    });
  });

  it('replies as agent or bot, with text inside the window, templates, or private notes', async () => {
    const { clock, key, jobs, inbound, ann, as } = await setup();
    const id = (await inbound(1, 'hi')).body.conversationId;
    const reply = (body: Record<string, unknown>, headers = as(ann)) =>
      t.request('POST', `/conversations/${id}/reply`, { key, body, headers });
    const text = await reply({ text: 'Hello! 👋' });
    expect(text.body).toMatchObject({
      text: 'Hello! 👋',
      sentBy: 'agent',
      agentId: ann.id,
      status: 'accepted',
      conversationId: id,
    });
    const bot = await reply({ text: 'Auto-answer', as: 'bot' });
    expect(bot.body).toMatchObject({ sentBy: 'bot', agentId: null });
    const note = await reply({ text: 'Customer sounds upset', private: true });
    expect(note.body).toMatchObject({ type: 'note', status: 'note', channelMessageId: null });
    await jobs.runDue();
    const again = (await t.request('GET', `/conversations/${id}/messages`, { key })).body.data;
    expect(again.find((m: { id: string }) => m.id === note.body.id).status).toBe('note'); // never dispatched
    expect(again.find((m: { id: string }) => m.id === text.body.id).status).toBe('sent');
    clock.advance(24 * 3600_000);
    const closed = await reply({ text: 'Still there?' });
    expect(closed.status).toBe(422);
    expect(closed.body.error.code).toBe('outside_service_window');
    const tplId = (
      await t.request('POST', '/api/templates', {
        key,
        body: {
          name: 'follow_up',
          category: 'UTILITY',
          language: 'en',
          components: [{ type: 'BODY', text: 'Hi {{1}}, anything else?' }],
        },
      })
    ).body.template.id;
    await t.request('POST', `/api/simulator/templates/${tplId}/review`, {
      key,
      body: { decision: 'approve' },
    });
    const tpl = await reply({ templateName: 'follow_up', variables: { '1': 'Sam' } });
    expect(tpl.body).toMatchObject({
      type: 'template',
      text: 'Hi Sam, anything else?',
      sentBy: 'agent',
    });
    const both = await reply({ text: 'x', templateName: 'follow_up' });
    expect(both.status).toBe(400);
    expect((await reply({})).status).toBe(400);
    expect(
      (await reply({ templateName: 'follow_up', variables: { '1': 'x' }, private: true })).body
        .error.param,
    ).toBe('private');
    expect((await reply({ listId: 'lst_1' })).body.error.param).toBe('listId');
    const badAgent = await reply({ text: 'x' }, { 'x-parley-agent': 'agt_nope' });
    expect(badAgent.body.error.param).toBe('X-Parley-Agent');
    const page = (await t.request('GET', `/conversations/${id}/messages?limit=2`, { key })).body;
    expect(page.data).toHaveLength(2);
    expect(page.nextCursor).not.toBeNull();
  });

  it('manages agents', async () => {
    const { key } = await setup();
    const list = await t.request('GET', '/agents', { key });
    // Every member: the owner (the desk's own session) and the two agents, owner first.
    expect(list.body.data.map((a: { name: string }) => a.name)).toEqual([
      'Owner',
      'Ann Agent',
      'Bob Agent',
    ]);
    expect(list.body.data[1]).toMatchObject({ role: 'agent', active: true });
    const dup = await t.request('POST', '/agents', {
      session: 'test',
      body: { name: 'Ann 2', email: 'ANN@example.com' },
    });
    expect(dup.body.error.param).toBe('email');
    expect(
      (
        await t.request('POST', '/agents', {
          session: 'test',
          body: { name: '', email: 'x@example.com' },
        })
      ).body.error.param,
    ).toBe('name');
    // Members are an admin's business, not a script's.
    const byKey = await t.request('POST', '/agents', {
      key,
      body: { name: 'Cy', email: 'cy@example.com' },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.details).toEqual({ requires: 'members' });
  });
});

it('keeps the tab counts equal to the conversations themselves through every change', async () => {
  const { key, inbound, ann, bob } = await setup();
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push((await inbound(i, `hi ${i}`)).body.conversationId);
  const future = new Date(Date.now() + 86_400_000 * 365).toISOString();
  const ops: Record<string, unknown>[] = [
    { status: 'pending', assignee: ann.id, labels: ['vip'] },
    { status: 'resolved', assignee: bob.id },
    { status: 'snoozed', snoozedUntil: future, labels: ['vip', 'billing'] },
    { assignee: null },
    { status: 'open', labels: [] },
  ];
  for (let i = 0; i < ids.length; i++) {
    for (let k = 0; k <= i % ops.length; k++) {
      await t.request('PATCH', `/conversations/${ids[i]}`, {
        key,
        body: ops[(i + k) % ops.length]!,
      });
    }
  }
  await inbound(3, 'reopen me');
  const truth = (where = '1') => {
    const out = { open: 0, pending: 0, snoozed: 0, resolved: 0 } as Record<string, number>;
    for (const r of t.core.db
      .prepare(`SELECT status, count(*) AS n FROM conversations cv WHERE ${where} GROUP BY status`)
      .all() as { status: string; n: number }[])
      out[r.status] = r.n;
    return out;
  };
  expect((await list(key)).counts).toEqual(truth());
  expect((await list(key, 'assignee=unassigned')).counts).toEqual(truth('assignee_id IS NULL'));
  expect((await list(key, `assignee=${ann.id}`)).counts).toEqual(
    truth(`assignee_id = '${ann.id}'`),
  );
  const vip = "id IN (SELECT conversation_id FROM conversation_labels WHERE label = 'vip')";
  expect((await list(key, 'label=vip')).counts).toEqual(truth(vip));
  expect((await list(key, `label=vip&assignee=${bob.id}`)).counts).toEqual(
    truth(`${vip} AND assignee_id = '${bob.id}'`),
  );
  const vipPage = (await list(key, 'label=vip&status=snoozed')).data.map(
    (c: { id: string; status: string; labels: string[] }) => [c.status, c.labels.includes('vip')],
  );
  expect(vipPage.every(([s, v]: [string, boolean]) => s === 'snoozed' && v)).toBe(true);
  expect(vipPage).toHaveLength(truth(vip).snoozed!);
});

it('never serves a stale conversation from its cache, whoever changed it', async () => {
  const { key, jobs, inbound } = await setup();
  const id = (await inbound(1, 'hi')).body.conversationId;
  expect((await list(key)).data[0].contact.name).toBeNull(); // cached now
  // Another process renames the contact.
  const { openStore } = await import('../../main/core/core.ts');
  const other = openStore({ dataDir: t.dataDir });
  const scope = { workspaceId: t.workspaceId, environment: 'test' as const };
  const c = other.services.contacts.repo.byPhone(scope, phone(1))!;
  other.services.contacts.patch(scope, c.id, { name: 'Renamed Elsewhere' });
  other.close();
  expect((await list(key)).data[0].contact.name).toBe('Renamed Elsewhere');
  // A reply and its status changes show in lastMessage.
  await t.request('POST', `/conversations/${id}/reply`, {
    key,
    body: { text: 'on it', as: 'bot' },
  });
  expect((await list(key)).data[0].lastMessage).toMatchObject({
    text: 'on it',
    status: 'accepted',
  });
  await jobs.runDue();
  expect((await list(key)).data[0].lastMessage.status).toBe('sent');
  expect((await t.request('GET', `/conversations/${id}`, { key })).body.lastMessage.status).toBe(
    'sent',
  );
});

it('ignores a stale X-Parley-Agent where "me" is not used, keeps notes out of lastMessage, and gives a cursor for older messages', async () => {
  const { key, inbound } = await setup();
  const id = (await inbound(1, 'hi')).body.conversationId;
  const stale = { 'x-parley-agent': 'agt_gone' };
  expect((await t.request('GET', '/conversations', { key, headers: stale })).status).toBe(200);
  expect(
    (await t.request('GET', '/conversations?assignee=me', { key, headers: stale })).body.error
      .param,
  ).toBe('X-Parley-Agent');
  expect(
    (
      await t.request('PATCH', `/conversations/${id}`, {
        key,
        headers: stale,
        body: { status: 'pending' },
      })
    ).status,
  ).toBe(200);
  await t.request('POST', `/conversations/${id}/reply`, {
    key,
    body: { text: 'internal', private: true },
  });
  const conv = (await t.request('GET', `/conversations/${id}`, { key })).body;
  expect(conv.lastMessage.text).toBe('hi');
  expect(conv.messages.map((m: { text: string }) => m.text)).toEqual(['internal', 'hi']);
  expect(conv.messagesNextCursor).toBeNull();
  for (let i = 0; i < 21; i++) await inbound(1, `more ${i}`);
  const detail = (await t.request('GET', `/conversations/${id}`, { key })).body;
  expect(detail.messages).toHaveLength(20);
  const older = (
    await t.request('GET', `/conversations/${id}/messages?cursor=${detail.messagesNextCursor}`, {
      key,
    })
  ).body.data;
  expect(older.map((m: { text: string }) => m.text)).toEqual(['more 0', 'internal', 'hi']);
});
