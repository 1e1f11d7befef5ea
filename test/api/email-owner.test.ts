import { afterEach, describe, expect, it } from 'vitest';
import { MARKDOWN_MAX } from '../../shared/email-markdown.ts';
import { emailCampaign } from '../email-fixture.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

/**
 * Email on the owner's desk (issue 24 items 4 and 5): the per-link click report, Markdown bodies,
 * test sends filled from a chosen contact, the branded unsubscribe page with "Resubscribe", and
 * the simulator's "a recipient clicks" (test keys only).
 */
let t: TestCore;
afterEach(async () => t?.close());

const HTML =
  '<p>Hi {{contact.firstName}}</p><p><a href="https://acme.example/sale">Sale</a> · <a href="https://acme.example/faq?x=1&amp;y=2">FAQ</a> · <a href="mailto:help@acme.example">Mail us</a></p>';

async function launched(emails: string[], campaign: Record<string, unknown> = {}) {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const c = await emailCampaign(t, key, emails, { html: HTML, fromName: 'Acme Shop', ...campaign });
  expect((await c.launch()).status).toBe(200);
  await t.core.services.scheduler.runDue();
  const messages = (await t.request('GET', `/v1/email/campaigns/${c.id}/recipients`, { key })).body
    .data as { id: string; to: string; status: string }[];
  const byAddress = new Map(messages.map((m) => [m.to, m.id]));
  return { key, clock, ...c, byAddress };
}

const click = (key: string, messageId: string, url?: string) =>
  t.request('POST', '/api/simulator/email/click', {
    key,
    body: url === undefined ? { messageId } : { messageId, url },
  });

describe('simulated clicks and the per-link report', () => {
  it('follows the same redirect a real click takes: funnel, per-link rows and progress move', async () => {
    const { key, id, byAddress, get } = await launched(['ann@example.com', 'bob@example.com']);
    const ann = byAddress.get('ann@example.com')!;
    const bob = byAddress.get('bob@example.com')!;

    const first = await click(key, ann);
    expect(first.status).toBe(200);
    expect(first.body.clickedAt).toEqual(expect.any(String));
    expect((await click(key, ann)).status).toBe(200);
    expect((await click(key, ann, 'https://acme.example/faq?x=1&y=2')).status).toBe(200);
    expect((await click(key, bob, 'https://acme.example/sale')).status).toBe(200);

    const report = await t.request('GET', `/v1/email/campaigns/${id}/links`, { key });
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ clickedRecipients: 2, totalClicks: 4 });
    expect(report.body.data).toEqual([
      expect.objectContaining({ url: 'https://acme.example/sale', recipients: 2, clicks: 3 }),
      expect.objectContaining({
        url: 'https://acme.example/faq?x=1&y=2',
        recipients: 1,
        clicks: 1,
      }),
    ]);
    expect((await get()).counts).toMatchObject({ clicked: 2 });
  });

  it('refuses a link the email does not have, an unknown email and a live key', async () => {
    const { key, byAddress } = await launched(['ann@example.com']);
    const ann = byAddress.get('ann@example.com')!;
    const other = await click(key, ann, 'https://evil.example/');
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ code: 'validation_error', param: 'url' });
    // The mailto link and the unsubscribe link are not tracked redirects.
    expect((await click(key, ann, 'mailto:help@acme.example')).status).toBe(400);
    const unknown = await click(key, 'em_nope');
    expect(unknown.status).toBe(404);
    const live = await click(t.key('live'), ann);
    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe('forbidden');
  });

  it('counts every click in totalClicks, beyond the 500 rows it lists', async () => {
    const { key, id, byAddress } = await launched(['ann@example.com']);
    // A personalised link makes one row per recipient: 600 distinct URLs, 2 clicks each.
    const insert = t.core.db.prepare(
      `INSERT INTO email_link_clicks (message_id, campaign_id, url, clicks, first_at, last_at)
       VALUES (?, ?, ?, 2, 1, 1)`,
    );
    for (let i = 0; i < 600; i++) {
      insert.run(byAddress.get('ann@example.com'), id, `https://acme.example/?n=${i}`);
    }
    const report = await t.request('GET', `/v1/email/campaigns/${id}/links`, { key });
    expect(report.body.data).toHaveLength(500);
    expect(report.body.totalClicks).toBe(1200);
  });

  it('answers 404 for a campaign of another scope', async () => {
    const { id } = await launched(['ann@example.com']);
    const res = await t.request('GET', `/v1/email/campaigns/${id}/links`, { key: t.key('live') });
    expect(res.status).toBe(404);
  });
});

