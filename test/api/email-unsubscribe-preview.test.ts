import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { emailCampaign } from '../email-fixture.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => {
  await t?.close();
});

describe('the unsubscribe page preview', () => {
  it('shows the owner the branded page in each state, marked Preview, changing nothing', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const key = t.key('test');
    const { id } = await emailCampaign(t, key, ['ann@example.com', 'bob@example.com'], {
      fromName: 'Acme Shop',
    });
    const url = `/v1/email/campaigns/${id}/unsubscribe-preview`;

    // Before launch: a sample address.
    const draft = await t.request('GET', url, { session: 'test' });
    expect(draft.status).toBe(200);
    expect(draft.headers['content-type']).toMatch(/^text\/html/);
    expect(draft.text).toContain('<strong>Preview</strong>');
    expect(draft.text).toContain('Unsubscribe from Acme Shop emails?');
    expect(draft.text).toContain('recipient@example.com');
    // Its buttons post nowhere, and its look is the desk's own stylesheet (no inline style).
    expect(draft.text).not.toMatch(/<form[^>]*action=|type="submit"|<style>/);
    expect(draft.text).toContain('href="/e/page.css"');
    const css = await t.request('GET', '/e/page.css', {});
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.text).toContain('.preview');

    expect(
      (await t.request('POST', `/v1/email/campaigns/${id}/launch`, { key, body: {} })).status,
    ).toBe(200);
    for (let i = 0; i < 5; i++) {
      await t.core.services.scheduler.runDue();
      clock.advance(1000);
    }
    const before = (await t.request('GET', `/v1/email/campaigns/${id}`, { key })).body;
    const events = t.core.db.prepare('SELECT count(*) FROM audit').pluck().get();

    const ask = await t.request('GET', url, { session: 'test' });
    expect(ask.text).toMatch(/(ann|bob)@example\.com/);
    const gone = await t.request('GET', `${url}?state=unsubscribed`, { session: 'test' });
    expect(gone.text).toContain('You are unsubscribed');
    expect(gone.text).toContain('Resubscribe');
    const back = await t.request('GET', `${url}?state=resubscribed`, { session: 'test' });
    expect(back.text).toContain('You are subscribed again');
    const bad = await t.request('GET', `${url}?state=gone`, { session: 'test' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error' });

    // Nothing changed: no unsubscribe counted, no contact opted out, nothing audited.
    const after = (await t.request('GET', `/v1/email/campaigns/${id}`, { key })).body;
    expect(after.counts).toEqual(before.counts);
    expect(after.counts.unsubscribed).toBe(0);
    expect(
      t.core.db
        .prepare('SELECT count(*) FROM contacts WHERE email_unsubscribed_at IS NOT NULL')
        .pluck()
        .get(),
    ).toBe(0);
    expect(t.core.db.prepare('SELECT count(*) FROM audit').pluck().get()).toBe(events);

    // For the desk only; another scope's campaign is not found.
    const byKey = await t.request('GET', url, { key });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error).toMatchObject({ code: 'forbidden' });
    expect((await t.request('GET', url, { session: 'live' })).status).toBe(404);
    expect(
      (
        await t.request('GET', '/v1/email/campaigns/ecmp_nothing/unsubscribe-preview', {
          session: 'test',
        })
      ).status,
    ).toBe(404);
  });
});
