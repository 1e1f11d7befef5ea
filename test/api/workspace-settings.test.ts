import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION } from '../../main/core/jobs/retention.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

/**
 * Workspace settings (design.md §8, README "Workspace settings"): one record, checked by its
 * schema, changed by admins only, in the audit trail (which fields, never their values), and in
 * force from the next request on. Retention periods are the desk's: read-only.
 */
let t: TestCore;
afterEach(async () => t?.close());

const owner = { session: 'test' } as const;
const patch = (body: unknown, who: Record<string, unknown> = owner) =>
  t.request('PATCH', '/api/workspace/settings', { ...who, body });

describe('workspace settings', () => {
  it('reads the defaults and changes one field at a time, each in force at once', async () => {
    t = await makeCore();
    const read = await t.request('GET', '/api/workspace/settings', owner);
    expect(read.body).toEqual({
      name: 'Default',
      businessAccountName: 'Default business account',
      allowPrivateWebhooks: false,
      lowBalanceThresholdMicros: expect.any(Number),
      autoAssign: false,
      assignOnFirstReply: true,
      publicUrl: null,
    });

    // The low-balance threshold is the wallet's.
    const low = await patch({ lowBalanceThresholdMicros: 12_500_000 });
    expect(low.status).toBe(200);
    expect(low.body).toMatchObject({ lowBalanceThresholdMicros: 12_500_000, autoAssign: false });
    const wallet = await t.request('GET', '/api/wallet', owner);
    expect(wallet.body.lowBalanceThresholdMicros).toBe(12_500_000);

    // The public URL: email links use it unless Email settings give their own.
    const emailUrl = async () =>
      (await t.request('GET', '/v1/email/settings', owner)).body.effectivePublicUrl as string;
    expect(await emailUrl()).toMatch(/^http:\/\/127\.0\.0\.1/);
    const url = await patch({ publicUrl: 'https://desk.acme.example/' });
    expect(url.body.publicUrl).toBe('https://desk.acme.example');
    expect(await emailUrl()).toBe('https://desk.acme.example');
    await t.request('PUT', '/v1/email/settings', {
      ...owner,
      body: { publicUrl: 'https://mail.acme.example' },
    });
    expect(await emailUrl()).toBe('https://mail.acme.example');
    await t.request('PUT', '/v1/email/settings', { ...owner, body: { publicUrl: null } });
    expect(await emailUrl()).toBe('https://desk.acme.example');
    expect((await patch({ publicUrl: null })).body.publicUrl).toBeNull();
    expect(await emailUrl()).toMatch(/^http:\/\/127\.0\.0\.1/);

    // Private targets: a loopback webhook is refused, then accepted.
    const key = t.key('test');
    const hook = { url: 'http://127.0.0.1:9/hook', events: ['message.received'] };
    const refused = await t.request('POST', '/webhooks', { key, body: hook });
    expect(refused.status).toBe(400);
    await patch({ allowPrivateWebhooks: true });
    expect((await t.request('POST', '/webhooks', { key, body: hook })).status).toBe(201);

    expect((await t.request('GET', '/api/workspace/settings', owner)).body).toEqual({
      name: 'Default',
      businessAccountName: 'Default business account',
      allowPrivateWebhooks: true,
      lowBalanceThresholdMicros: 12_500_000,
      autoAssign: false,
      assignOnFirstReply: true,
      publicUrl: null,
    });
  });

  it('refuses what its schema does not allow, naming the field, and changes nothing', async () => {
    t = await makeCore();
    const before = (await t.request('GET', '/api/workspace/settings', owner)).body;
    const cases: [unknown, string][] = [
      [{ lowBalanceThresholdMicros: -1 }, 'lowBalanceThresholdMicros'],
      [{ lowBalanceThresholdMicros: 2.5 }, 'lowBalanceThresholdMicros'],
      [{ lowBalanceThresholdMicros: 1e13 }, 'lowBalanceThresholdMicros'],
      [{ publicUrl: 'ftp://desk.acme.example' }, 'publicUrl'],
      [{ publicUrl: 'desk.acme.example' }, 'publicUrl'],
      [{ autoAssign: 'yes' }, 'autoAssign'],
      [{ allowPrivateWebhooks: true, retention: 3 }, ''],
    ];
    for (const [body, param] of cases) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      if (param) expect(res.body.error.param).toBe(param);
    }
    expect((await t.request('GET', '/api/workspace/settings', owner)).body).toEqual(before);
    const audit = await t.request('GET', '/audit?action=settings.updated', owner);
    expect(audit.body.data).toEqual([]);
  });

  it('is read by builders, changed by admins only, and every change is audited', async () => {
    t = await makeCore();
    const ada = await t.member({ name: 'Ada Admin', role: 'admin' });
    const abe = await t.member({ name: 'Abe Agent', role: 'agent' });
    const key = t.key('live');

    expect((await t.request('GET', '/api/workspace/settings', { key })).status).toBe(200);
    const byKey = await patch({ autoAssign: true }, { key });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.details).toEqual({ requires: 'workspace.manage' });
    const byAgent = await t.request('GET', '/api/workspace/settings', { cookie: abe.cookie });
    expect(byAgent.status).toBe(403);
    expect((await patch({ autoAssign: true }, { cookie: abe.cookie })).status).toBe(403);

    const byAdmin = await patch(
      { publicUrl: 'https://desk.acme.example', lowBalanceThresholdMicros: 1_000_000 },
      { cookie: ada.cookie },
    );
    expect(byAdmin.status).toBe(200);
    const audit = await t.request('GET', '/audit?action=settings.updated', owner);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      actor: { kind: 'member', name: 'Ada Admin' },
      target: { type: 'workspace' },
      details: { fields: ['lowBalanceThresholdMicros', 'publicUrl'] },
    });
    // Which fields, never their values.
    expect(JSON.stringify(audit.body.data[0])).not.toContain('desk.acme.example');
  });
});

