import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
let key: string;
beforeEach(async () => {
  t = await makeCore();
  key = t.key();
});
afterEach(async () => t.close());

const phoneN = (i: number) => `+4915112${String(i).padStart(6, '0')}`;

describe('contacts', () => {
  it('creates (201), then upserts by phone (200), normalising the phone to E.164', async () => {
    const a = await t.request('POST', '/api/contacts', {
      key,
      body: {
        phone: '+1 (415) 555-2671',
        name: 'Ann',
        labels: ['vip', 'vip'],
        attributes: { city: 'SF' },
      },
    });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      phone: '+14155552671',
      name: 'Ann',
      labels: ['vip'],
      attributes: { city: 'SF' },
    });
    expect(a.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    const b = await t.request('POST', '/api/contacts', {
      key,
      body: {
        phone: '+14155552671',
        email: 'ann@example.com',
        attributes: { tier: 2, city: null },
      },
    });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({
      id: a.body.id,
      name: 'Ann',
      email: 'ann@example.com',
      attributes: { tier: 2 },
    });
  });

  it('names the invalid field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'phone'],
      [{ phone: '4155552671' }, 'phone'],
      [{ phone: '+14155552671', email: 'nope' }, 'email'],
      [{ phone: '+14155552671', labels: ['ok', ''] }, 'labels.1'],
      [{ phone: '+14155552671', labels: 'vip' }, 'labels'],
    ];
    for (const [body, param] of cases) {
      const res = await t.request('POST', '/api/contacts', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.param).toBe(param);
    }
    expect((await t.request('GET', '/api/contacts', { key })).body.data).toEqual([]);
  });

  it('filters by phone, label, group and q', async () => {
    const ids: string[] = [];
    for (const [i, name, labels] of [
      [1, 'Alice Smith', ['vip']],
      [2, 'Bob Jones', ['vip', 'late']],
      [3, 'Carol 100%', []],
    ] as const) {
      const r = await t.request('POST', '/api/contacts', {
        key,
        body: { phone: phoneN(i), name, labels },
      });
      ids.push(r.body.id);
    }
    const names = async (qs: string) =>
      (await t.request('GET', `/api/contacts?${qs}`, { key })).body.data.map(
        (c: { name: string }) => c.name,
      );
    expect(await names('')).toEqual(['Carol 100%', 'Bob Jones', 'Alice Smith']);
    expect(await names('label=vip')).toEqual(['Bob Jones', 'Alice Smith']);
    expect(await names('label=late')).toEqual(['Bob Jones']);
    expect(await names(`phone=${encodeURIComponent('+49 151 12000002')}`)).toEqual(['Bob Jones']);
    expect(await names('q=smi')).toEqual(['Alice Smith']);
    expect(await names('q=%25')).toEqual(['Carol 100%']);
    expect(await names('q=12000003')).toEqual(['Carol 100%']);

    const g = await t.request('POST', '/api/contacts/groups', {
      key,
      body: { name: 'Newsletter', contactIds: [ids[0]] },
    });
    expect(g.status).toBe(201);
    expect(g.body.memberCount).toBe(1);
    const added = await t.request('POST', `/api/contacts/groups/${g.body.id}/members`, {
      key,
      body: { contactIds: [ids[2], ids[0]] },
    });
    expect(added.body.memberCount).toBe(2);
    expect(await names(`group=${g.body.id}`)).toEqual(['Carol 100%', 'Alice Smith']);
    expect(await names(`group=${g.body.id}&q=alice`)).toEqual(['Alice Smith']);
    const unknown = await t.request('GET', '/api/contacts?group=grp_nope', { key });
    expect(unknown.status).toBe(404);
    const dup = await t.request('POST', '/api/contacts/groups', {
      key,
      body: { name: 'Newsletter' },
    });
    expect(dup.body.error.param).toBe('name');
    const badMember = await t.request('POST', `/api/contacts/groups/${g.body.id}/members`, {
      key,
      body: { contactIds: ['ct_nope'] },
    });
    expect(badMember.status).toBe(404);
    expect(badMember.body.error.param).toBe('contactIds.0');
    const groups = await t.request('GET', '/api/contacts/groups', { key });
    expect(groups.body.data).toHaveLength(1);
  });

  it('pages with a cursor through every contact exactly once', async () => {
    const csv = ['phone'].concat(Array.from({ length: 120 }, (_, i) => phoneN(i))).join('\n');
    await t.request('POST', '/api/contacts/import', {
      key,
      body: csv,
      headers: { 'content-type': 'text/csv' },
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { body: { data: { id: string }[]; nextCursor: string | null } } = await t.request(
        'GET',
        `/api/contacts?limit=50${cursor ? `&cursor=${cursor}` : ''}`,
        { key },
      );
      seen.push(...res.body.data.map((c) => c.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect((await t.request('GET', '/api/contacts?limit=201', { key })).body.error.param).toBe(
      'limit',
    );
    expect((await t.request('GET', '/api/contacts?cursor=garbage', { key })).body.error.param).toBe(
      'cursor',
    );
  });

  it('answers the total of the filtered list on its first page, and only there', async () => {
    const csv = ['phone,labels']
      .concat(Array.from({ length: 120 }, (_, i) => `${phoneN(i)},${i % 3 === 0 ? 'vip' : ''}`))
      .join('\n');
    await t.request('POST', '/api/contacts/import', {
      key,
      body: csv,
      headers: { 'content-type': 'text/csv' },
    });
    const first = await t.request('GET', '/api/contacts?limit=50', { key });
    expect(first.body).toMatchObject({ total: 120 });
    expect(first.body.data).toHaveLength(50);
    const next = await t.request('GET', `/api/contacts?limit=50&cursor=${first.body.nextCursor}`, {
      key,
    });
    expect(next.body.total).toBeUndefined();
    expect((await t.request('GET', '/api/contacts?label=vip', { key })).body.total).toBe(40);
    expect(
      (await t.request('GET', `/api/contacts?q=${encodeURIComponent(phoneN(7))}`, { key })).body,
    ).toMatchObject({ total: 1 });
    // Another environment's contacts are not counted.
    expect((await t.request('GET', '/api/contacts', { key: t.key('live') })).body.total).toBe(0);
  });

  it('refuses a label that holds a separator: it would read back as several', async () => {
    const res = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: phoneN(1), labels: ['vip,wholesale'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('labels.0');
    expect(res.body.error.message).toMatch(/cannot contain , ;/);
  });

  it('patches a contact and refuses a phone another contact has', async () => {
    const a = await t.request('POST', '/api/contacts', { key, body: { phone: phoneN(1) } });
    await t.request('POST', '/api/contacts', { key, body: { phone: phoneN(2) } });
    const p = await t.request('PATCH', `/api/contacts/${a.body.id}`, {
      key,
      body: { name: 'Ann', labels: ['x'] },
    });
    expect(p.body).toMatchObject({ name: 'Ann', labels: ['x'] });
    expect((await t.request('GET', '/api/contacts?label=x', { key })).body.data).toHaveLength(1);
    const clash = await t.request('PATCH', `/api/contacts/${a.body.id}`, {
      key,
      body: { phone: phoneN(2) },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.error.param).toBe('phone');
  });
});

describe('CSV import', () => {
  const post = (body: string, extra: Record<string, string> = {}, qs = '') =>
    t.request('POST', `/api/contacts/import${qs}`, {
      key,
      body,
      headers: { 'content-type': 'text/csv', ...extra },
    });

  it('imports thousands of rows: valid rows land, each bad row is reported with its line and reason', async () => {
    const lines = ['phone,name,email,labels,city'];
    for (let i = 0; i < 5000; i++)
      lines.push(`+4915112${String(i).padStart(6, '0')},Person ${i},p${i}@example.com,a;b,Berlin`);
    lines[101] = 'not-a-phone,Bad,,,'; // line 102 of the file
    lines[2001] = ',No phone,,,'; // line 2002
    lines[3001] = '+4915112000007,Dup,,,'; // line 3002 repeats line 9's phone
    lines[4001] = '+4915112004000,Bad email,nope,,'; // line 4002
    lines[4501] = '+4915112004500,Too,many,,,columns'; // line 4502
    const res = await post(lines.join('\n') + '\n');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5000, created: 4995, updated: 0, failed: 5 });
    expect(res.body.errors.map((e: { line: number }) => e.line)).toEqual([
      102, 2002, 3002, 4002, 4502,
    ]);
    expect(res.body.errors[0].reason).toMatch(/not a valid international number/);
    expect(res.body.errors[1].reason).toBe('phone is required');
    expect(res.body.errors[2].reason).toMatch(/line 9/);
    expect(res.body.errors[3].param).toBe('email');
    expect(res.body.errors[4].reason).toMatch(/expected 5 columns, found 6/);
    const one = await t.request('GET', '/api/contacts?phone=%2B4915112000010', { key });
    expect(one.body.data[0]).toMatchObject({
      name: 'Person 10',
      labels: ['a', 'b'],
      attributes: { city: 'Berlin' },
    });
    const count = t.core.db.prepare('SELECT count(*) FROM contacts').pluck().get();
    expect(count).toBe(4995);
  });

  it('splits labels on commas and semicolons, quoted or not, trimmed and deduplicated', async () => {
    const res = await post(
      `phone,labels\n${phoneN(1)},"vip,wholesale"\n${phoneN(2)},vip; retail ;vip\n${phoneN(3)},* myContacts ::: * starred ::: vip\n`,
    );
    expect(res.body).toMatchObject({ created: 3, failed: 0 });
    const labelsOf = async (phone: string) =>
      (await t.request('GET', `/api/contacts?phone=${encodeURIComponent(phone)}`, { key })).body
        .data[0].labels;
    expect(await labelsOf(phoneN(1))).toEqual(['vip', 'wholesale']);
    expect(await labelsOf(phoneN(2))).toEqual(['vip', 'retail']);
    expect(await labelsOf(phoneN(3))).toEqual(['starred', 'vip']);
  });

  it('updates existing contacts, merging labels, and adds rows to a group', async () => {
    await t.request('POST', '/api/contacts', {
      key,
      body: { phone: phoneN(1), name: 'Old', labels: ['keep'] },
    });
    const g = await t.request('POST', '/api/contacts/groups', { key, body: { name: 'Import' } });
    const res = await post(
      `phone,name,labels\n${phoneN(1)},New,added\n${phoneN(2)},Other,\n`,
      {},
      `?groupId=${g.body.id}`,
    );
    expect(res.body).toMatchObject({ total: 2, created: 1, updated: 1, failed: 0, errors: [] });
    const c = await t.request('GET', `/api/contacts?phone=${encodeURIComponent(phoneN(1))}`, {
      key,
    });
    expect(c.body.data[0]).toMatchObject({ name: 'New', labels: ['keep', 'added'] });
    expect(
      (await t.request('GET', `/api/contacts?group=${g.body.id}`, { key })).body.data,
    ).toHaveLength(2);
  });

  it('writes nothing for a malformed file, a file without a phone column, or an unknown group', async () => {
    const malformed = await post(`phone,name\n${phoneN(1)},Ann\n${phoneN(2)},"unclosed\n`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/malformed at line 3/);
    const noPhone = await post('name\nAnn\n');
    expect(noPhone.body.error.param).toBe('phone');
    const group = await post(`phone\n${phoneN(1)}\n`, {}, '?groupId=grp_nope');
    expect(group.status).toBe(404);
    expect(group.body.error.param).toBe('groupId');
    expect(t.core.db.prepare('SELECT count(*) FROM contacts').pluck().get()).toBe(0);
  });

  it('streams progress as NDJSON when asked', async () => {
    const csv = ['phone'].concat(
      Array.from({ length: 1200 }, (_, i) => `+4915112${String(i).padStart(6, '0')}`),
    );
    const res = await post(csv.join('\n'), { accept: 'application/x-ndjson' });
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const progress = lines.filter((l) => l.type === 'progress').map((l) => l.processed);
    expect(progress).toEqual([0, 500, 1000, 1200]);
    expect(lines.at(-1)).toMatchObject({ type: 'result', total: 1200, created: 1200, failed: 0 });
  });
});

describe('list JSON', () => {
  it('lists each contact exactly as GET by id shows it', async () => {
    const c = await t.request('POST', '/api/contacts', {
      key,
      body: {
        phone: phoneN(7),
        name: 'Zoë "Z" \\ Ünal',
        email: 'z@example.com',
        labels: ['a', 'b'],
        attributes: { n: 1.5, ok: true, s: 'x' },
      },
    });
    t.core.db
      .prepare('UPDATE contacts SET last_inbound_at = ? WHERE id = ?')
      .run(Date.parse('2026-01-05T09:59:59.999Z'), c.body.id);
    const one = await t.request('GET', `/api/contacts/${c.body.id}`, { key });
    const list = await t.request('GET', '/api/contacts', { key });
    expect(list.body.data[0]).toEqual(one.body);
    expect(one.body.lastInboundAt).toBe('2026-01-05T09:59:59.999Z');
  });
});
