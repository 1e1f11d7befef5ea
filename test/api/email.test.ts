import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const phone = (i: number) => `+1415555${String(1000 + i).padStart(4, '0')}`;

/** A core on a manual clock with contacts in a group: emails as given (null: none). */
async function setup(emails: (string | null)[]) {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const contactIds: string[] = [];
  for (const [i, email] of emails.entries()) {
    const r = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: phone(i), name: `Person ${i}`, ...(email ? { email } : {}) },
    });
    expect(r.status).toBeLessThan(300);
    contactIds.push(r.body.id);
  }
  const group = (
    await t.request('POST', '/api/contacts/groups', { key, body: { name: 'All', contactIds } })
  ).body;
  const jobs = t.core.services.scheduler;
  const create = (body: Record<string, unknown> = {}) =>
    t.request('POST', '/v1/email/campaigns', {
      key,
      body: {
        name: 'December news',
        subject: 'Hello {{contact.name}}',
        fromName: 'Acme',
        fromEmail: 'news@acme.example',
        html: '<p>Hi {{contact.name}}, see <a href="https://acme.example/sale?a=1&amp;b=2">the sale</a>.</p>',
        audience: { groupId: group.id },
        ...body,
      },
    });
  const post = (path: string, body: unknown = {}) =>
    t.request('POST', `/v1/email/campaigns/${path}`, { key, body });
  const get = async (id: string) =>
    (await t.request('GET', `/v1/email/campaigns/${id}`, { key })).body;
  const drain = async (times = 10, step = 1000) => {
    for (let i = 0; i < times; i++) {
      await jobs.runDue();
      clock.advance(step);
    }
    await jobs.runDue();
  };
  return { clock, key, jobs, group, contactIds, create, post, get, drain };
}

