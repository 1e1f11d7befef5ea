import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const ANN = '+14155552671';
const topics = (over: Record<string, unknown> = {}) => ({
  name: 'Support topics',
  header: 'How can we help?',
  body: 'Pick a topic and an agent who knows it will answer.',
  footer: 'Replies within an hour',
  buttonText: 'Choose a topic',
  sections: [
    {
      title: 'Orders',
      rows: [
        { id: 'track', title: 'Track my order', description: 'Where is my parcel?' },
        { id: 'return', title: 'Return an item' },
      ],
    },
    { title: 'Account', rows: [{ id: 'billing', title: 'Billing' }] },
  ],
  ...over,
});

async function setup() {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const create = (body: unknown = topics()) =>
    t.request('POST', '/interactive-lists', { key, body });
  return { clock, key, create };
}

const rows = (n: number, prefix = 'r') =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, title: `Row ${i}` }));

describe('interactive lists', () => {
  it('creates, reads, lists, edits and deletes a list', async () => {
    const { key, create, clock } = await setup();
    const res = await create();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^lst_/),
      name: 'Support topics',
      header: 'How can we help?',
      body: 'Pick a topic and an agent who knows it will answer.',
      footer: 'Replies within an hour',
      buttonText: 'Choose a topic',
      sections: [
        {
          title: 'Orders',
          rows: [
            { id: 'track', title: 'Track my order', description: 'Where is my parcel?' },
            { id: 'return', title: 'Return an item', description: null },
          ],
        },
        { title: 'Account', rows: [{ id: 'billing', title: 'Billing', description: null }] },
      ],
      createdAt: '2026-01-05T10:00:00.000Z',
      updatedAt: '2026-01-05T10:00:00.000Z',
    });
    const id = res.body.id as string;
    expect((await t.request('GET', `/interactive-lists/${id}`, { key })).body).toEqual(res.body);
    expect((await t.request('GET', '/interactive-lists', { key })).body).toEqual({
      data: [res.body],
      nextCursor: null,
    });

    clock.advance(1000);
    const put = await t.request('PUT', '/interactive-lists', {
      key,
      body: { id, buttonText: 'Pick one', footer: null },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      buttonText: 'Pick one',
      footer: null,
      name: 'Support topics',
      updatedAt: '2026-01-05T10:00:01.000Z',
      createdAt: '2026-01-05T10:00:00.000Z',
    });

    // Delete by body, or by ?id=.
    expect((await t.request('DELETE', '/interactive-lists', { key, body: { id } })).body).toEqual({
      success: true,
      id,
    });
    expect((await t.request('GET', `/interactive-lists/${id}`, { key })).status).toBe(404);
    const other = (await create()).body.id as string;
    expect((await t.request('DELETE', `/interactive-lists?id=${other}`, { key })).status).toBe(200);
    const gone = await t.request('DELETE', `/interactive-lists?id=${other}`, { key });
    expect(gone.status).toBe(404);
    const none = await t.request('DELETE', '/interactive-lists', { key });
    expect(none.body.error).toMatchObject({ code: 'validation_error', param: 'id' });
  });

  it('enforces the limits, naming the field', async () => {
    const { create, key } = await setup();
    const section = (n: number, i = 0) => ({ title: `S${i}`, rows: rows(n, `s${i}r`) });
    const cases: [Record<string, unknown>, number, string, string][] = [
      [
        { sections: Array.from({ length: 11 }, (_, i) => section(1, i)) },
        400,
        'list_limits_exceeded',
        'sections',
      ],
      [{ sections: [section(11)] }, 400, 'list_limits_exceeded', 'sections.0.rows'],
      [{ buttonText: 'x'.repeat(21) }, 400, 'validation_error', 'buttonText'],
      [{ buttonText: '' }, 400, 'validation_error', 'buttonText'],
      [{ body: '  ' }, 400, 'validation_error', 'body'],
      [{ header: 'h'.repeat(61) }, 400, 'validation_error', 'header'],
      [
        { sections: [{ title: 'T', rows: [{ id: 'a', title: 't'.repeat(25) }] }] },
        400,
        'validation_error',
        'sections.0.rows.0.title',
      ],
      [
        {
          sections: [{ title: 'T', rows: [{ id: 'a', title: 'A', description: 'd'.repeat(73) }] }],
        },
        400,
        'validation_error',
        'sections.0.rows.0.description',
      ],
      [
        {
          sections: [
            { title: 'One', rows: [{ id: 'same', title: 'A' }] },
            { title: 'Two', rows: [{ id: 'same', title: 'B' }] },
          ],
        },
        400,
        'validation_error',
        'sections.1.rows.0.id',
      ],
      [{ sections: [] }, 400, 'validation_error', 'sections'],
      [{ sections: [{ title: 'T', rows: [] }] }, 400, 'validation_error', 'sections.0.rows'],
      [
        { sections: [{ title: 'x'.repeat(25), rows: rows(1) }] },
        400,
        'validation_error',
        'sections.0.title',
      ],
    ];
    for (const [over, status, code, param] of cases) {
      const r = await create(topics(over));
      expect([param, r.status, r.body.error?.code, r.body.error?.param]).toEqual([
        param,
        status,
        code,
        param,
      ]);
    }
    // Exactly at the limits is fine: 10 sections of 10 rows.
    const full = await create(
      topics({ sections: Array.from({ length: 10 }, (_, i) => section(10, i)) }),
    );
    expect(full.status).toBe(201);
    expect((await t.request('GET', '/interactive-lists', { key })).body.data).toHaveLength(1);
  });

  it('keeps lists to their scope', async () => {
    const { create } = await setup();
    const id = (await create()).body.id as string;
    const live = t.key('live');
    expect((await t.request('GET', `/interactive-lists/${id}`, { key: live })).status).toBe(404);
    expect((await t.request('GET', '/interactive-lists', { key: live })).body.data).toEqual([]);
  });
});

