import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { smtpSettingsForPeer } from '../email-fixture.ts';
import { makeCore, manualClock } from '../helpers.ts';
import type { SmtpPeer } from '../smtp-peer.ts';
import { smtpPeer } from '../smtp-peer.ts';

/**
 * Template strings through the API (README "Email", template strings, issue 18 items 6 and 10): own properties only,
 * the fallback syntax, and an audience check that names exactly the missing placeholders, for
 * messaging campaigns, email campaigns and canned replies alike.
 */
let t: TestCore;
let peer: SmtpPeer | null = null;
afterEach(async () => {
  await t?.close();
  await peer?.close();
  peer = null;
});

const phone = (i: number) => `+1415555${String(3000 + i).padStart(4, '0')}`;

/**
 * Four contacts in a group: every one has a name but #3; #0 and #1 have `code`; #2 has an
 * empty `code`; every one has an email.
 */
async function setup(env: 'test' | 'live' = 'test') {
  const clock = manualClock();
  t = await makeCore({ clock, smtpOptions: { timeoutMs: 2000 } });
  const key = t.key(env);
  const scope = { workspaceId: t.workspaceId, environment: env } as const;
  const created = await t.request('POST', '/api/templates', {
    key,
    body: {
      name: 'code_offer',
      category: 'MARKETING',
      language: 'en',
      components: [{ type: 'BODY', text: 'Hi {{1}}, your code is {{2}}.' }],
    },
  });
  t.core.services.templates.decide(scope, created.body.template.id, 'approve');
  clock.advance(600_000);
  await t.core.services.scheduler.runDue();
  const contactIds: string[] = [];
  for (let i = 0; i < 4; i++) {
    const attributes: Record<string, string> = {};
    if (i < 2) attributes.code = `C${i}`;
    if (i === 2) attributes.code = ' ';
    const r = await t.request('POST', '/api/contacts', {
      key,
      body: {
        phone: phone(i),
        name: i === 3 ? null : `Person ${i}`,
        email: `p${i}@example.com`,
        attributes,
      },
    });
    contactIds.push(r.body.id);
  }
  const group = (
    await t.request('POST', '/api/contacts/groups', { key, body: { name: 'All', contactIds } })
  ).body;
  return { key, clock, group };
}

