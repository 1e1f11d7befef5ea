import { afterEach, describe, expect, it } from 'vitest';
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
  t = await makeCore({ clock: manualClock() });
  const key = t.key('test');
  const c = await emailCampaign(t, key, emails, { html: HTML, fromName: 'Acme Shop', ...campaign });
  expect((await c.launch()).status).toBe(200);
  await t.core.services.scheduler.runDue();
  const messages = (await t.request('GET', `/v1/email/campaigns/${c.id}/recipients`, { key })).body
    .data as { id: string; to: string; status: string }[];
  const byAddress = new Map(messages.map((m) => [m.to, m.id]));
  return { key, ...c, byAddress };
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
});