describe('email campaigns', () => {
  it('creates, edits, launches a draft and completes it with an exact funnel', async () => {
    const { key, create, post, get, drain } = await setup([
      'ann@example.com',
      'bob@bounce.test',
      'cy@noopen.test',
      null,
      'dee@example.com',
    ]);
    const res = await create();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'draft', counts: { total: 0 } });
    const id = res.body.id;

    const put = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { subject: 'News for {{contact.name}}' },
    });
    expect(put.body).toMatchObject({ status: 'draft', subject: 'News for {{contact.name}}' });

    const audience = await t.request('POST', '/v1/email/audience', {
      key,
      body: { audience: res.body.audience },
    });
    expect(audience.body).toEqual({
      total: 4,
      withoutEmail: 1,
      unsubscribed: 0,
      missingPlaceholders: [],
    });

    const launched = await post(`${id}/launch`);
    expect(launched.status).toBe(200);
    expect(launched.body).toMatchObject({ status: 'sending', counts: { total: 4, pending: 4 } });
    // Launched campaigns are not edited.
    const late = await t.request('PUT', `/v1/email/campaigns/${id}`, { key, body: { name: 'x' } });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({
      code: 'invalid_state',
      details: { status: 'sending' },
    });

    await drain();
    const done = await get(id);
    expect(done.status).toBe('completed');
    expect(done.counts).toEqual({
      total: 4,
      pending: 0,
      sent: 4,
      delivered: 3,
      opened: 2,
      clicked: 0,
      bounced: 1,
      failed: 0,
      unsubscribed: 0,
      cancelled: 0,
    });
    const recipients = await t.request(
      'GET',
      `/v1/email/campaigns/${id}/recipients?status=bounced`,
      { key },
    );
    expect(recipients.body.data).toHaveLength(1);
    expect(recipients.body.data[0]).toMatchObject({
      to: 'bob@bounce.test',
      status: 'bounced',
      error: { code: 'hard_bounce' },
    });
    const timeline = await t.request('GET', `/v1/email/campaigns/${id}/timeline`, { key });
    const sum = (k: 'sent' | 'opened') =>
      timeline.body.data.reduce((n: number, b: Record<string, number>) => n + b[k]!, 0);
    expect([sum('sent'), sum('opened')]).toEqual([4, 2]);

    const events = t.core.db
      .prepare(`SELECT type, data FROM events WHERE type LIKE 'email_campaign.%' ORDER BY seq`)
      .all() as { type: string; data: string }[];
    const statuses = events
      .filter((e) => e.type === 'email_campaign.status_updated')
      .map((e) => JSON.parse(e.data).campaign.status);
    expect(statuses).toEqual(['sending', 'completed']);
    expect(events.some((e) => e.type === 'email_campaign.progress')).toBe(true);
  });

  it('pauses only while sending, resumes by launching again, and cancels the rest', async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `p${i}@example.com`);
    const { create, post, get, jobs, clock } = await setup(emails);
    await t.request('PUT', '/api/simulator/settings', {
      key: t.key('test'),
      body: { emailRatePerSecond: 10 },
    });
    const id = (await create()).body.id;
    expect((await post(`${id}/pause`)).status).toBe(409);
    await post(`${id}/launch`);
    await jobs.runDue();
    expect((await get(id)).counts).toMatchObject({ sent: 10, pending: 20 });
    const paused = await post(`${id}/pause`);
    expect(paused.body.status).toBe('paused');
    clock.advance(5000);
    await jobs.runDue();
    expect((await get(id)).counts).toMatchObject({ sent: 10, pending: 20 });
    expect((await post(`${id}/launch`)).body.status).toBe('sending');
    await jobs.runDue();
    expect((await get(id)).counts.sent).toBe(20);
    const cancelled = await post(`${id}/cancel`);
    expect(cancelled.body).toMatchObject({
      status: 'cancelled',
      counts: { total: 30, sent: 20, pending: 0, cancelled: 10 },
    });
    expect((await post(`${id}/launch`)).status).toBe(409);
  });

  it('validates bodies, schedules, and names the failing field', async () => {
    const { create, clock, key, get, jobs } = await setup(['ann@example.com']);
    const bad = await create({ fromEmail: 'not-an-address' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('fromEmail');
    const past = await create({ scheduledFor: '2020-01-01T00:00:00+01:00' });
    expect(past.status).toBe(400);
    expect(past.body.error.param).toBe('scheduledFor');
    const noOffset = await create({ scheduledFor: '2030-01-01T00:00:00' });
    expect(noOffset.status).toBe(400);
    expect(noOffset.body.error.param).toBe('scheduledFor');
    const group = await create({ audience: { groupId: 'grp_nope' } });
    expect(group.status).toBe(404);
    expect(group.body.error.param).toBe('audience.groupId');

    const at = new Date(clock.now() + 3600_000).toISOString().replace('Z', '+00:00');
    const scheduled = await create({ scheduledFor: at });
    expect(scheduled.body).toMatchObject({ status: 'scheduled' });
    clock.advance(3600_000);
    await jobs.runDue();
    clock.advance(5000);
    await jobs.runDue();
    expect((await get(scheduled.body.id)).status).toBe('completed');
    const missing = await t.request('GET', '/v1/email/campaigns/ecmp_nope', { key });
    expect(missing.status).toBe(404);
  });

  it('tracks opens and signed clicks, and an unsubscribe keeps the contact out of later campaigns', async () => {
    const { create, post, get, drain, key, contactIds } = await setup([
      'ann@example.com',
      'bob@noopen.test',
    ]);
    const id = (await create()).body.id;
    await post(`${id}/launch`);
    await drain(5);
    const row = t.core.db
      .prepare(`SELECT token FROM email_messages WHERE to_address = 'bob@noopen.test'`)
      .get() as { token: string };
    const pixel = await t.core.app.inject({
      method: 'GET',
      url: `/e/o/${row.token}.gif`,
      headers: { host: 'mail.acme.example' },
    });
    expect(pixel.statusCode).toBe(200);
    expect(pixel.headers['content-type']).toBe('image/gif');

    const { clickUrl } = await import('../../main/core/email/compose.ts');
    const { createSealer, fileKeyProvider } = await import('../../main/core/secrets.ts');
    const sealedKey = (
      t.core.db.prepare(`SELECT link_key FROM email_settings`).get() as { link_key: string }
    ).link_key;
    // Stored sealed (README "Data, backups and security"): opened with the data dir's key.
    const opened = createSealer(fileKeyProvider(t.dataDir)).unseal(
      'email_settings.link_key',
      sealedKey,
    );
    const linkKey = opened.ok ? opened.value : '';
    const target = 'https://acme.example/sale?a=1&b=2';
    const url = new URL(clickUrl('http://x', row.token, target, Buffer.from(linkKey)));
    const click = await t.core.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(click.statusCode).toBe(302);
    expect(click.headers.location).toBe(target);
    const forged = await t.core.app.inject({
      method: 'GET',
      url: `/e/c/${row.token}?u=${encodeURIComponent('https://evil.example')}&s=${url.searchParams.get('s')}`,
    });
    expect(forged.statusCode).toBe(404);

    const page = await t.core.app.inject({ method: 'GET', url: `/e/u/${row.token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Unsubscribe');
    // RFC 8058: a POST with List-Unsubscribe=One-Click, no credentials.
    const oneClick = await t.core.app.inject({
      method: 'POST',
      url: `/e/u/${row.token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    expect((await get(id)).counts).toMatchObject({ opened: 2, clicked: 1, unsubscribed: 1 });
    const contact = await t.request('GET', `/api/contacts/${contactIds[1]}`, { key });
    expect(contact.status).toBe(200);
    expect(contact.body.emailUnsubscribedAt).toEqual(expect.any(String));

    const next = (await create({ name: 'January' })).body.id;
    expect((await post(`${next}/launch`)).body.counts.total).toBe(1);
  });

  it('sends one transactional email with the simulated transport', async () => {
    const { key, drain } = await setup([]);
    const noFrom = await t.request('POST', '/v1/email/send', {
      key,
      body: { to: 'ann@example.com', subject: 'Receipt', text: 'Thanks' },
    });
    expect(noFrom.status).toBe(400);
    expect(noFrom.body.error.param).toBe('fromEmail');
    const sent = await t.request('POST', '/v1/email/send', {
      key,
      body: {
        to: 'ann@example.com',
        subject: 'Receipt',
        text: 'Thanks',
        fromEmail: 'shop@acme.example',
      },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ id: expect.stringMatching(/^em_/), status: 'sent' });
    await drain(2);
    const got = await t.request('GET', `/v1/email/messages/${sent.body.id}`, { key });
    expect(got.body).toMatchObject({ status: 'delivered', to: 'ann@example.com' });
  });

  it('keeps SMTP secrets write-only in settings', async () => {
    await setup([]);
    const put = await t.request('PUT', '/v1/email/settings', {
      session: 'test',
      body: {
        smtp: {
          host: 'smtp.example.com',
          port: 587,
          secure: false,
          user: 'me',
          password: 's3cret',
        },
        ratePerSecond: 20,
        publicUrl: 'https://mail.acme.example/',
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      smtp: { host: 'smtp.example.com', passwordSet: true },
      ratePerSecond: 20,
      publicUrl: 'https://mail.acme.example',
      oneClickUnsubscribe: true,
      transport: 'simulated',
    });
    expect(JSON.stringify(put.body)).not.toContain('s3cret');
    // Kept when the server stays; a new server needs the password again (never sent elsewhere).
    const kept = await t.request('PUT', '/v1/email/settings', {
      session: 'test',
      body: { smtp: { host: 'smtp.example.com', port: 587, secure: true, user: 'me' } },
    });
    expect(kept.body.smtp).toMatchObject({ secure: true, passwordSet: true });
    const moved = await t.request('PUT', '/v1/email/settings', {
      session: 'test',
      body: { smtp: { host: 'evil.example.net', port: 587, secure: false, user: 'me' } },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.param).toBe('smtp.password');
  });
});

describe('what the review found', () => {
  it('emails an address once, and an unsubscribe covers every contact with it', async () => {
    const { create, post, drain, key } = await setup([
      'ann@example.com',
      'Ann@Example.com',
      'bob@example.com',
    ]);
    const first = (await create()).body.id;
    expect((await post(`${first}/launch`)).body.counts.total).toBe(2);
    await drain(2);
    const token = (
      t.core.db
        .prepare(`SELECT token FROM email_messages WHERE lower(to_address) = 'ann@example.com'`)
        .get() as { token: string }
    ).token;
    await t.core.app.inject({ method: 'POST', url: `/e/u/${token}` });
    const second = (await create({ name: 'Second' })).body.id;
    const launched = await post(`${second}/launch`);
    expect(launched.body.counts.total).toBe(1);
    const unsubscribed = t.core.db
      .prepare('SELECT count(*) FROM contacts WHERE email_unsubscribed_at IS NOT NULL')
      .pluck()
      .get();
    expect(unsubscribed).toBe(2);
    void key;
  });

  it('a campaign that has started keeps its content: only its resume time can change', async () => {
    const { create, post, clock, key } = await setup(['ann@example.com', 'bob@example.com']);
    await t.request('PUT', '/api/simulator/settings', {
      key: t.key('test'),
      body: { emailRatePerSecond: 1 },
    });
    const id = (await create()).body.id;
    await post(`${id}/launch`);
    await t.core.services.scheduler.runDue();
    await post(`${id}/pause`);
    const at = new Date(clock.now() + 3600_000).toISOString();
    expect((await post(`${id}/launch`, { scheduledFor: at })).body.status).toBe('scheduled');
    const edit = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { scheduledFor: null, subject: 'Changed' },
    });
    expect(edit.status).toBe(409);
    const later = new Date(clock.now() + 7200_000).toISOString();
    const moved = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { scheduledFor: later },
    });
    expect(moved.body).toMatchObject({ status: 'scheduled', scheduledFor: later });
  });

  it('a live campaign needs a public URL its recipients can reach', async () => {
    t = await makeCore({ clock: manualClock() });
    const key = t.key('live');
    const c = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: phone(1), email: 'ann@example.com' },
    });
    const group = (
      await t.request('POST', '/api/contacts/groups', {
        key,
        body: { name: 'G', contactIds: [c.body.id] },
      })
    ).body;
    const id = (
      await t.request('POST', '/v1/email/campaigns', {
        key,
        body: {
          name: 'N',
          subject: 'S',
          fromEmail: 'news@acme.example',
          html: '<p>x</p>',
          audience: { groupId: group.id },
        },
      })
    ).body.id;
    const refused = await t.request('POST', `/v1/email/campaigns/${id}/launch`, { key, body: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('publicUrl');
    await t.request('PUT', '/v1/email/settings', {
      session: 'live',
      body: { publicUrl: 'https://mail.acme.example' },
    });
    expect(
      (await t.request('POST', `/v1/email/campaigns/${id}/launch`, { key, body: {} })).status,
    ).toBe(200);
  });
});
