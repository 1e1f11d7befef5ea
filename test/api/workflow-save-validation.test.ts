/**
 * Issue 18, item 7: a workflow save refuses what could only fail at run time — an interactive
 * list or an agent of another scope, and a `webhook` step aimed by an IP literal (in any
 * spelling) or a local-only name at a private or loopback network the workspace does not allow.
 * 400 `validation_error` naming the field, on POST and PUT alike.
 */
import { afterEach, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const listBody = {
  name: 'Topics',
  body: 'Pick a topic',
  buttonText: 'Choose',
  sections: [{ title: 'Help', rows: [{ id: 'billing', title: 'Billing' }] }],
};

async function setup() {
  t = await makeCore();
  const key = t.key('test');
  const live = t.key('live');
  const other = t.core.services.workspaces.create('Other').id;
  const otherKey = t.key('test', other);
  const created = async (url: string, k: string, body: unknown) => {
    const res = await t.request('POST', url, { key: k, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const agentBody = (email: string) => ({ name: 'Sam', email });
  const ids = {
    ownList: await created('/interactive-lists', key, listBody),
    liveList: await created('/interactive-lists', live, listBody),
    otherList: await created('/interactive-lists', otherKey, listBody),
    ownAgent: t.agent('Sam', 'sam@example.com').id,
    otherAgent: t.core.services.members.createAgent(
      {
        workspaceId: other,
        actor: { kind: 'system', id: null, name: null },
        memberId: null,
        sessionId: null,
        address: null,
      },
      agentBody('sam@other.example'),
    ).id,
  };
  const flow = (steps: unknown[]) => ({ name: 'Flow', trigger: { type: 'manual' }, steps });
  const post = (steps: unknown[], k = key) =>
    t.request('POST', '/workflows', { key: k, body: flow(steps) });
  const put = (id: string, steps: unknown[]) =>
    t.request('PUT', '/workflows', { key, body: { id, steps } });
  const allowPrivateWebhooks = async (allowed: boolean) => {
    const res = await t.request('PATCH', '/api/workspace/settings', {
      session: 'test',
      body: { allowPrivateWebhooks: allowed },
    });
    expect(res.status).toBe(200);
  };
  return { key, ids, post, put, allowPrivateWebhooks };
}

const refused = (res: { status: number; body: { error?: { code: string; param?: string } } }) => ({
  status: res.status,
  code: res.body.error?.code,
  param: res.body.error?.param,
});

it('refuses a send_list step naming another scope’s list, on create and update', async () => {
  const { ids, post, put } = await setup();
  const steps = (listId: string) => [
    { id: 'hi', type: 'send_text', text: 'Hi' },
    { id: 'wait', type: 'wait', duration: 'PT1M' },
    { id: 'menu', type: 'send_list', listId },
  ];
  for (const listId of [ids.liveList, ids.otherList, 'lst_nope']) {
    const res = await post(steps(listId));
    expect(refused(res), listId).toEqual({
      status: 400,
      code: 'validation_error',
      param: 'steps.2.listId',
    });
    expect(res.body.error.message).toContain(listId);
  }
  const saved = await post(steps(ids.ownList));
  expect(saved.status).toBe(201);
  expect(refused(await put(saved.body.id, steps(ids.otherList)))).toEqual({
    status: 400,
    code: 'validation_error',
    param: 'steps.2.listId',
  });
  // Nothing was saved by the refused update.
  const now = await t.request('GET', `/workflows/${saved.body.id}`, { key: t.key('test') });
  expect(now.body).toMatchObject({ version: 1, steps: [{}, {}, { listId: ids.ownList }] });
});

it('refuses an update_conversation step assigning another workspace’s agent (or "me")', async () => {
  const { ids, post, put } = await setup();
  const steps = (assignee: unknown) => [
    { id: 'hi', type: 'send_text', text: 'Hi' },
    { id: 'wait', type: 'wait', duration: 'PT1M' },
    { id: 'bye', type: 'send_text', text: 'Bye' },
    { id: 'route', type: 'update_conversation', status: 'pending', assignee },
  ];
  for (const assignee of [ids.otherAgent, 'agt_nope', 'me', 42]) {
    expect(refused(await post(steps(assignee))), String(assignee)).toEqual({
      status: 400,
      code: 'validation_error',
      param: 'steps.3.assignee',
    });
  }
  for (const assignee of [ids.ownAgent, null]) {
    expect((await post(steps(assignee))).status, String(assignee)).toBe(201);
  }
  const saved = await post(steps(ids.ownAgent));
  expect(refused(await put(saved.body.id, steps(ids.otherAgent)))).toEqual({
    status: 400,
    code: 'validation_error',
    param: 'steps.3.assignee',
  });
});

it('refuses a webhook step whose URL is a private or loopback IP in any spelling, unless the workspace allows them', async () => {
  const { post, put, allowPrivateWebhooks } = await setup();
  const steps = (url: string) => [
    { id: 'hi', type: 'send_text', text: 'Hi' },
    { id: 'hook', type: 'webhook', url, body: { phone: '{{contact.phone}}' } },
  ];
  const literals = [
    'http://127.0.0.1:8080/hook',
    'http://127.1/hook',
    'http://0x7f000001/hook',
    'http://2130706433/hook',
    'http://0177.0.0.1/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::1]:9000/hook',
    'http://[64:ff9b::7f00:1]/hook',
    'http://[2002:c0a8:0101::]/hook',
    'https://10.0.0.7/hook',
    'http://192.168.1.20/{{payload.path}}',
    'http://169.254.169.254/latest/meta-data',
    'http://[fd00::1]/hook',
    'http://0.0.0.0/hook',
    'http://localhost:4780/hook',
    'http://printer.local/hook',
  ];
  for (const url of literals) {
    const res = await post(steps(url));
    expect(refused(res), url).toEqual({
      status: 400,
      code: 'validation_error',
      param: 'steps.1.url',
    });
    expect(res.body.error.message, url).toMatch(/allow private webhook targets/);
  }
  // A name is resolved when the step runs (as today), and so is a host filled from the run.
  const public_ = await post(steps('https://hooks.example.com/parley'));
  expect(public_.status).toBe(201);
  expect((await post(steps('https://{{payload.host}}/hook'))).status).toBe(201);
  expect((await post(steps('https://93.184.215.14/hook'))).status).toBe(201);
  expect(refused(await put(public_.body.id, steps('http://127.1/hook')))).toEqual({
    status: 400,
    code: 'validation_error',
    param: 'steps.1.url',
  });

  await allowPrivateWebhooks(true);
  for (const url of literals) expect((await post(steps(url))).status, url).toBe(201);
  expect((await put(public_.body.id, steps('http://127.1/hook'))).status).toBe(200);
});
