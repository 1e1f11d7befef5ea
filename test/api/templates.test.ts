import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const body = (over: Record<string, unknown> = {}) => ({
  name: 'order_update',
  category: 'UTILITY',
  language: 'en',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
    { type: 'BODY', text: 'Hello {{2}}, your order {{1}} has shipped.' },
    { type: 'FOOTER', text: 'Reply STOP to opt out' },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Track it' }] },
  ],
  ...over,
});

async function setup() {
  const clock = manualClock();
  t = await makeCore({ clock });
  return { clock, key: t.key('test'), live: t.key('live'), jobs: t.core.services.scheduler };
}

describe('templates', () => {
  it('creates PENDING (response per spec §2.1), and the simulated provider approves after the review delay', async () => {
    const { clock, key, jobs } = await setup();
    const res = await t.request('POST', '/api/templates', { key, body: body() });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.template).toMatchObject({
      name: 'order_update',
      status: 'PENDING',
      category: 'UTILITY',
      language: 'en',
      variableCount: 2,
    });
    expect(res.body.template.id).toMatch(/^tpl_/);
    await jobs.runDue();
    expect(
      (await t.request('GET', `/api/templates/${res.body.template.id}`, { key })).body.status,
    ).toBe('PENDING');
    clock.advance(2000);
    await jobs.runDue();
    const got = await t.request('GET', `/api/templates/${res.body.template.id}`, { key });
    expect(got.body).toMatchObject({ status: 'APPROVED', rejectionReason: null });
    expect(got.body.usableAt).toBe(got.body.approvedAt); // test templates are usable at once
  });

  it('names the field of every broken component rule', async () => {
    const { key } = await setup();
    const b = body();
    const cases: [Record<string, unknown>, string, RegExp?][] = [
      [{ name: 'Order Update' }, 'name'],
      [{ name: 'x'.repeat(513) }, 'name'],
      [{ category: 'PROMO' }, 'category'],
      [{ language: 'English' }, 'language'],
      [{ components: [] }, 'components'],
      [{ components: [{ type: 'FOOTER', text: 'x' }] }, 'components', /BODY/],
      [{ components: [{ type: 'BODY', text: 'x'.repeat(1025) }] }, 'components.0.text', /1024/],
      [
        {
          components: [
            { type: 'HEADER', text: 'x'.repeat(61) },
            { type: 'BODY', text: 'b' },
          ],
        },
        'components.0.text',
        /60/,
      ],
      [
        {
          components: [
            { type: 'HEADER', text: '{{1}} {{2}}' },
            { type: 'BODY', text: 'b {{1}} {{2}}' },
          ],
        },
        'components.0.text',
        /at most 1 variable/,
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            { type: 'FOOTER', text: 'f {{1}}' },
          ],
        },
        'components.1.text',
        /no variables|cannot have variables/,
      ],
      [
        { components: [{ type: 'BODY', text: 'Hi {{1}} and {{3}}' }] },
        'components.0.text',
        /\{\{2\}\} is missing/,
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            { type: 'BODY', text: 'c' },
          ],
        },
        'components.1.type',
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'x'.repeat(26) }] },
          ],
        },
        'components.1.buttons.0.text',
        /25/,
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            {
              type: 'BUTTONS',
              buttons: Array.from({ length: 3 }, () => ({
                type: 'URL',
                text: 'Go',
                url: 'https://x.example',
              })),
            },
          ],
        },
        'components.1.buttons.2.type',
        /at most 2 URL/,
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            {
              type: 'BUTTONS',
              buttons: Array.from({ length: 11 }, () => ({ type: 'QUICK_REPLY', text: 'Go' })),
            },
          ],
        },
        'components.1.buttons',
        /at most 10/,
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            {
              type: 'BUTTONS',
              buttons: [
                { type: 'PHONE_NUMBER', text: 'Call', phoneNumber: '+14155552671' },
                { type: 'PHONE_NUMBER', text: 'Call', phoneNumber: '+14155552672' },
              ],
            },
          ],
        },
        'components.1.buttons.1.type',
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', text: 'Copy' }] },
          ],
        },
        'components.1.buttons.0.type',
        /MARKETING/,
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Go', url: 'ftp://x' }] },
          ],
        },
        'components.1.buttons.0.url',
      ],
      [
        {
          components: [
            { type: 'BODY', text: 'b' },
            { type: 'BUTTONS', buttons: [{ type: 'MAGIC', text: 'Go' }] },
          ],
        },
        'components.1.buttons.0.type',
      ],
    ];
    for (const [over, param, message] of cases) {
      const res = await t.request('POST', '/api/templates', { key, body: { ...b, ...over } });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.param, JSON.stringify(over)).toBe(param);
      if (message) expect(res.body.error.message).toMatch(message);
    }
    const ok = await t.request('POST', '/api/templates', {
      key,
      body: body({
        category: 'MARKETING',
        components: [
          { type: 'BODY', text: 'Code inside' },
          {
            type: 'BUTTONS',
            buttons: [
              { type: 'COPY_CODE', text: 'Copy' },
              { type: 'URL', text: 'Shop', url: 'https://shop.example' },
            ],
          },
        ],
      }),
    });
    expect(ok.status).toBe(200);
    const dup = await t.request('POST', '/api/templates', { key, body: body() });
    expect(dup.body.error.param).toBe('name');
  });

  it('rejects clear policy breaks with a reason', async () => {
    const { clock, key, jobs } = await setup();
    const res = await t.request('POST', '/api/templates', {
      key,
      body: body({
        name: 'promo',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Win the lottery today, {{1}}!' }],
      }),
    });
    clock.advance(2000);
    await jobs.runDue();
    const got = await t.request('GET', `/api/templates/${res.body.template.id}`, { key });
    expect(got.body.status).toBe('REJECTED');
    expect(got.body.rejectionReason).toMatch(/lottery/);
  });

  it('edits return a template to PENDING; PENDING and DISABLED cannot be edited', async () => {
    const { clock, key, jobs } = await setup();
    const id = (await t.request('POST', '/api/templates', { key, body: body() })).body.template.id;
    const early = await t.request('PUT', `/api/templates/${id}/edit`, {
      key,
      body: { components: [{ type: 'BODY', text: 'New' }] },
    });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('invalid_state');
    clock.advance(2000);
    await jobs.runDue();
    const edited = await t.request('PUT', `/api/templates/${id}/edit`, {
      key,
      body: { components: [{ type: 'BODY', text: 'Hi {{1}}' }] },
    });
    expect(edited.body).toMatchObject({ status: 'PENDING', variableCount: 1, approvedAt: null });
    const bad = await t.request('PUT', `/api/templates/${id}/edit`, {
      key,
      body: { components: [{ type: 'BODY', text: '' }] },
    });
    expect(bad.status).toBe(409); // still PENDING
    clock.advance(2000);
    await jobs.runDue();
    expect((await t.request('GET', `/api/templates/${id}`, { key })).body.status).toBe('APPROVED');
    await t.request('POST', `/api/simulator/templates/${id}/review`, {
      key,
      body: { decision: 'disable' },
    });
    const disabled = await t.request('PUT', `/api/templates/${id}/edit`, {
      key,
      body: { components: [{ type: 'BODY', text: 'x' }] },
    });
    expect(disabled.status).toBe(409);
  });

  it('follows the simulator’s decisions and refuses impossible transitions', async () => {
    const { key, live } = await setup();
    const id = (await t.request('POST', '/api/templates', { key, body: body() })).body.template.id;
    const review = (decision: string, reason?: string) =>
      t.request('POST', `/api/simulator/templates/${id}/review`, {
        key,
        body: { decision, ...(reason ? { reason } : {}) },
      });
    expect((await review('pause')).body.error.code).toBe('invalid_state');
    expect((await review('approve')).body.status).toBe('APPROVED');
    expect((await review('pause')).body.status).toBe('PAUSED');
    expect((await review('approve')).body.status).toBe('APPROVED');
    expect((await review('disable')).body.status).toBe('DISABLED');
    expect((await review('approve')).status).toBe(409);
    const id2 = (await t.request('POST', '/api/templates', { key, body: body({ name: 'second' }) }))
      .body.template.id;
    const rejected = await t.request('POST', `/api/simulator/templates/${id2}/review`, {
      key,
      body: { decision: 'reject', reason: 'Too vague' },
    });
    expect(rejected.body).toMatchObject({ status: 'REJECTED', rejectionReason: 'Too vague' });
    const forbidden = await t.request('POST', `/api/simulator/templates/${id2}/review`, {
      key: live,
      body: { decision: 'approve' },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
  });

  it('lists, filters, deletes and syncs', async () => {
    const { clock, key } = await setup();
    const a = (await t.request('POST', '/api/templates', { key, body: body({ name: 'a' }) })).body
      .template.id;
    await t.request('POST', '/api/templates', { key, body: body({ name: 'b' }) });
    const sync0 = await t.request('POST', '/api/templates/sync', { key });
    expect(sync0.body).toMatchObject({ success: true, reviewed: 0 });
    clock.advance(2000);
    const sync = await t.request('POST', '/api/templates/sync', { key });
    expect(sync.body.reviewed).toBe(2);
    expect(sync.body.templates.map((x: { status: string }) => x.status)).toEqual([
      'APPROVED',
      'APPROVED',
    ]);
    expect(
      (await t.request('GET', '/api/templates?status=APPROVED', { key })).body.data,
    ).toHaveLength(2);
    expect(
      (await t.request('GET', '/api/templates?name=a', { key })).body.data.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([a]);
    expect((await t.request('DELETE', `/api/templates/${a}`, { key })).body).toEqual({
      success: true,
      id: a,
    });
    expect((await t.request('GET', `/api/templates/${a}`, { key })).status).toBe(404);
    expect((await t.request('GET', '/api/templates', { key: t.key('live') })).body.data).toEqual(
      [],
    );
  });

  it('keeps a pending review across a restart', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const key = t.key();
    const id = (await t.request('POST', '/api/templates', { key, body: body() })).body.template.id;
    const dataDir = t.dataDir;
    await t.core.stop();
    t = await makeCore({ clock, dataDir });
    clock.advance(2000);
    expect(await t.core.services.scheduler.runDue()).toBe(1);
    expect((await t.request('GET', `/api/templates/${id}`, { key })).body.status).toBe('APPROVED');
  });
});

it('refuses named placeholders and names fields once in messages', async () => {
  const { key } = await setup();
  const named = await t.request('POST', '/api/templates', {
    key,
    body: body({ components: [{ type: 'BODY', text: 'Hello {{name}}' }] }),
  });
  expect(named.body.error).toMatchObject({
    param: 'components.0.text',
    message: expect.stringMatching(/\{\{name\}\} is not a variable/),
  });
  const lang = await t.request('POST', '/api/templates', {
    key,
    body: body({ language: 'English' }),
  });
  expect(lang.body.error.message).toBe('language must be a code such as en, hi, es or pt_BR');
});
