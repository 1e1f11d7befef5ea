import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTACT_CSV_COLUMNS } from '../../main/core/modules/contacts/export.ts';
import {
  CAMPAIGN_RECIPIENT_CSV_COLUMNS,
  EMAIL_RECIPIENT_CSV_COLUMNS,
} from '../../main/core/modules/exports/routes.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock, seedCampaign, tempDir } from '../helpers.ts';

/**
 * Exports (design.md §8, README "Exports"): contacts with the list's filters, a campaign's and an
 * email campaign's recipients — streamed CSV, UTF-8 with BOM, formula-safe, in the caller's scope
 * only, right-checked and in the audit trail.
 */
let t: TestCore;
afterEach(async () => t?.close());

const phone = (i: number) => `+1415555${String(i).padStart(4, '0')}`;
const owner = { session: 'test' } as const;
const FORMULA = "=cmd|' /C calc'!A0";

/** The CSV answer as rows, checked for what every export has: its type, BOM and safe cells. */
function rowsOf(res: { status: number; text: string; headers: Record<string, unknown> }) {
  expect(res.status, res.text.slice(0, 200)).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="parley-.+\.csv"$/);
  expect(res.text.startsWith('\uFEFF')).toBe(true);
  expect(res.text).toContain('\r\n');
  const rows = parse(res.text, { bom: true }) as string[][];
  for (const cell of rows.slice(1).flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  return { header: rows[0]!, body: rows.slice(1) };
}

/** A phone as an export writes it: a cell starting with `+` is defused too. */
const cellPhone = (i: number) => `'${phone(i)}`;

/** The records of rows under their header. */
const records = (header: string[], body: string[][]) =>
  body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]!])));

async function exportsOf(action = 'export.created') {
  return (await t.request('GET', `/audit?action=${action}`, owner)).body.data as {
    actor: { kind: string };
    target: { type: string; id: string | null; label: string | null };
    details: Record<string, unknown>;
  }[];
}

