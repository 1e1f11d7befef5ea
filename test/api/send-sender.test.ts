import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const PHONE = '+14155552671';

async function setup() {
  t = await makeCore();
  const key = t.key('test');
  const ann = await t.member({ name: 'Ann Agent', email: 'ann@x.test' });
  const created = await t.request('POST', '/api/templates', {
    key,
    body: {
      name: 'order_update',
      category: 'UTILITY',
      language: 'en',
      components: [{ type: 'BODY', text: 'Order {{1}} is on its way.' }],
    },
  });
  expect(created.status, created.text).toBe(200);
  const review = await t.request(
    'POST',
    `/api/simulator/templates/${created.body.template.id}/review`,
    { key, body: { decision: 'approve' } },
  );
  expect(review.status, review.text).toBe(200);
  const inbound = await t.request('POST', '/api/simulator/inbound', {
    key,
    body: { phone: PHONE, message: 'hi' },
  });
  expect(inbound.status, inbound.text).toBe(200);
  return { key, ann };
}

/** The newest message of the thread, as the inbox reads it. */
async function newest(key: string) {
  const page = await t.request('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { key });
  return page.body.data[0] as { sentBy: string; agentId: string | null; text: string };
}

describe('who a send is from', () => {
  it('labels /api/send and /api/send-text from a member’s session with that member', async () => {
    const { key, ann } = await setup();
    const asAnn = { cookie: ann.cookie };

    const template = await t.request('POST', '/api/send', {
      ...asAnn,
      body: { phone: PHONE, templateName: 'order_update', variables: { '1': 'A-1' } },
    });
    expect(template.status, template.text).toBe(200);
    expect(await newest(key)).toMatchObject({
      text: 'Order A-1 is on its way.',
      sentBy: 'agent',
      agentId: ann.id,
    });

    const text = await t.request('POST', '/api/send-text', {
      ...asAnn,
      body: { phone: PHONE, message: 'Anything else?' },
    });
    expect(text.status, text.text).toBe(200);
    expect(await newest(key)).toMatchObject({
      text: 'Anything else?',
      sentBy: 'agent',
      agentId: ann.id,
    });
  });

  it('keeps API keys as the API, and a session as its own member whatever it names', async () => {
    const { key, ann } = await setup();

    // A script with a key is the API, whatever header it adds.
    const script = await t.request('POST', '/api/send-text', {
      key,
      headers: { 'x-parley-agent': ann.id },
      body: { phone: PHONE, message: 'from a script' },
    });
    expect(script.status, script.text).toBe(200);
    expect(await newest(key)).toMatchObject({ sentBy: 'api', agentId: null });

    // The desk's window is its owner: naming another member changes nobody (X-Parley-Agent
    // is for API keys only).
    const owner = t.core.services.members.ownerOf(t.workspaceId).id;
    const named = await t.request('POST', '/api/send-text', {
      session: 'test',
      headers: { 'x-parley-agent': ann.id },
      body: { phone: PHONE, message: 'as myself' },
    });
    expect(named.status, named.text).toBe(200);
    expect(await newest(key)).toMatchObject({ sentBy: 'agent', agentId: owner });

    const none = await t.request('POST', '/api/send', {
      session: 'test',
      body: { phone: PHONE, templateName: 'order_update', variables: { '1': 'B-2' } },
    });
    expect(none.status, none.text).toBe(200);
    expect(await newest(key)).toMatchObject({ sentBy: 'agent', agentId: owner });
  });
});