describe('workspace and business account names', () => {
  it('renames both, trimmed, shown by /api/me and /api/workspaces, audited by field', async () => {
    t = await makeCore();
    const res = await patch({ name: '  Acme Shop ', businessAccountName: '\tAcme WhatsApp  ' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Acme Shop', businessAccountName: 'Acme WhatsApp' });

    const me = await t.request('GET', '/api/me', owner);
    expect(me.body.workspace.name).toBe('Acme Shop');
    expect(me.body.businessAccount.name).toBe('Acme WhatsApp');
    const list = await t.request('GET', '/api/workspaces', owner);
    expect(list.body.data.map((w: { name: string }) => w.name)).toEqual(['Acme Shop']);

    // One without the other leaves the other as it is; 80 characters are allowed.
    const long = 'x'.repeat(80);
    expect((await patch({ businessAccountName: long })).body).toMatchObject({
      name: 'Acme Shop',
      businessAccountName: long,
    });

    const audit = await t.request('GET', '/audit?action=settings.updated', owner);
    expect(audit.body.data.map((e: { details: unknown }) => e.details)).toEqual([
      { environment: 'test', fields: ['businessAccountName'] },
      { environment: 'test', fields: ['businessAccountName', 'name'] },
    ]);
  });

  it('refuses an empty, too long, multi-line or non-text name, naming the field', async () => {
    t = await makeCore();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ name: '' }, 'name', /^name must not be empty/],
      [{ name: '   ' }, 'name', /^name must not be empty/],
      [{ name: 'y'.repeat(81) }, 'name', /^name must be at most 80 characters/],
      [{ name: 'Acme\nShop' }, 'name', /^name must be one line/],
      [{ name: 42 }, 'name', /^name/],
      [{ name: null }, 'name', /^name/],
      [{ businessAccountName: ' ' }, 'businessAccountName', /^businessAccountName must not be/],
      [{ name: 'Fine', businessAccountName: 'z'.repeat(90) }, 'businessAccountName', /80/],
    ];
    for (const [body, param, message] of cases) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.param).toBe(param);
      expect(res.body.error.message).toMatch(message);
    }
    const read = await t.request('GET', '/api/workspace/settings', owner);
    expect(read.body).toMatchObject({
      name: 'Default',
      businessAccountName: 'Default business account',
    });
  });

  it('is renamed by owners and admins only: an agent and an API key get a 403', async () => {
    t = await makeCore();
    const ada = await t.member({ name: 'Ada Admin', role: 'admin' });
    const abe = await t.member({ name: 'Abe Agent', role: 'agent' });
    const byAgent = await patch({ name: 'Abe’s shop' }, { cookie: abe.cookie });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.error.details).toEqual({ requires: 'workspace.manage' });
    expect((await patch({ name: 'Key shop' }, { key: t.key('live') })).status).toBe(403);
    const byAdmin = await patch({ name: 'Ada’s shop' }, { cookie: ada.cookie });
    expect(byAdmin.status).toBe(200);
    const me = await t.request('GET', '/api/me', { cookie: abe.cookie });
    expect(me.body.workspace.name).toBe('Ada’s shop');
  });
});

describe('retention', () => {
  it('shows the desk’s periods, its variables and defaults, read-only', async () => {
    t = await makeCore({ retention: { ...DEFAULT_RETENTION, eventsDays: 7, mediaDays: 30 } });
    const res = await t.request('GET', '/api/workspace/retention', owner);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(8);
    expect(res.body.data[0]).toEqual({
      kind: 'events',
      days: 7,
      defaultDays: 30,
      variable: 'PARLEY_RETENTION_EVENTS_DAYS',
      minDays: 0,
    });
    expect(res.body.data.find((r: { kind: string }) => r.kind === 'businessEvents')).toEqual({
      kind: 'businessEvents',
      days: 1,
      defaultDays: 1,
      variable: 'PARLEY_RETENTION_BUSINESS_EVENTS_DAYS',
      minDays: 1,
    });
    expect(res.body.fixed).toContainEqual({ what: 'the audit trail', days: 400 });

    // No request changes them.
    const put = await t.request('PATCH', '/api/workspace/retention', { ...owner, body: {} });
    expect(put.status).toBe(405);
    const abe = await t.member({ name: 'Abe Agent', role: 'agent' });
    expect(
      (await t.request('GET', '/api/workspace/retention', { cookie: abe.cookie })).status,
    ).toBe(403);
  });
});