describe('sending lists and the picks', () => {
  it('sends inside the window only, keeps the list as sent, and takes the pick', async () => {
    const { key, create } = await setup();
    const list = (await create()).body;
    const send = () =>
      t.request('POST', '/api/send-list', { key, body: { phone: ANN, listId: list.id } });
    const outside = await send();
    expect(outside.status).toBe(422);
    expect(outside.body.error).toMatchObject({
      code: 'outside_service_window',
      details: { channelCode: 131047 },
    });
    await t.request('POST', '/api/simulator/inbound', { key, body: { phone: ANN, message: 'hi' } });
    const sent = await send();
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      success: true,
      data: { phone: ANN, listId: list.id, messageId: expect.stringMatching(/^msg_/) },
    });
    // Editing the list later does not change what was sent.
    await t.request('PUT', '/interactive-lists', { key, body: { id: list.id, body: 'New text' } });
    const msgs = (await t.request('GET', `/messages?phone=${encodeURIComponent(ANN)}`, { key }))
      .body.data;
    const outbound = msgs.find((m: { type: string }) => m.type === 'list');
    expect(outbound).toMatchObject({
      direction: 'outbound',
      text: 'How can we help?\n\nPick a topic and an agent who knows it will answer.\n\nReplies within an hour',
      list: { id: list.id, body: list.body, sections: list.sections },
      listReply: null,
      category: 'SERVICE',
    });

    const pick = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: ANN, listReply: { listId: list.id, rowId: 'billing' } },
    });
    expect(pick.status).toBe(200);
    expect(pick.body).toMatchObject({
      direction: 'inbound',
      type: 'list',
      text: 'Billing',
      listReply: { listId: list.id, rowId: 'billing', title: 'Billing' },
      list: null,
    });
    const badRow = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: ANN, listReply: { listId: list.id, rowId: 'nope' } },
    });
    expect(badRow.body.error).toMatchObject({ code: 'validation_error', param: 'listReply.rowId' });
    const badList = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: ANN, listReply: { listId: 'lst_nope', rowId: 'billing' } },
    });
    expect(badList.status).toBe(404);
    expect(badList.body.error.param).toBe('listReply.listId');
    // The conversation's page shows both (the SQL-built JSON equals the service's).
    const conv = msgs[0].conversationId as string;
    const page = (await t.request('GET', `/conversations/${conv}/messages`, { key })).body.data;
    expect(page[0]).toEqual(pick.body);
  });

  it('replies with a list from a conversation; an unknown list is a 404 naming listId', async () => {
    const { key, create } = await setup();
    const list = (await create()).body;
    const inbound = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: ANN, message: 'help' },
    });
    const conv = inbound.body.conversationId as string;
    const reply = await t.request('POST', `/conversations/${conv}/reply`, {
      key,
      body: { listId: list.id, as: 'bot' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: 'list', sentBy: 'bot', list: { id: list.id } });
    await t.core.services.scheduler.runDue();
    const unknown = await t.request('POST', `/conversations/${conv}/reply`, {
      key,
      body: { listId: 'lst_nope', as: 'bot' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('listId');
    const sendUnknown = await t.request('POST', '/api/send-list', {
      key,
      body: { phone: ANN, listId: 'lst_nope' },
    });
    expect(sendUnknown.status).toBe(404);
  });
});

describe('many sections or rows', () => {
  it('is list_limits_exceeded however many there are', async () => {
    const { create } = await setup();
    const many = await create(
      topics({
        sections: Array.from({ length: 101 }, (_, i) => ({
          title: `S${i}`,
          rows: rows(1, `s${i}`),
        })),
      }),
    );
    expect(many.body.error).toMatchObject({ code: 'list_limits_exceeded', param: 'sections' });
    const rowsHeavy = await create(topics({ sections: [{ title: 'S', rows: rows(101) }] }));
    expect(rowsHeavy.body.error).toMatchObject({
      code: 'list_limits_exceeded',
      param: 'sections.0.rows',
    });
  });
});