describe('the audience check names exactly the missing placeholders', () => {
  it('messaging campaigns: which placeholder, for how many; a fallback is never missing', async () => {
    const { key, group } = await setup();
    const check = (variables: Record<string, string>) =>
      t.request('POST', '/campaigns/audience', {
        key,
        body: { target: { groupId: group.id }, templateName: 'code_offer', variables },
      });
    const r = await check({ '1': '{{contact.name}}', '2': '{{contact.attributes.code}}' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 4, missingVariables: 2 });
    // #3 lacks both; #2's code is blank. Not every placeholder: exactly the missing ones.
    expect(r.body.missingPlaceholders).toEqual([
      { placeholder: '{{contact.attributes.code}}', recipients: 2 },
      { placeholder: '{{contact.name}}', recipients: 1 },
    ]);

    const withFallback = await check({
      '1': '{{contact.name | "friend"}}',
      '2': '{{contact.attributes.code}}',
    });
    expect(withFallback.body).toMatchObject({ missingVariables: 2 });
    expect(withFallback.body.missingPlaceholders).toEqual([
      { placeholder: '{{contact.attributes.code}}', recipients: 2 },
    ]);

    const none = await check({
      '1': '{{contact.name | "friend"}}',
      '2': '{{contact.attributes.code | "WELCOME"}}',
    });
    expect(none.body).toMatchObject({ missingVariables: 0, missingPlaceholders: [] });

    // `constructor` is no contact's attribute: missing for everyone, never `function Object()`.
    const proto = await check({ '1': '{{contact.attributes.constructor}}', '2': 'X' });
    expect(proto.body).toMatchObject({
      missingVariables: 4,
      missingPlaceholders: [{ placeholder: '{{contact.attributes.constructor}}', recipients: 4 }],
    });
    expect(JSON.stringify(proto.body.sample)).not.toContain('function');
  });

  it('messaging campaigns: launch uses the fallback first, then fails an empty one with variable_missing', async () => {
    const { key, group } = await setup();
    const c = await t.request('POST', '/campaigns', {
      key,
      body: {
        name: 'Codes',
        templateName: 'code_offer',
        variables: {
          '1': '{{contact.name | "friend"}}',
          '2': '{{contact.attributes.code}}',
        },
        target: { groupId: group.id },
      },
    });
    expect(c.status).toBe(201);
    const launched = await t.request('POST', '/campaigns/launch', { key, body: { id: c.body.id } });
    expect(launched.status).toBe(200);
    const failed = await t.request('GET', `/campaigns/${c.body.id}/recipients?status=failed`, {
      key,
    });
    expect(failed.body.data.map((r: { phone: string }) => r.phone).sort()).toEqual([
      phone(2),
      phone(3),
    ]);
    expect(failed.body.data[0].error.code).toBe('variable_missing');
  });

  it('email: the check names the placeholders recipients lack', async () => {
    const { key, group } = await setup();
    const r = await t.request('POST', '/v1/email/audience', {
      key,
      body: {
        audience: { groupId: group.id },
        subject: 'Hi {{contact.name | "there"}}',
        html: '<p>Your code is {{contact.attributes.code}}{{contact.attributes.constructor}}.</p>',
        text: 'Code: {{contact.attributes.code}}',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 4, withoutEmail: 0, unsubscribed: 0 });
    expect(r.body.missingPlaceholders).toEqual(
      [
        { placeholder: '{{contact.attributes.code}}', recipients: 2 },
        { placeholder: '{{contact.attributes.constructor}}', recipients: 4 },
      ].sort((a, b) => b.recipients - a.recipients),
    );
    const plain = await t.request('POST', '/v1/email/audience', {
      key,
      body: { audience: { groupId: group.id } },
    });
    expect(plain.body.missingPlaceholders).toEqual([]);
  });

  it('email over SMTP: a missing value renders as its fallback, else empty; never a prototype’s', async () => {
    peer = await smtpPeer();
    const { key, group, clock } = await setup('live');
    await smtpSettingsForPeer(t, peer.port, { ratePerSecond: 100 });
    const c = await t.request('POST', '/v1/email/campaigns', {
      key,
      body: {
        name: 'Codes',
        subject: 'Hi {{contact.name | "there"}}',
        fromEmail: 'news@acme.example',
        html: '<p>Code [{{contact.attributes.code | "WELCOME"}}] [{{contact.attributes.constructor}}]</p>',
        text: 'Code [{{contact.attributes.code}}]',
        audience: { groupId: group.id },
      },
    });
    expect(c.status).toBe(201);
    const launched = await t.request('POST', `/v1/email/campaigns/${c.body.id}/launch`, {
      key,
      body: {},
    });
    expect(launched.status).toBe(200);
    for (let i = 0; i < 10 && peer.received.length < 4; i++) {
      await t.core.services.scheduler.runDue();
      clock.advance(100);
    }
    expect(peer.received).toHaveLength(4);
    const mails = await Promise.all(peer.received.map((_, i) => peer!.parsed(i)));
    expect(mails.map((m) => m.subject).sort()).toEqual([
      'Hi Person 0',
      'Hi Person 1',
      'Hi Person 2',
      'Hi there',
    ]);
    const codes = mails.map((m) => /Code \[([^\]]*)\] \[([^\]]*)\]/.exec(String(m.html))!.slice(1));
    expect(codes.map((c) => c[0]).sort()).toEqual(['C0', 'C1', 'WELCOME', 'WELCOME']);
    expect(codes.every((c) => c[1] === '')).toBe(true);
    expect(mails.map((m) => m.text?.split('\n')[0]).sort()).toEqual(
      ['Code []', 'Code []', 'Code [C0]', 'Code [C1]'].sort(),
    );
  });

  it('canned replies accept the fallback syntax', async () => {
    const { key } = await setup();
    const ok = await t.request('POST', '/canned-replies', {
      key,
      body: { shortcut: 'code', text: 'Your code: {{contact.attributes.code | "WELCOME"}}' },
    });
    expect(ok.status).toBe(201);
    const bad = await t.request('POST', '/canned-replies', {
      key,
      body: { shortcut: 'bad', text: 'Your code: {{contact.attributes.code | WELCOME}}' },
    });
    expect(bad.status).toBe(400);
  });
});