describe('contacts export', () => {
  it('takes the list’s filters, defuses formulas, one column per attribute, and is audited', async () => {
    t = await makeCore({ clock: manualClock() });
    const key = t.key('test');
    const add = (body: Record<string, unknown>) =>
      t.request('POST', '/api/contacts', { key, body }).then((r) => {
        expect(r.status).toBeLessThan(300);
        return r.body as { id: string };
      });
    const ada = await add({
      phone: phone(1),
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      labels: ['vip', 'beta'],
      attributes: { plan: 'pro', seats: 12, name: 'clash' },
    });
    const evil = await add({ phone: phone(2), name: FORMULA, labels: ['vip'] });
    await add({ phone: phone(3), name: '+44 is not a formula', attributes: { city: '@home' } });
    const group = (
      await t.request('POST', '/api/contacts/groups', {
        key,
        body: { name: 'Pilot', contactIds: [ada.id] },
      })
    ).body as { id: string };
    // Another scope's contacts: the live environment, another workspace.
    await t.request('POST', '/api/contacts', {
      key: t.key('live'),
      body: { phone: phone(4), name: 'Live Only', labels: ['vip'] },
    });
    const other = t.core.services.workspaces.create('Other shop');
    await t.request('POST', '/api/contacts', {
      key: t.key('test', other.id),
      body: { phone: phone(5), name: 'Other Shop Customer', labels: ['vip'] },
    });

    const all = rowsOf(await t.request('GET', '/api/contacts/export?format=csv', { key }));
    expect(all.header).toEqual([
      ...CONTACT_CSV_COLUMNS,
      'city',
      'attributes.name',
      'plan',
      'seats',
    ]);
    const rows = records(all.header, all.body);
    // Newest first, as the list; nothing of another scope.
    expect(rows.map((r) => r.phone)).toEqual([cellPhone(3), cellPhone(2), cellPhone(1)]);
    expect(rows[2]).toMatchObject({
      id: ada.id,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      labels: 'vip;beta',
      plan: 'pro',
      seats: '12',
      'attributes.name': 'clash',
      city: '',
    });
    expect(rows[1]).toMatchObject({ id: evil.id, name: `'${FORMULA}` });
    expect(rows[0]).toMatchObject({ name: "'+44 is not a formula", city: "'@home" });

    // The list's filters: label, q, group, phone (any format).
    const by = async (query: string) =>
      records(
        ...(Object.values(
          rowsOf(await t.request('GET', `/api/contacts/export?${query}`, { key })),
        ) as [string[], string[][]]),
      ).map((r) => r.phone);
    expect(await by('label=vip')).toEqual([cellPhone(2), cellPhone(1)]);
    expect(await by('q=lovelace')).toEqual([cellPhone(1)]);
    expect(await by(`group=${group.id}`)).toEqual([cellPhone(1)]);
    expect(await by(`phone=${encodeURIComponent('+1 415 555 0002')}`)).toEqual([cellPhone(2)]);
    expect(await by('label=nobody')).toEqual([]);
    // Only the attributes the exported contacts use.
    const vip = rowsOf(await t.request('GET', '/api/contacts/export?label=vip&q=%3Dcmd', { key }));
    expect(vip.header).toEqual([...CONTACT_CSV_COLUMNS]);
    expect(vip.body).toHaveLength(1);

    // The live key sees its own scope only.
    const live = rowsOf(await t.request('GET', '/api/contacts/export', { key: t.key('live') }));
    expect(records(live.header, live.body).map((r) => r.name)).toEqual(['Live Only']);

    // An unknown group is a 404 before anything streams; a format other than CSV is a 400.
    const missing = await t.request('GET', '/api/contacts/export?group=grp_nothing', { key });
    expect(missing.status).toBe(404);
    const xlsx = await t.request('GET', '/api/contacts/export?format=xlsx', { key });
    expect(xlsx.status).toBe(400);
    expect(xlsx.body.error.param).toBe('format');

    const trail = await exportsOf();
    expect(trail[0]).toMatchObject({
      actor: { kind: 'api_key' },
      target: { type: 'contacts', id: null, label: 'contacts' },
      details: { environment: 'live', filter: {} },
    });
    expect(trail.map((e) => e.details.filter)).toContainEqual({ group: group.id });
    expect(trail.find((e) => (e.details.filter as { q?: string }).q === 'lovelace')).toMatchObject({
      details: { environment: 'test', filter: { q: 'lovelace' } },
    });
    // The refused requests wrote nothing.
    expect(trail).toHaveLength(8);
  });

  it('streams a large list in batches, every contact once', async () => {
    t = await makeCore();
    const scope = { workspaceId: t.workspaceId, environment: 'test' } as const;
    const n = 2_345;
    for (let i = 0; i < n; i++) {
      t.core.services.contacts.upsert(scope, { phone: phone(i), name: `Person ${i}` });
    }
    const { header, body } = rowsOf(
      await t.request('GET', '/api/contacts/export', { key: t.key('test') }),
    );
    const phones = records(header, body).map((r) => r.phone);
    expect(phones).toHaveLength(n);
    expect(new Set(phones).size).toBe(n);
  });

  it('is for admins and scripts: an agent is refused', async () => {
    t = await makeCore();
    const abe = await t.member({ name: 'Abe Agent', role: 'agent' });
    const ada = await t.member({ name: 'Ada Admin', role: 'admin' });
    const refused = await t.request('GET', '/api/contacts/export', { cookie: abe.cookie });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ requires: 'exports' });
    rowsOf(await t.request('GET', '/api/contacts/export', { cookie: ada.cookie }));
    expect(await exportsOf()).toMatchObject([{ actor: { kind: 'member' } }]);
  });
});

