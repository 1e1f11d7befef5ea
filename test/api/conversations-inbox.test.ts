import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const phone = (i: number) => `+4915113${String(i).padStart(6, '0')}`;

interface Row {
  id: string;
  status: string;
  unreadCount: number;
  contact: { id: string; phone: string; name: string | null };
}

async function setup() {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const inbound = async (i: number, message: string): Promise<string> => {
    const res = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: phone(i), message },
    });
    expect(res.status, res.text).toBe(200);
    clock.advance(1000);
    return res.body.conversationId as string;
  };
  const list = async (qs: string) => {
    const res = await t.request('GET', `/conversations?${qs}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body as { data: Row[]; counts: Record<string, number>; nextCursor: string | null };
  };
  const phones = async (qs: string) => (await list(qs)).data.map((c) => c.contact.phone);
  const patch = (id: string, body: unknown) =>
    t.request('PATCH', `/conversations/${id}`, { key, body });
  return { clock, key, inbound, list, phones, patch };
}

describe('GET /conversations?unread=true', () => {
  it('lists only conversations with unread messages, with counts under the same filter', async () => {
    const { inbound, list, phones, patch } = await setup();
    const a = await inbound(1, 'where is my parcel');
    const b = await inbound(2, 'refund please');
    const c = await inbound(3, 'hello there');
    await patch(b, { read: true });
    await patch(c, { status: 'pending' });

    expect(await phones('unread=true')).toEqual([phone(3), phone(1)]);
    expect(await phones('unread=true&status=open')).toEqual([phone(1)]);
    expect(await phones('unread=false&status=open')).toEqual([phone(2), phone(1)]);
    expect((await list('unread=true&status=open')).counts).toEqual({
      open: 1,
      pending: 1,
      snoozed: 0,
      resolved: 0,
    });

    // With the other filters: label, assignee, search.
    await patch(a, { labels: ['vip'], assignee: null });
    await patch(b, { labels: ['vip'] });
    expect(await phones('unread=true&label=vip')).toEqual([phone(1)]);
    expect((await list('unread=true&label=vip')).counts.open).toBe(1);
    expect(await phones('unread=true&assignee=unassigned&status=pending')).toEqual([phone(3)]);
    expect(await phones('unread=true&q=refund')).toEqual([]);
    expect(await phones('unread=true&q=parcel')).toEqual([phone(1)]);

    // Reading it takes it out; the next inbound message brings it back.
    await patch(a, { read: true });
    expect(await phones('unread=true&status=open')).toEqual([]);
    await inbound(1, 'any news?');
    expect(await phones('unread=true&status=open')).toEqual([phone(1)]);

    const bad = await t.request('GET', '/conversations?unread=yes', { key: t.key('test') });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'unread' });
  });

  it('pages and counts from the partial unread indexes, never a scan of the inbox', async () => {
    await setup();
    const repo = t.core.services.conversations.repo;
    const uses = (plan: string[], index: string) =>
      plan.some(
        (d) => d.includes(`USING INDEX ${index}`) || d.includes(`USING COVERING INDEX ${index}`),
      );
    const open = repo.explain({ status: 'open', unread: true });
    expect(uses(open.list, 'conversations_unread_status'), open.list.join('\n')).toBe(true);
    expect(uses(open.counts, 'conversations_unread_status'), open.counts.join('\n')).toBe(true);
    const any = repo.explain({ unread: true });
    expect(uses(any.list, 'conversations_unread_activity'), any.list.join('\n')).toBe(true);
    for (const assignee of ['agent_x', null]) {
      const plan = repo.explain({ status: 'open', unread: true, assignee });
      const index = 'conversations_unread_assignee_status';
      expect(uses(plan.list, index), plan.list.join('\n')).toBe(true);
      expect(uses(plan.counts, index), plan.counts.join('\n')).toBe(true);
    }
    // Re-checking a few rows seeks them by id instead of walking the list.
    const recheck = repo.explain({ status: 'open', ids: ['conv_a', 'conv_b'], q: 'parcel' });
    expect(recheck.list[0], recheck.list.join('\n')).toMatch(/^SCAN wanted/);
    expect(recheck.list.some((d) => /SEARCH cv .*\(id=\?\)/.test(d))).toBe(true);
  });
});

describe('GET /conversations?ids=', () => {
  it('answers those of the given conversations that match the other filters, counts the whole view', async () => {
    const { inbound, list, patch } = await setup();
    const a = await inbound(1, 'parcel late');
    const b = await inbound(2, 'parcel lost');
    const c = await inbound(3, 'hello');
    await patch(b, { status: 'resolved' });

    const page = await list(`ids=${a},${b},${c}&status=open&q=parcel`);
    expect(page.data.map((r) => r.id)).toEqual([a]);
    expect(page.counts).toEqual({ open: 1, pending: 0, snoozed: 0, resolved: 1 });
    expect((await list(`ids=${b}&status=resolved`)).data.map((r) => r.id)).toEqual([b]);
    expect((await list('ids=conv_nope')).data).toEqual([]);
    const other = await t.request('GET', `/conversations?ids=${a}`, { key: t.key('live') });
    expect(other.body.data).toEqual([]);
    const tooMany = Array.from({ length: 51 }, (_, i) => `conv_${i}`).join(',');
    const bad = await t.request('GET', `/conversations?ids=${tooMany}`, { key: t.key('test') });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('ids');
  });
});

describe('POST /conversations', () => {
  it('opens the conversation with a contact, creating the contact and the conversation if needed', async () => {
    const { key, inbound, list } = await setup();
    const created = await t.request('POST', '/conversations', {
      key,
      body: { phone: '+1 415 555 2671', name: 'Sam Stone' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      status: 'open',
      assignee: null,
      unreadCount: 0,
      lastMessage: null,
      windowOpen: false,
      contact: { phone: '+14155552671', name: 'Sam Stone' },
    });
    const event = JSON.parse(
      t.core.db
        .prepare(
          "SELECT data FROM events WHERE type = 'conversation.created' ORDER BY seq DESC LIMIT 1",
        )
        .pluck()
        .get() as string,
    );
    expect(event.conversation.id).toBe(created.body.id);

    // Again, by phone or by contact id: the same conversation, and the name is not overwritten.
    const again = await t.request('POST', '/conversations', {
      key,
      body: { phone: '+14155552671', name: 'Someone Else' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: created.body.id, contact: { name: 'Sam Stone' } });
    const byContact = await t.request('POST', '/conversations', {
      key,
      body: { contactId: created.body.contact.id },
    });
    expect(byContact.status).toBe(200);
    expect(byContact.body.id).toBe(created.body.id);

    // A contact who already wrote in has theirs already.
    const existing = await inbound(7, 'hi');
    const contactId = (await list(`ids=${existing}`)).data[0]!.contact.id;
    const opened = await t.request('POST', '/conversations', { key, body: { contactId } });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ id: existing, windowOpen: true });

    // A contact without one yet (e.g. imported) gets one.
    const contact = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: '+14155552699', name: 'Imported' },
    });
    const started = await t.request('POST', '/conversations', {
      key,
      body: { contactId: contact.body.id },
    });
    expect(started.status).toBe(201);
    expect((await list('status=open')).data.map((r) => r.id)).toContain(started.body.id);
  });

  it('refuses what is not one contact in this scope', async () => {
    const { key } = await setup();
    const post = (body: unknown, k = key) => t.request('POST', '/conversations', { key: k, body });
    expect((await post({})).status).toBe(400);
    expect((await post({ contactId: 'ct_x', phone: '+14155552671' })).status).toBe(400);
    const invalid = await post({ phone: '12' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.param).toBe('phone');
    const missing = await post({ contactId: 'ct_nope' });
    expect(missing.status).toBe(404);
    const created = await post({ phone: '+14155552671' });
    const live = await post({ contactId: created.body.contact.id }, t.key('live'));
    expect(live.status).toBe(404);
  });
});

describe('Idempotency and labels', () => {
  it('replays POST /conversations for the same Idempotency-Key and refuses another body', async () => {
    const { key } = await setup();
    const headers = { 'idempotency-key': 'open-1' };
    const first = await t.request('POST', '/conversations', {
      key,
      headers,
      body: { phone: phone(1) },
    });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/conversations', {
      key,
      headers,
      body: { phone: phone(1) },
    });
    expect(again.status).toBe(201); // the first answer, not "200: it exists now"
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await t.request('POST', '/conversations', {
      key,
      headers,
      body: { phone: phone(2) },
    });
    expect(other.status).toBe(409);
    expect(t.core.db.prepare('SELECT count(*) FROM conversations').pluck().get()).toBe(1);
  });

  it('adds labels on the server, keeping those set meanwhile, and keeps one label per entry', async () => {
    const { inbound, patch } = await setup();
    const id = await inbound(1, 'hello');
    expect((await patch(id, { labels: ['refund'] })).status).toBe(200);
    // A bulk "add label" from a desk that has not seen "refund" yet does not drop it.
    const added = await patch(id, { addLabels: ['vip', 'urgent', 'vip'] });
    expect(added.status).toBe(200);
    expect(added.body.labels).toEqual(['refund', 'vip', 'urgent']);
    const joined = await patch(id, { labels: ['vip,wholesale'] });
    expect(joined.status).toBe(400);
    expect(joined.body.error.param).toBe('labels.0');
  });
});
