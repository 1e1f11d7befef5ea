import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_CSV_HEADER } from '../../main/core/modules/audit/service.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock, seedCampaign, signIn, tempDir } from '../helpers.ts';

/**
 * The audit trail (design.md §6 "Working together"): who did what to what, from where and
 * when — read by admins a page at a time or as CSV, kept 400 days.
 */
let t: TestCore;
afterEach(async () => t?.close());

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** The owner, through the desktop window. */
const owner = { session: 'test' } as const;

interface Entry {
  id: string;
  actor: { kind: string; id: string | null; name: string | null };
  action: string;
  target: { type: string; id: string | null; label: string | null } | null;
  address: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

/** One page of `GET /audit` as the owner (or `auth`), which must answer 200. */
async function audit(query = '', auth: { cookie?: string; session?: 'test' } = owner) {
  const res = await t.request('GET', `/audit${query ? `?${query}` : ''}`, auth);
  expect(res.status, res.text).toBe(200);
  return res.body as { data: Entry[]; nextCursor: string | null };
}

const actions = (entries: Entry[]) => entries.map((e) => e.action);

describe('the audit trail', () => {
  it('records sign-ins, members, keys, money, settings, campaigns, workflows and deletions', async () => {
    const dataDir = tempDir();
    const { campaignId } = seedCampaign(dataDir, { contacts: 1 });
    // After the seeding (on the system clock): its template is usable by then.
    const clock = manualClock(Date.now());
    t = await makeCore({ dataDir, clock });
    const ownerId = (await t.request('GET', '/api/me', owner)).body.member.id;
    const ada = await t.member({ name: 'Ada', role: 'admin' });
    const ana = await t.member({ name: 'Ana' });

    // Sign-in, two failures (a wrong password, an address nobody has), sign-out.
    const cookie = await signIn(t, ana.email, ana.password, { remoteAddress: '10.1.1.1' });
    const wrong = await t.request('POST', '/login', {
      body: { email: ana.email, password: 'not her password' },
      remoteAddress: '10.6.6.6',
    });
    expect(wrong.status).toBe(401);
    const ghost = await t.request('POST', '/login', {
      body: { email: 'ghost@example.com', password: 'guessing away' },
      remoteAddress: '10.6.6.7',
    });
    expect(ghost.status).toBe(401);
    expect((await t.request('POST', '/logout', { cookie, remoteAddress: '10.1.1.1' })).status).toBe(
      204,
    );

    // Members: an invite, a change of rights, a deactivation — by an admin.
    const asAda = { cookie: ada.cookie };
    const invited = await t.request('POST', '/members/invites', {
      ...asAda,
      body: { email: 'bo@example.com', name: 'Bo', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    const patch = (body: unknown) => t.request('PATCH', `/members/${ana.id}`, { ...asAda, body });
    expect((await patch({ rights: ['campaigns'] })).status).toBe(200);
    expect((await patch({ active: false })).status).toBe(200);

    // An API key created and revoked from an admin's session.
    const key = await t.request('POST', '/api/keys', {
      ...asAda,
      body: { name: 'CI', environment: 'test' },
    });
    expect(key.status).toBe(201);
    expect((await t.request('DELETE', `/api/keys/${key.body.id}`, asAda)).status).toBeLessThan(300);

    // Money, settings, a campaign, a workflow, a template: the owner's.
    const topup = await t.request('POST', '/api/wallet/topup', {
      ...owner,
      body: { amountMicros: 10_000_000 },
    });
    expect(topup.status).toBe(200);
    const settings = await t.request('PATCH', '/api/workspace/settings', {
      ...owner,
      body: { allowPrivateWebhooks: true },
    });
    expect(settings.status).toBe(200);
    const launched = await t.request('POST', '/campaigns/launch', {
      ...owner,
      body: { id: campaignId },
    });
    expect(launched.status, launched.text).toBe(200);
    const wf = await t.request('POST', '/workflows', {
      ...owner,
      body: { name: 'Flow', trigger: { type: 'manual' }, steps: [{ id: 'e', type: 'end' }] },
    });
    expect(wf.status).toBe(201);
    for (const status of ['paused', 'active']) {
      const res = await t.request('PATCH', `/workflows/${wf.body.id}`, {
        ...owner,
        body: { status },
      });
      expect(res.status).toBe(200);
    }
    // The campaign's template, deleted once the campaign is out.
    const tpl = (await t.request('GET', '/api/templates?name=notice', owner)).body.data[0];
    expect((await t.request('DELETE', `/api/templates/${tpl.id}`, owner)).status).toBe(200);

    const { data } = await audit('limit=100');
    // Newest first.
    const seqs = data.map((e) => Number(e.id.replace('aud_', '')));
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    for (const e of data) {
      expect(e.createdAt).toBe(new Date(clock.now()).toISOString());
      expect(e.id).toMatch(/^aud_\d+$/);
    }
    const one = (action: string, where: (e: Entry) => boolean = () => true) => {
      const found = data.filter((e) => e.action === action && where(e));
      expect(found, `${action} in ${actions(data).join(', ')}`).toHaveLength(1);
      return found[0]!;
    };
    const member = (id: string, name: string) => ({ kind: 'member', id, name });

    expect(one('session.sign_in', (e) => e.actor.id === ana.id)).toMatchObject({
      actor: member(ana.id, 'Ana'),
      target: { type: 'session' },
      address: '10.1.1.1',
      details: { method: 'password' },
    });
    // A failure names the address tried, and where from.
    expect(one('session.sign_in_failed', (e) => e.address === '10.6.6.6')).toMatchObject({
      actor: { kind: 'anonymous', name: ana.email },
      details: { email: ana.email },
    });
    expect(one('session.sign_in_failed', (e) => e.address === '10.6.6.7')).toMatchObject({
      actor: { kind: 'anonymous', name: 'ghost@example.com' },
      details: { email: 'ghost@example.com' },
    });
    expect(JSON.stringify(data)).not.toContain('not her password');
    expect(JSON.stringify(data)).not.toContain('guessing away');
    expect(one('session.sign_out')).toMatchObject({
      actor: member(ana.id, 'Ana'),
      target: { type: 'session' },
      address: '10.1.1.1',
    });
    expect(one('member.invited', (e) => e.target?.label === 'bo@example.com')).toMatchObject({
      actor: member(ada.id, 'Ada'),
      target: { type: 'invite', id: invited.body.invite.id },
      address: '127.0.0.1',
      details: { role: 'agent' },
    });
    expect(one('member.updated')).toMatchObject({
      actor: member(ada.id, 'Ada'),
      target: { type: 'member', id: ana.id, label: 'Ana' },
      details: { rights: { from: [], to: ['campaigns'] } },
    });
    expect(one('member.deactivated')).toMatchObject({
      actor: member(ada.id, 'Ada'),
      target: { type: 'member', id: ana.id },
    });
    for (const action of ['api_key.created', 'api_key.revoked']) {
      expect(one(action)).toMatchObject({
        actor: member(ada.id, 'Ada'),
        target: { type: 'api_key', id: key.body.id },
        address: '127.0.0.1',
      });
    }
    expect(one('wallet.topped_up')).toMatchObject({
      actor: member(ownerId, 'Owner'),
      details: { amountMicros: 10_000_000 },
    });
    // Which settings changed, never their values.
    expect(one('settings.updated')).toMatchObject({
      target: { type: 'workspace' },
      details: { environment: 'test', fields: ['allowPrivateWebhooks'] },
    });
    expect(Object.keys(one('settings.updated').details).sort()).toEqual(['environment', 'fields']);
    expect(one('campaign.launched')).toMatchObject({
      actor: member(ownerId, 'Owner'),
      target: { type: 'campaign', id: campaignId },
    });
    expect(one('workflow.activated')).toMatchObject({
      target: { type: 'workflow', id: wf.body.id },
    });
    expect(one('template.deleted')).toMatchObject({
      target: { type: 'template', id: tpl.id },
    });
  });

  it('filters by actor, by action (exact or a family), by time, and pages by cursor', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const ada = await t.member({ name: 'Ada', role: 'admin' });
    const ana = await t.member({ name: 'Ana' });
    const abe = await t.member({ name: 'Abe' });
    clock.advance(HOUR);
    const mid = new Date(clock.now()).toISOString();
    const asAda = { cookie: ada.cookie };
    await signIn(t, ada.email, ada.password);
    expect(
      (
        await t.request('PATCH', `/members/${ana.id}`, {
          ...asAda,
          body: { rights: ['automation'] },
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.request('PATCH', `/members/${ana.id}`, { ...asAda, body: { active: false } }))
        .status,
    ).toBe(200);
    clock.advance(HOUR);
    const late = new Date(clock.now()).toISOString();
    expect(
      (
        await t.request('POST', '/api/wallet/topup', {
          ...owner,
          body: { amountMicros: 1_000_000 },
        })
      ).status,
    ).toBe(200);
    const all = (await audit('limit=100')).data;

    const byAda = (await audit(`actor=${ada.id}`)).data;
    expect(byAda.every((e) => e.actor.id === ada.id)).toBe(true);
    expect(actions(byAda)).toEqual([
      'member.deactivated',
      'member.updated',
      'session.sign_in',
      'member.joined',
    ]);
    expect(actions((await audit('action=member.deactivated')).data)).toEqual([
      'member.deactivated',
    ]);
    const family = (await audit('action=member.')).data;
    expect(new Set(actions(family))).toEqual(
      new Set(['member.invited', 'member.joined', 'member.updated', 'member.deactivated']),
    );
    expect(family).toHaveLength(all.filter((e) => e.action.startsWith('member.')).length);
    // Without the dot, an action is matched exactly.
    expect((await audit('action=member')).data).toEqual([]);

    const since = (await audit(`since=${mid}`)).data;
    expect(since.every((e) => e.createdAt >= mid)).toBe(true);
    expect(actions(since)).toEqual([
      'wallet.topped_up',
      'member.deactivated',
      'member.updated',
      'session.sign_in',
    ]);
    const until = (await audit(`until=${mid}`)).data;
    expect(until.every((e) => e.createdAt < mid)).toBe(true);
    expect(until.length + since.length).toBe(all.length);
    expect(actions((await audit(`since=${mid}&until=${late}&action=member.`)).data)).toEqual([
      'member.deactivated',
      'member.updated',
    ]);
    const inverted = await t.request('GET', `/audit?since=${late}&until=${mid}`, owner);
    expect(inverted.status).toBe(400);
    expect(inverted.body.error.param).toBe('since');

    // Pages of 3, newest first, until nextCursor is null: every entry once.
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { data: Entry[]; nextCursor: string | null } = await audit(
        `limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((e) => e.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
    expect(pages).toBe(Math.ceil(all.length / 3));

    // Admins read it; an agent does not.
    for (const url of ['/audit', '/audit/export']) {
      const res = await t.request('GET', url, { cookie: abe.cookie });
      expect(res.status).toBe(403);
      expect(res.body.error.details).toEqual({ requires: 'audit' });
    }
    expect((await audit('', asAda)).data.length).toBeGreaterThan(0);
  });

  it('exports CSV with a BOM and a header, formula-safe, and the export is audited itself', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const formula = '=HYPERLINK("http://evil.example","click me")';
    await t.member({ name: formula, email: 'evil@example.com' });
    await t.member({ name: '@SUM(A1)', email: 'at@example.com' });

    const res = await t.request('GET', '/audit/export', owner);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="parley-audit-2026-01-05.csv"',
    );
    expect(res.text.startsWith('\uFEFF')).toBe(true);
    const rows = parse(res.text, { bom: true }) as string[][];
    expect(rows[0]).toEqual([...AUDIT_CSV_HEADER]);
    expect(rows[0]).toEqual(expect.arrayContaining(['time', 'actor_name', 'action', 'address']));
    const body = rows.slice(1);
    // No cell a spreadsheet would run.
    for (const cell of body.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    const joined = body.filter((r) => r[4] === 'member.joined').map((r) => r[3]);
    expect(joined.sort()).toEqual([`'${formula}`, "'@SUM(A1)"].sort());
    // The export is in the trail, and in the export it made (appended before it streamed).
    expect(body[0]).toEqual(
      expect.arrayContaining(['export.created', 'audit', '127.0.0.1', 'member']),
    );
    const exports = (await audit('action=export.created')).data;
    expect(exports).toHaveLength(1);
    expect(exports[0]).toMatchObject({
      actor: { kind: 'member', name: 'Owner' },
      target: { type: 'audit', label: 'audit trail' },
      address: '127.0.0.1',
      details: { filter: {} },
    });

    // Same filters as the list.
    const filtered = await t.request('GET', '/audit/export?action=member.joined', owner);
    const only = (parse(filtered.text, { bom: true }) as string[][]).slice(1);
    expect(only.map((r) => r[4])).toEqual(['member.joined', 'member.joined']);
    const second = (await audit('action=export.created')).data[0]!;
    expect(second.details).toEqual({ filter: { action: 'member.joined' } });
  });

  it('keeps entries 400 days: the retention sweep removes older ones', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    await t.member({ name: 'Ana' });
    const first = (await audit()).data.length;
    expect(first).toBeGreaterThan(0);
    clock.advance(399 * DAY);
    t.core.services.retention.pruneOnce();
    expect((await audit()).data).toHaveLength(first);
    await t.request('POST', '/api/wallet/topup', { ...owner, body: { amountMicros: 1_000_000 } });
    clock.advance(2 * DAY);
    t.core.services.retention.pruneOnce();
    expect(actions((await audit()).data)).toEqual(['wallet.topped_up']);
  });
});
