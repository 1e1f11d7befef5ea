import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

/**
 * Header-bound fields refuse CR, LF and the other control characters (issue 18 item 9): 400
 * `validation_error` naming the field, for campaigns, transactional sends, settings and contact
 * names (a contact's name is rendered into subjects).
 */
let t: TestCore;
afterEach(async () => t?.close());

const BAD = ['Hello\r\nBcc: everyone@example.com', 'Tab\there', 'Nul\u0000', 'Del\u007f', 'End\n'];

describe('control characters in header-bound fields', () => {
  it('email campaigns refuse them in subject, fromName, fromEmail and replyTo', async () => {
    t = await makeCore();
    const key = t.key('test');
    const group = (await t.request('POST', '/api/contacts/groups', { key, body: { name: 'All' } }))
      .body;
    const base = {
      name: 'News',
      subject: 'Hello',
      fromName: 'Acme',
      fromEmail: 'news@acme.example',
      replyTo: 'help@acme.example',
      html: '<p>Hi</p>',
      audience: { groupId: group.id },
    };
    const ok = await t.request('POST', '/v1/email/campaigns', { key, body: base });
    expect(ok.status).toBe(201);
    for (const field of ['subject', 'fromName'] as const) {
      for (const value of BAD) {
        const r = await t.request('POST', '/v1/email/campaigns', {
          key,
          body: { ...base, [field]: value },
        });
        expect(r.status, `${field}: ${JSON.stringify(value)}`).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'validation_error', param: field });
        const put = await t.request('PUT', `/v1/email/campaigns/${ok.body.id}`, {
          key,
          body: { [field]: value },
        });
        expect(put.body.error).toMatchObject({ code: 'validation_error', param: field });
      }
    }
    for (const field of ['fromEmail', 'replyTo'] as const) {
      const r = await t.request('POST', '/v1/email/campaigns', {
        key,
        body: { ...base, [field]: 'news@acme.example\r\nBcc: x@example.com' },
      });
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: field });
    }
  });

  it('transactional sends and the campaign test refuse them in every header field', async () => {
    t = await makeCore();
    const key = t.key('test');
    const base = {
      to: 'ann@example.com',
      subject: 'Your receipt',
      text: 'Thanks',
      fromName: 'Acme',
      fromEmail: 'orders@acme.example',
    };
    expect((await t.request('POST', '/v1/email/send', { key, body: base })).status).toBe(202);
    for (const field of ['to', 'subject', 'fromName', 'fromEmail'] as const) {
      const value =
        field === 'to' || field === 'fromEmail' ? `${base[field]}\nBcc: x@example.com` : 'A\r\nB';
      const r = await t.request('POST', '/v1/email/send', {
        key,
        body: { ...base, [field]: value },
      });
      expect(r.status, field).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: field });
    }
    const name = await t.request('PUT', '/v1/email/settings', {
      session: 'test',
      body: { defaultFromName: 'Acme\r\nBcc: x@example.com' },
    });
    expect(name.body.error).toMatchObject({ code: 'validation_error', param: 'defaultFromName' });
  });

  it('contact names refuse them on create and on edit', async () => {
    t = await makeCore();
    const key = t.key('test');
    const created = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: '+14155552671', name: 'Ada' },
    });
    expect(created.status).toBeLessThan(300);
    for (const value of BAD) {
      const r = await t.request('POST', '/api/contacts', {
        key,
        body: { phone: '+14155552672', name: value },
      });
      expect(r.status, JSON.stringify(value)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'name' });
      const patch = await t.request('PATCH', `/api/contacts/${created.body.id}`, {
        key,
        body: { name: value },
      });
      expect(patch.body.error).toMatchObject({ code: 'validation_error', param: 'name' });
    }
    // Ordinary names, accents and all, still pass.
    const fine = await t.request('PATCH', `/api/contacts/${created.body.id}`, {
      key,
      body: { name: 'Zoë O’Brien-Łukasz' },
    });
    expect(fine.status).toBe(200);
  });
});
