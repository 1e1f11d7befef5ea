import { afterEach, describe, expect, it } from 'vitest';
import { funnelHolds } from '../../shared/campaign-rules.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';
import { followEvents } from '../sse.ts';

let t: TestCore;
afterEach(async () => t?.close());

const tpl = (name = 'spring_sale', category = 'MARKETING') => ({
  name,
  category,
  language: 'en',
  components: [{ type: 'BODY', text: 'Hi {{1}}, use {{2}} for 20% off.' }],
});

const phone = (i: number) => `+1415555${String(1000 + i).padStart(4, '0')}`;

/** A core on a manual clock, an approved template in test and live, and `n` contacts in a group. */
async function setup(n = 5, opts: { env?: 'test' | 'live' } = {}) {
  const clock = manualClock();
  t = await makeCore({ clock });
  const env = opts.env ?? 'test';
  const key = t.key(env);
  const scope = { workspaceId: t.workspaceId, environment: env } as const;
  const tplId = (await t.request('POST', '/api/templates', { key, body: tpl() })).body.template.id;
  t.core.services.templates.decide(scope, tplId, 'approve');
  clock.advance(600_000);
  const jobs = t.core.services.scheduler;
  await jobs.runDue();
  const contactIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await t.request('POST', '/api/contacts', {
      key,
      body: {
        phone: phone(i),
        name: i === n - 1 && n > 3 ? null : `Person ${i}`,
        labels: i % 2 ? ['vip'] : ['news'],
        attributes: { tier: i % 2 ? 'gold' : 'silver' },
      },
    });
    contactIds.push(r.body.id);
  }
  const group = (
    await t.request('POST', '/api/contacts/groups', { key, body: { name: 'All', contactIds } })
  ).body;
  const create = (body: Record<string, unknown> = {}, k = key) =>
    t.request('POST', '/campaigns', {
      key: k,
      body: {
        name: 'Spring sale',
        templateName: 'spring_sale',
        variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
        target: { groupId: group.id },
        ...body,
      },
    });
  const post = (path: string, body: unknown, k = key) =>
    t.request('POST', `/campaigns/${path}`, { key: k, body });
  const progress = async (id: string, k = key) =>
    (await t.request('GET', `/campaigns/${id}/progress`, { key: k })).body;
  /** Runs the scheduler until nothing is due, moving the clock `step` ms `times` times. */
  const drain = async (times = 20, step = 1000) => {
    for (let i = 0; i < times; i++) {
      await jobs.runDue();
      clock.advance(step);
    }
    await jobs.runDue();
  };
  return { clock, key, scope, jobs, group, contactIds, create, post, progress, drain };
}