describe('Markdown bodies', () => {
  it('renders Markdown to html on create and update, keeps the source, and HTML drops it', async () => {
    t = await makeCore({ clock: manualClock() });
    const key = t.key('test');
    const markdown =
      '# Hello {{contact.firstName}}\n\nOur [sale](https://acme.example/?e={{contact.email}}) starts **now**. <script>x</script>';
    const { id, get } = await emailCampaign(t, key, ['ann@example.com'], {
      html: undefined,
      markdown,
    });
    const created = await get();
    expect(created.markdown).toBe(markdown);
    expect(created.html).toContain('<h1>Hello {{contact.firstName}}</h1>');
    expect(created.html).toContain('href="https://acme.example/?e={{contact.email}}"');
    expect(created.html).toContain('<strong>now</strong>');
    expect(created.html).not.toContain('<script>');

    const both = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { html: '<p>x</p>', markdown: 'x' },
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({ code: 'validation_error', param: 'markdown' });

    const edited = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { markdown: 'Just *this*' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.html).toBe('<p>Just <em>this</em></p>\n');

    const asHtml = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { markdown: null },
    });
    expect(asHtml.body).toMatchObject({ markdown: null, html: '<p>Just <em>this</em></p>\n' });
  });

  it('refuses Markdown over 64 K characters (rendering stays short on the request path)', async () => {
    t = await makeCore({ clock: manualClock() });
    const key = t.key('test');
    const { id } = await emailCampaign(t, key, ['ann@example.com']);
    const long = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { markdown: '![a'.repeat(MARKDOWN_MAX / 3 + 1) },
    });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: 'validation_error', param: 'markdown' });
    expect(long.body.error.message).toContain('at most 65,536 characters');
    const fits = await t.request('PUT', `/v1/email/campaigns/${id}`, {
      key,
      body: { markdown: 'a'.repeat(MARKDOWN_MAX) },
    });
    expect(fits.status).toBe(200);
  });

  it('needs html or markdown on create', async () => {
    t = await makeCore({ clock: manualClock() });
    const res = await t.request('POST', '/v1/email/campaigns', {
      key: t.key('test'),
      body: {
        name: 'x',
        subject: 'x',
        fromEmail: 'news@acme.example',
        audience: { filter: { labels: ['a'] } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'html' });
  });
});

describe('test sends filled from a contact', () => {
  it('fills the placeholders from the chosen contact and sends to the typed address', async () => {
    t = await makeCore({ clock: manualClock() });
    const key = t.key('test');
    const contact = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: '+14155550199', name: 'Zoë Quinn', email: 'zoe@example.com' },
    });
    const { id } = await emailCampaign(t, key, ['ann@example.com'], {
      subject: 'Hi {{contact.firstName}}',
      html: '<p>{{contact.name}} / {{contact.email}}</p>',
    });
    const sent = await t.request('POST', `/v1/email/campaigns/${id}/test`, {
      key,
      body: { to: 'me@acme.example', contactId: contact.body.id },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ to: 'me@acme.example', subject: '[Test] Hi Zoë' });
    const row = t.core.db
      .prepare('SELECT html, to_address FROM email_messages WHERE id = ?')
      .get(sent.body.id) as { html: string; to_address: string };
    expect(row).toEqual({
      html: '<p>Zoë Quinn / zoe@example.com</p>',
      to_address: 'me@acme.example',
    });

    const unknown = await t.request('POST', `/v1/email/campaigns/${id}/test`, {
      key,
      body: { to: 'me@acme.example', contactId: 'ct_nope' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('contactId');
  });
});

