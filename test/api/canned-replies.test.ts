import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

async function setup() {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const create = (body: unknown, k = key) => t.request('POST', '/canned-replies', { key: k, body });
  return { clock, key, create };
}

describe('canned replies', () => {
  it('creates, reads, replaces and deletes a canned reply', async () => {
    const { clock, key, create } = await setup();
    const text =
      'Thanks {{contact.name}}, your order {{ contact.attributes.order id }} ships today.';
    const created = await create({ shortcut: 'thanks', text });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cr_/),
      shortcut: 'thanks',
      text,
      createdAt: '2026-01-05T10:00:00.000Z',
      updatedAt: '2026-01-05T10:00:00.000Z',
    });
    const id = created.body.id as string;
    expect((await t.request('GET', `/canned-replies/${id}`, { key })).body).toEqual(created.body);

    clock.advance(60_000);
    const put = await t.request('PUT', `/canned-replies/${id}`, {
      key,
      body: { shortcut: 'thank-you', text: 'Thank you, {{contact.name}}!' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id,
      shortcut: 'thank-you',
      text: 'Thank you, {{contact.name}}!',
      createdAt: '2026-01-05T10:00:00.000Z',
      updatedAt: '2026-01-05T10:01:00.000Z',
    });
    // Keeping its own shortcut is no conflict.
    const same = await t.request('PUT', `/canned-replies/${id}`, {
      key,
      body: { shortcut: 'thank-you', text: 'Thanks again' },
    });
    expect(same.status).toBe(200);

    const del = await t.request('DELETE', `/canned-replies/${id}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, id });
    expect((await t.request('GET', `/canned-replies/${id}`, { key })).status).toBe(404);
    expect((await t.request('DELETE', `/canned-replies/${id}`, { key })).status).toBe(404);
    expect((await t.request('GET', '/canned-replies', { key })).body).toEqual({
      data: [],
      nextCursor: null,
    });
    // Deleted, its shortcut is free again.
    expect((await create({ shortcut: 'thank-you', text: 'Hi' })).status).toBe(201);
  });

  it('keeps each workspace and environment apart: another scope’s id is a 404', async () => {
    const { key, create } = await setup();
    const mine = (await create({ shortcut: 'hello', text: 'Hello!' })).body;
    const live = t.key('live');
    const other = t.core.services.workspaces.create('Other').id;
    const otherKey = t.key('test', other);
    for (const k of [live, otherKey]) {
      expect((await t.request('GET', '/canned-replies', { key: k })).body.data).toEqual([]);
      expect((await t.request('GET', `/canned-replies/${mine.id}`, { key: k })).status).toBe(404);
      const put = await t.request('PUT', `/canned-replies/${mine.id}`, {
        key: k,
        body: { shortcut: 'hijack', text: 'x' },
      });
      expect(put.status).toBe(404);
      expect(put.body.error.code).toBe('not_found');
      expect((await t.request('DELETE', `/canned-replies/${mine.id}`, { key: k })).status).toBe(
        404,
      );
      // The same shortcut is free in another scope.
      expect((await create({ shortcut: 'hello', text: 'Hi there' }, k)).status).toBe(201);
    }
    expect((await t.request('GET', `/canned-replies/${mine.id}`, { key })).body).toEqual(mine);
    expect((await t.request('GET', '/canned-replies', { key })).body.data).toHaveLength(1);
  });

  it('refuses bad shortcuts, a taken shortcut and empty or oversized text, naming the field', async () => {
    const { create } = await setup();
    for (const shortcut of ['', 'Thanks', 'with space', '/thanks', 'a'.repeat(33), 'ü']) {
      const r = await create({ shortcut, text: 'Hi' });
      expect(r.status, shortcut).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'shortcut' });
    }
    expect((await create({ shortcut: 'a'.repeat(32), text: 'Hi' })).status).toBe(201);
    for (const text of ['', '   ', 'x'.repeat(4097)]) {
      const r = await create({ shortcut: 'ok', text });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'text' });
    }
    expect((await create({ shortcut: 'max', text: 'x'.repeat(4096) })).status).toBe(201);

    const taken = await create({ shortcut: 'max', text: 'Again' });
    expect(taken.status).toBe(400);
    expect(taken.body.error).toMatchObject({
      code: 'validation_error',
      param: 'shortcut',
      message: 'a canned reply /max exists already',
    });
    const other = (await create({ shortcut: 'other', text: 'Other' })).body;
    const rename = await t.request('PUT', `/canned-replies/${other.id}`, {
      key: t.key('test'),
      body: { shortcut: 'max', text: 'Other' },
    });
    expect(rename.status).toBe(400);
    expect(rename.body.error.param).toBe('shortcut');
  });

  it('accepts the contact placeholders and names an unknown one', async () => {
    const { create } = await setup();
    const ok = await create({
      shortcut: 'all',
      text: '{{contact.name}} {{contact.phone}} {{contact.email}} {{contact.attributes.plan}} {{contact.attributes.First Name}}',
    });
    expect(ok.status).toBe(201);
    for (const [text, named] of [
      ['Hi {{contact.nmae}}!', '{{contact.nmae}}'],
      ['Code {{1}}', '{{1}}'],
      ['{{contact.attributes.}}', '{{contact.attributes.}}'],
      ['{{name}} and {{contact.name}}', '{{name}}'],
      ['{{}}', '{{}}'],
    ] as const) {
      const r = await create({ shortcut: 'bad', text });
      expect(r.status, text).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'text' });
      expect(r.body.error.message).toContain(`unknown placeholder ${named}`);
    }
    // Single braces are plain text.
    expect((await create({ shortcut: 'json', text: 'Send {"a": 1} or {x}' })).status).toBe(201);
  });

  it('pages alphabetically by shortcut and filters by shortcut or text', async () => {
    const { key, create } = await setup();
    const shortcuts = ['refund', 'address', 'hours', 'greet', 'zz-bye', 'order_status', 'ship'];
    for (const s of shortcuts) {
      expect((await create({ shortcut: s, text: `About ${s.toUpperCase()} 100%` })).status).toBe(
        201,
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { body: { data: { shortcut: string }[]; nextCursor: string | null } } =
        await t.request(
          'GET',
          `/canned-replies?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key },
        );
      seen.push(...r.body.data.map((c) => c.shortcut));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([...shortcuts].sort());
    expect(pages).toBe(3);

    const q = async (s: string) =>
      (await t.request('GET', `/canned-replies?q=${encodeURIComponent(s)}`, { key })).body.data.map(
        (c: { shortcut: string }) => c.shortcut,
      );
    expect(await q('re')).toEqual(['address', 'greet', 'refund']);
    // The text matches too, ignoring case; LIKE wildcards are literal.
    expect(await q('about hou')).toEqual(['hours']);
    expect(await q('_')).toEqual(['order_status']);
    expect(await q('100%')).toHaveLength(shortcuts.length);
    expect(await q('nothing like it')).toEqual([]);

    const bad = await t.request('GET', '/canned-replies?cursor=nope', { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('cursor');
  });

  it('replays a POST with the same Idempotency-Key instead of creating twice', async () => {
    const { key } = await setup();
    const post = (text: string) =>
      t.request('POST', '/canned-replies', {
        key,
        body: { shortcut: 'once', text },
        headers: { 'idempotency-key': 'canned-1' },
      });
    const first = await post('Hello');
    const again = await post('Hello');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await post('Different')).status).toBe(409);
  });
});