describe('campaign drafts', () => {
  it('creates, reads, lists and edits a draft; launched ones cannot be edited', async () => {
    const { key, create, post, group } = await setup(5);
    const res = await create();
    expect(res.status).toBe(201);
    const c = res.body;
    expect(c).toMatchObject({
      id: expect.stringMatching(/^cmp_/),
      name: 'Spring sale',
      status: 'draft',
      templateName: 'spring_sale',
      variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
      target: { groupId: group.id },
      scheduledFor: null,
      pauseReason: null,
      launchedAt: null,
      completedAt: null,
      metrics: { status: 'draft', total: 0, pending: 0, sent: 0, blockedBy: null },
    });
    expect((await t.request('GET', `/campaigns/${c.id}`, { key })).body).toEqual(c);

    const put = await t.request('PUT', '/campaigns', {
      key,
      body: { id: c.id, name: 'Spring sale 2', target: { filter: { labels: ['vip'] } } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: 'Spring sale 2',
      target: { filter: { labels: ['vip'] } },
    });

    const list = await t.request('GET', '/campaigns?status=draft', { key });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect((await t.request('GET', '/campaigns?status=sending', { key })).body.data).toEqual([]);

    expect((await post('launch', { id: c.id })).status).toBe(200);
    const again = await t.request('PUT', '/campaigns', { key, body: { id: c.id, name: 'x' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('names the field of a bad body', async () => {
    const { create, key } = await setup(1);
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ name: '' }, 400, 'validation_error', 'name'],
      [{ templateName: 'nope' }, 404, 'template_not_found', 'templateName'],
      [{ variables: { '1': 'x' } }, 400, 'template_variables_mismatch', 'variables'],
      [
        { variables: { '1': '{{contact.nick}}', '2': 'x' } },
        400,
        'validation_error',
        'variables.1',
      ],
      [{ target: { groupId: 'grp_nope' } }, 404, 'not_found', 'target.groupId'],
      [{ target: {} }, 400, 'validation_error', 'target'],
      [{ target: { groupId: 'g', filter: {} } }, 400, 'validation_error', 'target'],
      [
        { target: { filter: { phones: ['12'] } } },
        400,
        'validation_error',
        'target.filter.phones.0',
      ],
      [{ scheduledFor: '2020-01-01T00:00:00Z' }, 400, 'validation_error', 'scheduledFor'],
      [{ scheduledFor: 'tomorrow' }, 400, 'validation_error', 'scheduledFor'],
    ];
    for (const [body, status, code, param] of cases) {
      const r = await create(body);
      expect([JSON.stringify(body), r.status, r.body.error?.code, r.body.error?.param]).toEqual([
        JSON.stringify(body),
        status,
        code,
        param,
      ]);
    }
    expect((await t.request('GET', '/campaigns', { key })).body.data).toEqual([]);
  });

  it('keeps campaigns to their scope', async () => {
    const { create } = await setup(2);
    const id = (await create()).body.id;
    const live = t.key('live');
    expect((await t.request('GET', `/campaigns/${id}`, { key: live })).status).toBe(404);
    expect((await t.request('POST', '/campaigns/launch', { key: live, body: { id } })).status).toBe(
      404,
    );
    expect((await t.request('GET', '/campaigns', { key: live })).body.data).toEqual([]);
  });
});

describe('launch and the runner', () => {
  it('fixes recipients at launch, renders variables, fails missing ones and completes', async () => {
    const { create, post, progress, key, drain, contactIds } = await setup(5);
    const id = (await create()).body.id;
    const launched = await post('launch', { id });
    expect(launched.status).toBe(200);
    expect(launched.body.status).toBe('sending');
    expect(launched.body.metrics).toMatchObject({ total: 5, pending: 4, failed: 1 });
    // A contact added to the group after launch is not a recipient.
    await drain(15);
    const p = await progress(id);
    expect(p).toMatchObject({
      status: 'completed',
      total: 5,
      pending: 0,
      retrying: 0,
      sent: 4,
      delivered: 4,
      read: 4,
      failed: 1,
      skipped: 0,
      blockedBy: null,
      etaSeconds: null,
    });
    expect(funnelHolds(p)).toBe(true);
    const recipients = (await t.request('GET', `/campaigns/${id}/recipients`, { key })).body.data;
    expect(recipients).toHaveLength(5);
    const missing = recipients.find((r: { contactId: string }) => r.contactId === contactIds[4]);
    expect(missing).toMatchObject({ status: 'failed', error: { code: 'variable_missing' } });
    const ok = recipients.find((r: { contactId: string }) => r.contactId === contactIds[0]);
    expect(ok).toMatchObject({
      status: 'read',
      attempts: 1,
      messageId: expect.stringMatching(/^msg_/),
    });
    const msgs = (await t.request('GET', `/messages?contactId=${contactIds[0]}`, { key })).body
      .data;
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatchObject({
      text: 'Hi Person 0, use SPRING20 for 20% off.',
      status: 'read',
    });
    const failed = await t.request('GET', `/campaigns/${id}/recipients?status=failed`, { key });
    expect(failed.body.data).toHaveLength(1);
    const done = (await t.request('GET', `/campaigns/${id}`, { key })).body;
    expect(done.completedAt).not.toBeNull();
    // The contact's campaigns, with its outcome.
    const mine = await t.request('GET', `/campaigns?contactId=${contactIds[0]}`, { key });
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.data[0].recipient).toMatchObject({ status: 'read' });
  });

  it('refuses every wrong transition with 409 invalid_state', async () => {
    const { create, post, drain } = await setup(3);
    const id = (await create()).body.id;
    const code = async (path: string) => {
      const r = await post(path, { id });
      return r.status === 200 ? r.body.status : `${r.status} ${r.body.error.code}`;
    };
    expect(await code('pause')).toBe('409 invalid_state');
    expect(await code('launch')).toBe('sending');
    expect(await code('launch')).toBe('409 invalid_state');
    expect(await code('pause')).toBe('paused');
    expect(await code('pause')).toBe('409 invalid_state');
    expect(await code('launch')).toBe('sending');
    await drain(10);
    expect(await code('pause')).toBe('409 invalid_state');
    expect(await code('cancel')).toBe('409 invalid_state');
    expect(await code('launch')).toBe('409 invalid_state');
    const other = (await create()).body.id;
    expect((await post('cancel', { id: other })).body.status).toBe('cancelled');
    expect((await post('launch', { id: other })).status).toBe(409);
    expect((await post('launch', { id: 'cmp_nope' })).status).toBe(404);
  });

  it('a paused campaign sends nothing until resumed; cancel skips the rest', async () => {
    const { create, post, progress, jobs, clock, scope } = await setup(6);
    // One message per second: the pause lands mid-way.
    t.core.services.simulator.update(scope.workspaceId, { throughputMps: 1 });
    const id = (await create({ variables: { '1': 'friend', '2': 'X' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const first = await progress(id);
    expect(first.sent).toBe(1);
    expect(first.blockedBy).toBe('throughput');
    await post('pause', { id });
    clock.advance(10_000);
    await jobs.runDue();
    expect((await progress(id)).sent).toBe(1);
    await post('launch', { id });
    await jobs.runDue();
    clock.advance(1000);
    await jobs.runDue();
    expect((await progress(id)).sent).toBe(3);
    const cancelled = await post('cancel', { id });
    expect(cancelled.body.status).toBe('cancelled');
    const p = await progress(id);
    expect(p).toMatchObject({ status: 'cancelled', sent: 3, skipped: 3, pending: 0 });
    expect(funnelHolds(p)).toBe(true);
  });

  it('a target matching nobody cannot launch', async () => {
    const { create, post } = await setup(2);
    const id = (await create({ target: { filter: { labels: ['nobody'] } } })).body.id;
    const r = await post('launch', { id });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'target' });
    expect((await t.request('GET', `/campaigns/${id}`, { key: t.key('test') })).body.status).toBe(
      'draft',
    );
  });

  it('filters by labels (any of), phones and attributes (all equal)', async () => {
    const { post } = await setup(6);
    const count = async (filter: Record<string, unknown>) =>
      (await post('audience', { target: { filter } })).body.total;
    expect(await count({ labels: ['vip'] })).toBe(3);
    expect(await count({ labels: ['vip', 'news'] })).toBe(6);
    expect(await count({ attributes: { tier: 'gold' } })).toBe(3);
    expect(await count({ labels: ['news'], attributes: { tier: 'gold' } })).toBe(0);
    expect(await count({ phones: [phone(0), phone(1), '+1 (415) 555-1000'] })).toBe(2);
    expect(await count({})).toBe(6);
  });

  it('previews the audience: count, missing variables and a rendered sample', async () => {
    const { post, group } = await setup(5);
    const r = await post('audience', {
      target: { groupId: group.id },
      templateName: 'spring_sale',
      variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 5, missingVariables: 1 });
    expect(r.body.sample.text).toMatch(/^Hi Person \d, use SPRING20 for 20% off\.$/);
  });

  it('a scheduled launch waits for its time, and survives a restart', async () => {
    const { create, post, clock, key } = await setup(3);
    const at = new Date(clock.now() + 3600_000).toISOString();
    const id = (await create()).body.id;
    const r = await post('launch', { id, scheduledFor: at });
    expect(r.body).toMatchObject({ status: 'scheduled', scheduledFor: at, launchedAt: null });
    expect(r.body.metrics.total).toBe(3);
    // Restart the core on the same data dir.
    const dataDir = t.dataDir;
    await t.core.stop();
    t = await makeCore({ clock, dataDir });
    await t.core.services.scheduler.runDue();
    expect((await t.request('GET', `/campaigns/${id}`, { key })).body.status).toBe('scheduled');
    clock.advance(3600_000);
    for (let i = 0; i < 10; i++) {
      await t.core.services.scheduler.runDue();
      clock.advance(1000);
    }
    const done = (await t.request('GET', `/campaigns/${id}`, { key })).body;
    expect(done.status).toBe('completed');
    expect(done.launchedAt).not.toBeNull();
  });

  it('retries retryable failures with backoff and fails the undeliverable', async () => {
    const { post, key, drain } = await setup(0);
    for (const p of ['+15550000001', '+15550000002', '+14155550999']) {
      await t.request('POST', '/api/contacts', { key, body: { phone: p, name: 'X' } });
    }
    const id = (
      await t.request('POST', '/campaigns', {
        key,
        body: {
          name: 'Magic',
          templateName: 'spring_sale',
          variables: { '1': 'a', '2': 'b' },
          target: { filter: { phones: ['+15550000001', '+15550000002', '+14155550999'] } },
        },
      })
    ).body.id;
    await post('launch', { id });
    await drain(10);
    const rs = (await t.request('GET', `/campaigns/${id}/recipients`, { key })).body.data;
    const by = Object.fromEntries(rs.map((r: { phone: string }) => [r.phone, r]));
    expect(by['+15550000001']).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: '131026' },
    });
    expect(by['+15550000002']).toMatchObject({ status: 'read', attempts: 2 });
    expect(by['+14155550999']).toMatchObject({ status: 'read', attempts: 1 });
    const tl = (await t.request('GET', `/campaigns/${id}/timeline`, { key })).body;
    const totals = tl.data.reduce(
      (a: { sent: number; failed: number }, b: { sent: number; failed: number }) => ({
        sent: a.sent + b.sent,
        failed: a.failed + b.failed,
      }),
      { sent: 0, failed: 0 },
    );
    expect(totals).toEqual({ sent: 2, failed: 2 });
  });

  it('fails the campaign when its template stops being sendable', async () => {
    const { create, post, jobs, scope, clock, progress } = await setup(6);
    t.core.services.simulator.update(scope.workspaceId, { throughputMps: 1 });
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const tplId = t.core.services.templates.repo.byName(scope, 'spring_sale')!.id;
    t.core.services.templates.decide(scope, tplId, 'pause');
    clock.advance(1000);
    await jobs.runDue();
    const c = (await t.request('GET', `/campaigns/${id}`, { key: t.key('test') })).body;
    expect(c.status).toBe('failed');
    expect(c.failureReason).toMatch(/spring_sale/);
    const p = await progress(id);
    expect(p).toMatchObject({ sent: 1, skipped: 5 });
  });
});

describe('live campaigns and the wallet', () => {
  it('charges each message and pauses when the wallet runs dry', async () => {
    const { create, post, drain, progress, key } = await setup(5, { env: 'live' });
    // MARKETING costs 25,000 micros: enough for two.
    t.core.services.wallet.topup(t.workspaceId, 50_000);
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await drain(5);
    const c = (await t.request('GET', `/campaigns/${id}`, { key })).body;
    expect(c).toMatchObject({ status: 'paused', pauseReason: 'insufficient_balance' });
    expect(await progress(id)).toMatchObject({ sent: 2, pending: 3 });
    const w = t.core.services.wallet;
    expect(w.get(t.workspaceId).balanceMicros).toBe(0);
    expect(w.ledgerSum(t.workspaceId)).toBe(0);
    w.topup(t.workspaceId, 1_000_000);
    expect((await post('launch', { id })).body.status).toBe('sending');
    await drain(10);
    expect(await progress(id)).toMatchObject({ status: 'completed', sent: 5 });
    expect(w.get(t.workspaceId).balanceMicros).toBe(1_000_000 - 3 * 25_000);
  });
});

/**
 * The store refuses the `nth` status change to delivered made from now on (the whole run that
 * makes it fails and is rolled back, this count with it), until lifted.
 */
function refuseDelivered(nth: number) {
  t.core.db.exec(`CREATE TABLE refuse (n INTEGER);
    INSERT INTO refuse VALUES (0);
    CREATE TRIGGER refuse_delivered BEFORE UPDATE OF status ON messages
    WHEN new.status = 'delivered' AND (SELECT n FROM refuse) >= 0 BEGIN
      UPDATE refuse SET n = n + 1;
      SELECT RAISE(ABORT, 'refused') WHERE (SELECT n FROM refuse) = ${nth};
    END;`);
  return { lift: () => t.core.db.exec('UPDATE refuse SET n = -1') };
}

describe('events', () => {
  it('writes status updates and throttled progress events', async () => {
    const { create, post, drain } = await setup(4);
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await drain(10);
    const rows = t.core.services.db
      .prepare(
        `SELECT type, data, created_at FROM events WHERE type LIKE 'campaign.%' ORDER BY seq`,
      )
      .all() as { type: string; data: string; created_at: number }[];
    const statuses = rows
      .filter((r) => r.type === 'campaign.status_updated')
      .map((r) => JSON.parse(r.data).campaign.status);
    expect(statuses).toEqual(['sending', 'completed']);
    const progress = rows.filter((r) => r.type === 'campaign.progress');
    for (let i = 1; i < progress.length; i++) {
      // At most one a second, except the final one at the end.
      const gap = progress[i]!.created_at - progress[i - 1]!.created_at;
      const final = JSON.parse(progress[i]!.data).progress.status === 'completed';
      if (!final) expect(gap).toBeGreaterThanOrEqual(1000);
    }
    for (const r of progress) expect(funnelHolds(JSON.parse(r.data).progress)).toBe(true);
    const last = JSON.parse(progress[progress.length - 1]!.data);
    expect(last).toMatchObject({ campaignId: id, progress: { status: 'completed', read: 4 } });
  });

  it("a recipient's events: its conversation opened with the sent message, then the receipts", async () => {
    const { key, create, post, jobs, clock } = await setup(1);
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const events = () =>
      (
        t.core.db
          .prepare(`SELECT type, data FROM events WHERE campaign_id = ? ORDER BY seq`)
          .all(id) as { type: string; data: string }[]
      ).map((r) => ({ type: r.type, data: JSON.parse(r.data) }));
    const [created, sent] = events();
    expect(events().map((e) => e.type)).toEqual(['conversation.created', 'message.sent']);
    const message = (
      await t.request('GET', `/messages?phone=${encodeURIComponent(phone(0))}`, {
        key,
      })
    ).body.data[0];
    expect(message).toMatchObject({ status: 'sent', sentAt: expect.any(String) });
    // The message as the API shows it, in both events; the conversation as the API serves it.
    expect(sent!.data.message).toEqual(message);
    expect(created!.data.conversation.lastMessage).toEqual(message);
    const conversation = (
      await t.request('GET', `/conversations?ids=${created!.data.conversation.id}`, { key })
    ).body.data[0];
    expect(JSON.stringify(created!.data.conversation)).toBe(JSON.stringify(conversation));
    clock.advance(10_000);
    await jobs.runDue();
    expect(events().map((e) => e.type)).toEqual([
      'conversation.created',
      'message.sent',
      'message.delivered',
      'message.read',
    ]);
  });

  it("a pass's receipts are one job per status, each status applied when its time comes", async () => {
    const { create, post, jobs, clock } = await setup(5);
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const receiptJobs = () =>
      (
        t.core.db
          .prepare(
            `SELECT payload, run_at FROM jobs WHERE kind = 'message.receipts' ORDER BY run_at`,
          )
          .all() as { payload: string; run_at: number }[]
      ).map((j) => ({
        runAt: j.run_at,
        receipts: (JSON.parse(j.payload) as { receipts: [string, string, number][] }).receipts,
      }));
    const [delivered, read] = receiptJobs();
    expect(receiptJobs()).toHaveLength(2);
    expect(delivered!.receipts.map((r) => r[1])).toEqual(Array(5).fill('delivered'));
    expect(read!.receipts.map((r) => r[1])).toEqual(Array(5).fill('read'));
    const times = delivered!.receipts.map((r) => r[2]);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(delivered!.runAt).toBe(times[0]);
    const statusOf = () =>
      Object.fromEntries(
        t.core.db
          .prepare('SELECT id, status FROM messages WHERE campaign_id = ?')
          .raw()
          .all(id) as [string, string][],
      );
    // At the third one's time: the first three are delivered, the job waits for the fourth.
    clock.set(times[2]!);
    await jobs.runDue();
    const status = statusOf();
    expect(delivered!.receipts.map(([messageId]) => status[messageId])).toEqual([
      'delivered',
      'delivered',
      'delivered',
      'sent',
      'sent',
    ]);
    expect(receiptJobs()[0]!.runAt).toBe(times[3]);
    clock.advance(10_000);
    await jobs.runDue();
    expect(Object.values(statusOf())).toEqual(Array(5).fill('read'));
    expect(receiptJobs()).toEqual([]);
  });

  it('a receipts run that fails is run again with every due receipt, none applied twice', async () => {
    const { create, post, jobs, clock } = await setup(3);
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const db = t.core.db;
    // The store refuses the second delivered receipt the first time round.
    const refusal = refuseDelivered(2);
    clock.advance(1500); // every delivered receipt due (0.6–1 s), no read one (≥ 2.4 s)
    await jobs.runDue();
    const count = (type: string) =>
      db
        .prepare('SELECT count(*) FROM events WHERE type = ? AND campaign_id = ?')
        .pluck()
        .get(type, id);
    expect(count('message.delivered')).toBe(0);
    refusal.lift();
    clock.advance(10_000);
    await jobs.runDue();
    expect(count('message.delivered')).toBe(3);
    expect(count('message.read')).toBe(3);
  });

  it('a later receipts run that fails is run again from every due receipt: each applied once', async () => {
    const { create, post, jobs, clock } = await setup(5);
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const db = t.core.db;
    const deliveredJob = () =>
      db
        .prepare(
          `SELECT payload, run_at AS runAt, attempts FROM jobs
           WHERE kind = 'message.receipts' AND payload LIKE '%"delivered"%'`,
        )
        .get() as { payload: string; runAt: number; attempts: number } | undefined;
    const receipts = (
      JSON.parse(deliveredJob()!.payload) as { receipts: [string, string, number][] }
    ).receipts;
    const times = receipts.map((r) => r[2]);
    const statuses = () => {
      const of = Object.fromEntries(
        db.prepare('SELECT id, status FROM messages WHERE campaign_id = ?').raw().all(id) as [
          string,
          string,
        ][],
      );
      return receipts.map(([messageId]) => of[messageId]);
    };
    /** Each message's events of a type, in the receipts' order. */
    const events = (type: string) => {
      const per = new Map<string, number>();
      for (const data of db
        .prepare('SELECT data FROM events WHERE type = ? AND campaign_id = ?')
        .pluck()
        .all(type, id) as string[]) {
        const messageId = (JSON.parse(data) as { message: { id: string } }).message.id;
        per.set(messageId, (per.get(messageId) ?? 0) + 1);
      }
      return receipts.map(([messageId]) => per.get(messageId) ?? 0);
    };

    // A first run applies the three due receipts and asks to run again at the fourth's time.
    clock.set(times[2]!);
    await jobs.runDue();
    expect(statuses()).toEqual(['delivered', 'delivered', 'delivered', 'sent', 'sent']);
    expect(deliveredJob()).toMatchObject({ runAt: times[3], attempts: 0 });

    // The next run (due at the fourth's time, the fifth due too) fails at the fifth: rolled
    // back, the fourth with it.
    const refusal = refuseDelivered(2);
    clock.set(times[4]!);
    await jobs.runDue();
    expect(statuses()).toEqual(['delivered', 'delivered', 'delivered', 'sent', 'sent']);
    const retry = deliveredJob()!;
    expect(retry.attempts).toBe(1);
    // Its retry is due after both receipts' times: it must look at every due one, not only
    // those from its own due time on.
    expect(retry.runAt).toBeGreaterThan(times[4]!);

    refusal.lift();
    clock.set(retry.runAt);
    await jobs.runDue();
    expect(statuses().slice(3)).toEqual(['delivered', 'delivered']);
    expect(events('message.delivered')).toEqual([1, 1, 1, 1, 1]);
    expect(deliveredJob()).toBeUndefined();

    clock.advance(10_000);
    await jobs.runDue();
    expect(statuses()).toEqual(Array(5).fill('read'));
    expect(events('message.delivered')).toEqual([1, 1, 1, 1, 1]);
    expect(events('message.read')).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('the governor holds campaigns', () => {
  it('waits for the 24 h tier window and says so in progress', async () => {
    const { create, post, progress, jobs, scope, clock, key } = await setup(5);
    t.core.services.simulator.update(scope.workspaceId, { messagingTier: 3 });
    // One contact wrote in the last 24 h: messaging it takes no tier slot.
    await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: phone(4), message: 'hi' },
    });
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const p = await progress(id);
    expect(p).toMatchObject({ sent: 4, pending: 1, blockedBy: 'tier', status: 'sending' });
    const opened = Date.parse(
      (await t.request('GET', `/campaigns/${id}`, { key })).body.launchedAt,
    );
    expect(Date.parse(p.blockedUntil)).toBe(opened + 24 * 3600_000);
    expect(p.etaSeconds).toBeGreaterThanOrEqual(24 * 3600 - 1);
    clock.set(opened + 24 * 3600_000);
    await jobs.runDue();
    expect(await progress(id)).toMatchObject({ status: 'completed', sent: 5, blockedBy: null });
  });

  it('keeps 6 s between messages to one person, also after an API send', async () => {
    const { create, post, progress, jobs, clock, key } = await setup(2);
    const sent = await t.request('POST', '/api/send', {
      key,
      body: { phone: phone(0), templateName: 'spring_sale', variables: { '1': 'a', '2': 'b' } },
    });
    expect(sent.status).toBe(200);
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    const p = await progress(id);
    expect(p).toMatchObject({ sent: 1, pending: 1, blockedBy: 'pair_rate' });
    expect(Date.parse(p.blockedUntil)).toBe(clock.now() + 6000);
    clock.advance(6000);
    await jobs.runDue();
    expect(await progress(id)).toMatchObject({ status: 'completed', sent: 2 });
  });
});

describe('auto-pause on error rate', () => {
  it('pauses when more than half of the last 100 attempts failed', async () => {
    const clock = manualClock();
    // A channel that refuses three numbers in four, for good.
    let n = 0;
    t = await makeCore({
      clock,
      channel: {
        kind: 'local',
        newMessageId: () => `wamid.test${n++}`,
        handOver: (m) =>
          Number(m.phone.slice(-2)) % 4 === 0
            ? { ok: true, followUps: [] }
            : { ok: false, retryable: false, code: '131026', message: 'Message undeliverable' },
      },
    });
    const key = t.key('test');
    const scope = { workspaceId: t.workspaceId, environment: 'test' as const };
    t.core.services.simulator.update(scope.workspaceId, {
      messagingTier: null,
      throughputMps: 1000,
    });
    const tplId = (await t.request('POST', '/api/templates', { key, body: tpl() })).body.template
      .id;
    t.core.services.templates.decide(scope, tplId, 'approve');
    await t.core.services.scheduler.runDue();
    for (let i = 0; i < 150; i++) {
      await t.request('POST', '/api/contacts', { key, body: { phone: phone(i), labels: ['all'] } });
    }
    const id = (
      await t.request('POST', '/campaigns', {
        key,
        body: {
          name: 'Bad list',
          templateName: 'spring_sale',
          variables: { '1': 'a', '2': 'b' },
          target: { filter: { labels: ['all'] } },
        },
      })
    ).body.id;
    await t.request('POST', '/campaigns/launch', { key, body: { id } });
    await t.core.services.scheduler.runDue();
    const c = (await t.request('GET', `/campaigns/${id}`, { key })).body;
    expect(c).toMatchObject({ status: 'paused', pauseReason: 'error_rate' });
    // It stopped on the 51st failure: well before the end of the list.
    expect(c.metrics.failed).toBe(51);
    expect(c.metrics.sent + c.metrics.failed).toBeLessThan(100);
    expect(funnelHolds(c.metrics)).toBe(true);
    // Resuming starts a fresh window.
    const resumed = await t.request('POST', '/campaigns/launch', { key, body: { id } });
    expect(resumed.body).toMatchObject({ status: 'sending', pauseReason: null });
  });
});

describe('campaigns on one account', () => {
  it('share its throughput instead of one waiting for the other', async () => {
    const { create, post, progress, jobs, scope } = await setup(40);
    t.core.services.simulator.update(scope.workspaceId, { throughputMps: 10 });
    const a = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    const b = (
      await create({ variables: { '1': 'a', '2': 'b' }, target: { filter: { labels: ['vip'] } } })
    ).body.id;
    await post('launch', { id: a });
    await post('launch', { id: b });
    await jobs.runDue();
    const [pa, pb] = [await progress(a), await progress(b)];
    expect(pa.sent + pb.sent).toBe(10);
    expect(pa.sent).toBeGreaterThanOrEqual(4);
    expect(pb.sent).toBeGreaterThanOrEqual(4);
  });
});

describe('review fixes', () => {
  it('a paused scheduled campaign re-launched for later starts at the later time', async () => {
    const { create, post, clock, jobs, key } = await setup(2);
    const id = (await create()).body.id;
    const t1 = clock.now() + 3600_000;
    const t2 = clock.now() + 7200_000;
    await post('launch', { id, scheduledFor: new Date(t1).toISOString() });
    expect((await post('pause', { id })).body.status).toBe('paused');
    const again = await post('launch', { id, scheduledFor: new Date(t2).toISOString() });
    expect(again.body).toMatchObject({
      status: 'scheduled',
      scheduledFor: new Date(t2).toISOString(),
    });
    clock.set(t1 + 1);
    await jobs.runDue();
    expect((await t.request('GET', `/campaigns/${id}`, { key })).body.status).toBe('scheduled');
    clock.set(t2);
    await jobs.runDue();
    const started = (await t.request('GET', `/campaigns/${id}`, { key })).body;
    expect(started.status).not.toBe('scheduled');
    expect(started.launchedAt).toBe(new Date(t2).toISOString());
  });

  it('a started campaign resumes now: scheduledFor is refused', async () => {
    const { create, post, jobs, scope } = await setup(3);
    t.core.services.simulator.update(scope.workspaceId, { throughputMps: 1 });
    const id = (await create()).body.id;
    await post('launch', { id });
    await jobs.runDue();
    await post('pause', { id });
    const r = await post('launch', { id, scheduledFor: new Date(Date.now() + 1e9).toISOString() });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'scheduledFor' });
  });

  it('refuses a blank variable', async () => {
    const { create } = await setup(1);
    const r = await create({ variables: { '1': '  ', '2': 'x' } });
    expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'variables.1' });
  });

  it('progress events are a second apart, whatever the pace of changes', async () => {
    const { create, post, jobs, clock, scope } = await setup(12);
    t.core.services.simulator.update(scope.workspaceId, {
      throughputMps: 2,
      deliveryLatencyMs: 50,
      readLatencyMs: 50,
    });
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    for (let i = 0; i < 120; i++) {
      await jobs.runDue();
      clock.advance(100);
    }
    const rows = t.core.services.db
      .prepare(
        `SELECT type, data, created_at FROM events WHERE type LIKE 'campaign.%' ORDER BY seq`,
      )
      .all() as { type: string; data: string; created_at: number }[];
    const progress = rows.filter((r) => r.type === 'campaign.progress');
    expect(JSON.parse(progress.at(-1)!.data).progress).toMatchObject({
      status: 'completed',
      read: 12,
    });
    // Apart from the one written with a state change, never two within a second.
    const statusTimes = new Set(
      rows.filter((r) => r.type === 'campaign.status_updated').map((r) => r.created_at),
    );
    for (let i = 1; i < progress.length; i++) {
      const gap = progress[i]!.created_at - progress[i - 1]!.created_at;
      if (!statusTimes.has(progress[i]!.created_at)) expect(gap).toBeGreaterThanOrEqual(1000);
    }
    // And never the same funnel twice in a row.
    const funnels = progress.map((r) => {
      const { ratePerSecond: _r, etaSeconds: _e, ...rest } = JSON.parse(r.data).progress;
      return JSON.stringify(rest);
    });
    for (let i = 1; i < funnels.length; i++) expect(funnels[i]).not.toBe(funnels[i - 1]);
  });

  it('a raised tier wakes a campaign the tier held', async () => {
    const { create, post, progress, jobs, scope, key } = await setup(5);
    t.core.services.simulator.update(scope.workspaceId, { messagingTier: 3 });
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    expect(await progress(id)).toMatchObject({ sent: 3, blockedBy: 'tier' });
    const put = await t.request('PUT', '/api/simulator/settings', {
      key,
      body: { messagingTier: 1000 },
    });
    expect(put.status).toBe(200);
    await jobs.runDue();
    expect(await progress(id)).toMatchObject({ status: 'completed', sent: 5, blockedBy: null });
  });
});