describe('campaign recipients exports', () => {
  it('exports a campaign’s recipients in launch order, formula-safe, in its scope only', async () => {
    // The seed approves its template at the wall clock's time: this core's clock is after it.
    const clock = manualClock(Date.now() + 3_600_000);
    const dataDir = tempDir();
    const seeded = seedCampaign(dataDir, { contacts: 3 });
    t = await makeCore({ dataDir, clock });
    const key = t.key('test');
    const campaign = { id: seeded.campaignId };
    // The recipients' names are their contacts'.
    const renamed = await t.request('PATCH', `/api/contacts/${seeded.contactIds[1]}`, {
      key,
      body: { name: FORMULA },
    });
    expect(renamed.status).toBe(200);
    expect(
      (await t.request('POST', '/campaigns/launch', { key, body: { id: campaign.id } })).status,
    ).toBe(200);
    for (let i = 0; i < 10; i++) {
      await t.core.services.scheduler.runDue();
      clock.advance(1000);
    }

    const url = `/campaigns/${campaign.id}/recipients/export`;
    const { header, body } = rowsOf(await t.request('GET', url, { key }));
    expect(header).toEqual([...CAMPAIGN_RECIPIENT_CSV_COLUMNS]);
    const rows = records(header, body);
    expect(rows.map((r) => r.contact_id)).toEqual(seeded.contactIds);
    expect(rows.map((r) => r.phone)).toEqual(
      ['+4915100000000', '+4915100000001', '+4915100000002'].map((p) => `'${p}`),
    );
    expect(rows.map((r) => r.name)).toEqual(['Person 0', `'${FORMULA}`, 'Person 2']);
    for (const r of rows) {
      expect(r.status).toMatch(/^(sent|delivered|read)$/);
      expect(r.message_id).toMatch(/^msg_/);
    }
    const failed = rowsOf(await t.request('GET', `${url}?status=failed`, { key }));
    expect(failed.body).toEqual([]);

    // Another scope's id answers as if it did not exist.
    expect((await t.request('GET', url, { key: t.key('live') })).status).toBe(404);
    const other = t.core.services.workspaces.create('Other shop');
    expect((await t.request('GET', url, { key: t.key('test', other.id) })).status).toBe(404);

    expect(await exportsOf()).toMatchObject([
      {
        target: { type: 'campaign', id: campaign.id, label: 'Spring sale' },
        details: { filter: { status: 'failed' } },
      },
      { target: { type: 'campaign', id: campaign.id }, details: { filter: {} } },
    ]);
  });

  it('exports an email campaign’s recipients and how each went', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const key = t.key('test');
    const emails = ['ann@example.com', 'bob@bounce.test', 'cy@example.com'];
    for (const [i, email] of emails.entries()) {
      await t.request('POST', '/api/contacts', {
        key,
        body: { phone: phone(i), name: `Person ${i}`, email, labels: ['news'] },
      });
    }
    const campaign = (
      await t.request('POST', '/v1/email/campaigns', {
        key,
        body: {
          name: 'December news',
          subject: '-20% for {{contact.name}}',
          fromName: 'Acme',
          fromEmail: 'news@acme.example',
          html: '<p>Hello</p>',
          audience: { filter: { labels: ['news'] } },
        },
      })
    ).body as { id: string };
    const launched = await t.request('POST', `/v1/email/campaigns/${campaign.id}/launch`, {
      key,
      body: {},
    });
    expect(launched.status).toBe(200);
    for (let i = 0; i < 10; i++) {
      await t.core.services.scheduler.runDue();
      clock.advance(1000);
    }

    const url = `/v1/email/campaigns/${campaign.id}/recipients/export`;
    const { header, body } = rowsOf(await t.request('GET', url, { key }));
    expect(header).toEqual([...EMAIL_RECIPIENT_CSV_COLUMNS]);
    const rows = records(header, body);
    expect(rows.map((r) => r.email).sort()).toEqual([...emails].sort());
    expect(rows.find((r) => r.email === 'bob@bounce.test')).toMatchObject({ status: 'bounced' });
    expect(rows.find((r) => r.email === 'ann@example.com')).toMatchObject({
      // As this recipient got it (placeholders filled), still guarded against formula injection.
      subject: "'-20% for Person 0",
      sent_at: expect.stringMatching(/^2026-/),
    });
    const bounced = rowsOf(await t.request('GET', `${url}?status=bounced`, { key }));
    expect(bounced.body).toHaveLength(1);

    expect((await t.request('GET', url, { key: t.key('live') })).status).toBe(404);
    expect(
      (await t.request('GET', '/v1/email/campaigns/ecmp_nothing/recipients/export', { key }))
        .status,
    ).toBe(404);
    expect(await exportsOf()).toMatchObject([
      { target: { type: 'email_campaign', id: campaign.id, label: 'December news' } },
      { target: { type: 'email_campaign', id: campaign.id } },
    ]);
  });
});