describe('the branded unsubscribe page and Resubscribe', () => {
  it('names the sender and the list, unsubscribes, resubscribes (evented, audited), without scripts', async () => {
    const { key, id, byAddress, get } = await launched(['ann@example.com']);
    const token = (
      t.core.db
        .prepare('SELECT token FROM email_messages WHERE id = ?')
        .get(byAddress.get('ann@example.com')) as { token: string }
    ).token;
    const url = `/e/u/${token}`;

    const ask = await t.core.app.inject({ method: 'GET', url });
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('Acme Shop');
    expect(ask.body).toContain('the list “All”');
    expect(ask.body).not.toMatch(/<script|<link|https?:\/\/(?!acme)/);
    // Its one <style> block is allowed by its hash; nothing else loads.
    expect(String(ask.headers['content-security-policy'])).toMatch(/style-src 'self' 'sha256-/);

    const out = await t.core.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(out.statusCode).toBe(200);
    expect(out.body).toContain('You are unsubscribed');
    expect(out.body).toContain('undo it within an hour');
    expect(out.body).toContain(`action="${token}/resubscribe"`);
    expect((await get()).counts.unsubscribed).toBe(1);

    const back = await t.core.app.inject({
      method: 'POST',
      url: `${url}/resubscribe`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(back.statusCode).toBe(303);
    expect(new URL(back.headers.location!, `http://x${url}/resubscribe`).pathname).toBe(url);
    const again = await t.core.app.inject({ method: 'GET', url: `${url}?resubscribed=1` });
    expect(again.body).toContain('You are subscribed again');
    expect((await get()).counts.unsubscribed).toBe(0);
    const contacts = await t.request('GET', '/api/contacts', { key });
    expect(contacts.body.data[0].emailUnsubscribedAt).toBeNull();

    const events = t.core.db
      .prepare(`SELECT type, data FROM events WHERE type LIKE 'email.%' ORDER BY rowid`)
      .all() as { type: string; data: string }[];
    expect(events.map((e) => e.type)).toEqual(['email.unsubscribed', 'email.resubscribed']);
    expect(JSON.parse(events[1]!.data)).toMatchObject({
      address: 'ann@example.com',
      campaignId: id,
    });
    const audit = t.core.db
      .prepare(`SELECT action, actor_kind FROM audit WHERE action LIKE 'email.%' ORDER BY seq`)
      .all();
    expect(audit).toEqual([
      { action: 'email.unsubscribed', actor_kind: 'anonymous' },
      { action: 'email.resubscribed', actor_kind: 'anonymous' },
    ]);

    // A second unsubscribe after the resubscribe works again; an unknown token is a 404.
    const twice = await t.core.app.inject({ method: 'POST', url, payload: '' });
    expect(twice.body).toContain('You are unsubscribed');
    const bad = await t.core.app.inject({
      method: 'POST',
      url: '/e/u/AAAAAAAAAAAAAAAAAAAAAAAAAAA/resubscribe',
    });
    expect(bad.statusCode).toBe(404);
  });

  const tokenOf = (messageId: string) =>
    (
      t.core.db.prepare('SELECT token FROM email_messages WHERE id = ?').get(messageId) as {
        token: string;
      }
    ).token;
  const post = (url: string) =>
    t.core.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
  const emailEvents = () =>
    (
      t.core.db
        .prepare(`SELECT type FROM events WHERE type LIKE 'email.%' ORDER BY rowid`)
        .all() as { type: string }[]
    ).map((e) => e.type);
  const optedOut = () =>
    t.core.db.prepare('SELECT email_unsubscribed_at FROM contacts').pluck().get() !== null;

  /** A second campaign to the same list, launched and sent; its email to ann. */
  async function secondCampaign(key: string, groupId: string) {
    const b = await t.request('POST', '/v1/email/campaigns', {
      key,
      body: {
        name: 'Later',
        subject: 'Later',
        fromEmail: 'news@acme.example',
        fromName: 'Acme Shop',
        html: '<p>Later</p>',
        audience: { groupId },
      },
    });
    expect(
      (await t.request('POST', `/v1/email/campaigns/${b.body.id}/launch`, { key, body: {} }))
        .status,
    ).toBe(200);
    await t.core.services.scheduler.runDue();
    const rows = (await t.request('GET', `/v1/email/campaigns/${b.body.id}/recipients`, { key }))
      .body.data as { id: string }[];
    return {
      id: b.body.id as string,
      message: rows[0]!.id,
      get: async () =>
        (await t.request('GET', `/v1/email/campaigns/${b.body.id}`, { key })).body as {
          counts: { unsubscribed: number };
        },
    };
  }

  it('undoes only within an hour of this link’s own unsubscribe; later it says how to get the emails again', async () => {
    const { byAddress, get, clock } = await launched(['ann@example.com']);
    const url = `/e/u/${tokenOf(byAddress.get('ann@example.com')!)}`;
    expect((await post(url)).statusCode).toBe(200);
    clock.advance(60 * 60 * 1000 + 1);

    const page = await t.core.app.inject({ method: 'GET', url });
    expect(page.body).toContain('You are unsubscribed');
    expect(page.body).not.toContain('/resubscribe');
    expect(page.body).toContain('use the link in a newer email from Acme Shop');
    expect(page.body).toContain('contact Acme Shop (news@acme.example)');
    const late = await post(`${url}/resubscribe`);
    expect(late.statusCode).toBe(403);
    expect(late.body).toContain('cannot subscribe the address again');
    expect(optedOut()).toBe(true);
    expect((await get()).counts.unsubscribed).toBe(1);
    expect(emailEvents()).toEqual(['email.unsubscribed']);
  });

  it('an older email’s link neither re-enrols an address opted out elsewhere nor unsubscribes it twice', async () => {
    const { key, byAddress, groupId, get } = await launched(['ann@example.com']);
    const old = `/e/u/${tokenOf(byAddress.get('ann@example.com')!)}`;
    const b = await secondCampaign(key, groupId);
    const newer = `/e/u/${tokenOf(b.message)}`;

    // Ann opts out through the newer email; the older one (forwarded, archived) is still out there.
    expect((await post(newer)).statusCode).toBe(200);
    const page = await t.core.app.inject({ method: 'GET', url: old });
    expect(page.body).toContain('You are unsubscribed');
    expect(page.body).not.toContain('/resubscribe');
    expect((await post(`${old}/resubscribe`)).statusCode).toBe(403);
    expect(optedOut()).toBe(true);

    // Its one-click fires later (C3): nothing changes, so no second event or audit entry, and
    // the older email still cannot undo an opt-out it did not make.
    expect((await post(old)).body).toContain('You are unsubscribed');
    expect(emailEvents()).toEqual(['email.unsubscribed']);
    expect(
      t.core.db
        .prepare(`SELECT count(*) FROM audit WHERE action = 'email.unsubscribed'`)
        .pluck()
        .get(),
    ).toBe(1);
    expect((await get()).counts.unsubscribed).toBe(0);
    expect((await b.get()).counts.unsubscribed).toBe(1);
    expect((await post(`${old}/resubscribe`)).statusCode).toBe(403);
    expect(optedOut()).toBe(true);
  });

  it('a resubscribe leaves other campaigns’ unsubscribes as history and reports the campaign it moved', async () => {
    const { key, id, byAddress, groupId, get, clock } = await launched(['ann@example.com']);
    expect((await post(`/e/u/${tokenOf(byAddress.get('ann@example.com')!)}`)).statusCode).toBe(200);
    // The team puts Ann back on the list; she gets a later campaign and opts out through it.
    t.core.db.prepare('UPDATE contacts SET email_unsubscribed_at = NULL').run();
    const b = await secondCampaign(key, groupId);
    const url = `/e/u/${tokenOf(b.message)}`;
    expect((await post(url)).statusCode).toBe(200);
    expect((await b.get()).counts.unsubscribed).toBe(1);

    expect((await post(`${url}/resubscribe`)).statusCode).toBe(303);
    expect(optedOut()).toBe(false);
    expect((await b.get()).counts.unsubscribed).toBe(0);
    // The first campaign's funnel is history: still 1, its email still marked.
    expect((await get()).counts.unsubscribed).toBe(1);
    expect(
      t.core.db
        .prepare('SELECT unsubscribed_at FROM email_messages WHERE id = ?')
        .pluck()
        .get(byAddress.get('ann@example.com')),
    ).not.toBeNull();
    // The moved campaign reports it (progress is at most once a second per campaign).
    clock.advance(2000);
    await t.core.services.scheduler.runDue();
    const progress = (
      t.core.db
        .prepare(`SELECT data FROM events WHERE type = 'email_campaign.progress' ORDER BY rowid`)
        .all() as { data: string }[]
    ).map((e) => JSON.parse(e.data) as { campaignId: string; counts: { unsubscribed: number } });
    expect(progress.filter((p) => p.campaignId === b.id).at(-1)!.counts.unsubscribed).toBe(0);
    expect(progress.filter((p) => p.campaignId === id).at(-1)!.counts.unsubscribed).toBe(1);
  });
});