describe('tier holds', () => {
  it('hold each refused recipient until its own slot ends', async () => {
    const { create, post, progress, jobs, scope, clock, key } = await setup(3);
    t.core.services.simulator.update(scope.workspaceId, { messagingTier: 2 });
    const send = (p: string) =>
      t.request('POST', '/api/send', {
        key,
        body: { phone: p, templateName: 'spring_sale', variables: { '1': 'a', '2': 'b' } },
      });
    const t0 = clock.now();
    await send('+14155550900');
    clock.advance(3600_000);
    await send('+14155550901'); // the tier is full: two slots, ending at t0+24h and t0+25h
    await jobs.runDue();
    const id = (await create({ variables: { '1': 'a', '2': 'b' } })).body.id;
    await post('launch', { id });
    await jobs.runDue();
    expect(await progress(id)).toMatchObject({ sent: 0, pending: 3, blockedBy: 'tier' });
    clock.set(t0 + 24 * 3600_000 + 1);
    await jobs.runDue();
    expect((await progress(id)).sent).toBe(1);
    clock.set(t0 + 25 * 3600_000 + 1);
    await jobs.runDue();
    expect((await progress(id)).sent).toBe(2);
  });
});

describe('launching a paused campaign', () => {
  it('resumes one paused before its scheduled start now, not at its old time; scheduledFor reschedules', async () => {
    const { create, post, clock, jobs, key, progress, drain } = await setup(2);
    const id = (await create()).body.id;
    const later = clock.now() + 3600_000;
    await post('launch', { id, scheduledFor: new Date(later).toISOString() });
    expect((await post('pause', { id })).body.status).toBe('paused');
    clock.advance(60_000);
    const resumed = await post('launch', { id });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      status: 'sending',
      scheduledFor: null,
      launchedAt: new Date(clock.now()).toISOString(),
    });
    await drain(3);
    expect((await progress(id)).sent).toBe(2);
    // Its old time comes and goes without a second start.
    clock.set(later + 1);
    await jobs.runDue();
    const after = (await t.request('GET', `/campaigns/${id}`, { key })).body;
    expect(after.status).toBe('completed');
    expect(after.launchedAt).toBe(resumed.body.launchedAt);

    // Paused again before its start, then rescheduled: it waits for the new time.
    const other = (await create({ name: 'Later' })).body.id;
    await post('launch', {
      id: other,
      scheduledFor: new Date(clock.now() + 3600_000).toISOString(),
    });
    await post('pause', { id: other });
    const t2 = clock.now() + 7200_000;
    const moved = await post('launch', { id: other, scheduledFor: new Date(t2).toISOString() });
    expect(moved.body).toMatchObject({
      status: 'scheduled',
      scheduledFor: new Date(t2).toISOString(),
    });
  });
});

describe('the event stream with ?campaigns=summary (the desk)', () => {
  it("leaves out a campaign's per-recipient events, keeps its progress and the customers' replies", async () => {
    const { create, post, key, drain } = await setup(4);
    const { url } = await t.core.start({ port: 0 });
    const id = (await create({ variables: { '1': 'friend', '2': 'SPRING20' } })).body.id;
    await post('launch', { id });
    await drain(15);
    // A recipient answers: that is the customer's, not the campaign's.
    await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: phone(0), message: 'Thanks!' },
    });
    const count = (sql: string) =>
      t.core.db
        .prepare(
          `SELECT count(*) FROM events WHERE workspace_id = ? AND environment = 'test' ${sql}`,
        )
        .pluck()
        .get(t.workspaceId) as number;
    const maxSeq = () => t.core.db.prepare('SELECT max(seq) FROM events').pluck().get() as number;
    const all = count('');
    const summary = count('AND campaign_id IS NULL');
    // 4 recipients: conversation.created (with the message as its last), message.sent,
    // .delivered, .read.
    expect(all - summary).toBe(16);
    const head = String(maxSeq());
    const read = async (query: string) => {
      const stream = await followEvents(`${url}/events${query}`, {
        'x-api-key': key,
        'last-event-id': '0',
      });
      await stream.waitFor((e) => e.id === head);
      stream.close();
      return stream.events;
    };
    const full = await read('');
    const desk = await read('?campaigns=summary');
    expect(full).toHaveLength(all);
    expect(desk).toHaveLength(summary);
    const types = (events: typeof desk) => new Set(events.map((e) => e.event));
    expect(types(full)).toContain('message.sent');
    expect(types(desk)).not.toContain('message.sent');
    expect(types(desk)).not.toContain('message.delivered');
    expect(types(desk)).toContain('campaign.progress');
    expect(types(desk)).toContain('campaign.status_updated');
    const received = desk.filter((e) => e.event === 'message.received');
    expect(received.map((e) => (e.data.data.message as { text: string }).text)).toEqual([
      'Thanks!',
    ]);
    // The reply moved the recipient's conversation: that event is the desk's too.
    expect(desk.filter((e) => e.event === 'conversation.updated')).toHaveLength(1);
    const bad = await t.request('GET', '/events?campaigns=some', { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  });
});
