/**
 * Workflows (README "API"): definitions and their versions, runs started by hand or by business
 * events, and every step type driven on an injected clock (timers are scheduler jobs: advance the
 * clock, then runDue()). Webhook steps call a real receiver on 127.0.0.1.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_RUN_STEPS } from '../../shared/workflow-rules.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';
import { orderTemplate } from './workflow-kit.ts';

let t: TestCore;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await t?.close();
});

const ANN = '+14155552671';
const BOB = '+14155552672';
const CAROL = '+14155552673';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FINAL = ['completed', 'failed', 'cancelled'];

/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are read as JSON */
type Json = any;
/* eslint-enable @typescript-eslint/no-explicit-any */

interface RunStep {
  stepId: string;
  type: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  output: Json;
  error: string | null;
}

const sendNotice = (over: Record<string, unknown> = {}) => ({
  type: 'send_template',
  templateName: 'order_update',
  variables: { '1': '{{contact.name}}', '2': 'A-1' },
  ...over,
});

/**
 * A core on a manual clock with an approved test template `order_update` ("Hello {{1}}, your
 * order {{2}} has shipped.") and three contacts: Ann, Bob and Carol.
 */
async function setup() {
  const clock = manualClock();
  t = await makeCore({ clock });
  const key = t.key('test');
  const scope = { workspaceId: t.workspaceId, environment: 'test' } as const;
  const jobs = t.core.services.scheduler;
  await orderTemplate(t, key);
  const contactIds: Record<string, string> = {};
  for (const [phone, name] of [
    [ANN, 'Ann'],
    [BOB, 'Bob'],
    [CAROL, 'Carol'],
  ] as const) {
    const c = await t.request('POST', '/api/contacts', { key, body: { phone, name } });
    expect(c.status).toBeLessThan(300);
    contactIds[phone] = c.body.id;
  }

  const create = (body: Record<string, unknown>, k = key) =>
    t.request('POST', '/workflows', { key: k, body });
  /** Saves a workflow (manual trigger unless `over` says otherwise); expects 201. */
  const workflow = async (steps: unknown[], over: Record<string, unknown> = {}) => {
    const res = await create({ name: 'Flow', trigger: { type: 'manual' }, steps, ...over });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Json;
  };
  const trigger = (
    workflowId: string,
    who: { phone?: string; contactId?: string } = { phone: ANN },
    payload?: Record<string, unknown>,
    k = key,
  ) =>
    t.request('POST', '/workflows/trigger', {
      key: k,
      body: { workflowId, ...who, ...(payload ? { payload } : {}) },
    });
  const getRun = async (id: string, k = key) =>
    (await t.request('GET', `/workflows/runs/${id}`, { key: k })).body as Json;
  /** Triggers a run for `phone`, runs what is due now, and answers the run with its steps. */
  const start = async (workflowId: string, phone = ANN, payload?: Record<string, unknown>) => {
    const res = await trigger(workflowId, { phone }, payload);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await jobs.runDue();
    return getRun(res.body.id);
  };
  const path = (run: Json) => (run.steps as RunStep[]).map((s) => s.stepId);
  const stepOf = (run: Json, stepId: string) =>
    (run.steps as RunStep[]).find((s) => s.stepId === stepId);
  /** Moves the clock a second at a time for `seconds`, running what falls due (pair-rate waits). */
  const drain = async (seconds = 15) => {
    await jobs.runDue();
    for (let i = 0; i < seconds; i++) {
      clock.advance(SECOND);
      await jobs.runDue();
    }
  };
  /** Outbound messages to `phone`, oldest first. */
  const sentTo = async (phone = ANN) =>
    (
      (await t.request('GET', `/messages?phone=${encodeURIComponent(phone)}`, { key })).body
        .data as Json[]
    )
      .filter((m) => m.direction === 'outbound')
      .reverse();
  const inbound = (phone: string, body: Record<string, unknown>) =>
    t.request('POST', '/api/simulator/inbound', { key, body: { phone, ...body } });
  const conversationOf = async (phone: string) =>
    ((await t.request('GET', '/conversations?limit=200', { key })).body.data as Json[]).filter(
      (c) => c.contact.phone === phone,
    );
  const workflowEvents = (runId: string) =>
    (
      t.core.services.db
        .prepare(`SELECT type, data FROM events WHERE type LIKE 'workflow.%' ORDER BY seq`)
        .all() as { type: string; data: string }[]
    )
      .filter((r) => r.data.includes(runId))
      .map((r) => r.type);
  const allowPrivateWebhooks = async (allowed = true) => {
    const res = await t.request('PATCH', '/api/workspace/settings', {
      session: 'test',
      body: { allowPrivateWebhooks: allowed },
    });
    expect(res.status).toBe(200);
  };
  /** Runs due jobs, moving the clock to the next queued job, until the run ends. */
  const finish = async (runId: string) => {
    for (let i = 0; i < 500; i++) {
      await jobs.runDue();
      const run = await getRun(runId);
      if (FINAL.includes(run.status)) return run;
      const next = (
        t.core.services.db
          .prepare(`SELECT min(run_at) AS at FROM jobs WHERE status = 'queued'`)
          .get() as { at: number | null }
      ).at;
      if (next === null) return run;
      clock.set(Math.max(clock.now() + 1, next));
    }
    return getRun(runId);
  };
  return {
    clock,
    key,
    scope,
    jobs,
    contactIds,
    create,
    workflow,
    trigger,
    getRun,
    start,
    path,
    stepOf,
    drain,
    sentTo,
    inbound,
    conversationOf,
    workflowEvents,
    allowPrivateWebhooks,
    finish,
  };
}

/**
 * A real HTTP receiver on 127.0.0.1; `answer(n)` gives the status and JSON body of the n-th
 * request (1-based). Closed after the test.
 */
async function receiver(
  clock: { now(): number },
  answer: (n: number) => { status: number; json?: unknown },
) {
  const got: {
    method: string;
    headers: http.IncomingHttpHeaders;
    body: string;
    at: number;
  }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ method: req.method ?? '', headers: req.headers, body, at: clock.now() });
      const a = answer(got.length);
      res
        .writeHead(a.status, { 'content-type': 'application/json' })
        .end(a.json === undefined ? '' : JSON.stringify(a.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, got };
}

/** Verifies `X-Parley-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`. */
function verifySignature(secret: string, header: unknown, body: string): number | null {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!m) return null;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  return timingSafeEqual(Buffer.from(m[2]!, 'hex'), expected) ? Number(m[1]) : null;
}

describe('workflow definitions', () => {
  it('creates a workflow, shows its secret once, reads and lists it', async () => {
    const { key, create } = await setup();
    const steps = [
      sendNotice({ id: 'hello' }),
      { id: 'pause', type: 'wait', duration: 'PT15M' },
      { id: 'done', type: 'end' },
    ];
    const res = await create({
      name: 'Welcome',
      trigger: { type: 'event', event: 'signup.completed' },
      steps,
    });
    expect(res.status).toBe(201);
    const wf = res.body;
    expect(wf).toMatchObject({
      id: expect.any(String),
      name: 'Welcome',
      status: 'active',
      trigger: { type: 'event', event: 'signup.completed' },
      steps,
      version: 1,
      runs: { running: 0, waiting: 0 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(typeof wf.secret).toBe('string');
    expect(wf.secret.length).toBeGreaterThanOrEqual(16);
    expect(Date.parse(wf.createdAt)).not.toBeNaN();

    const { secret: _secret, ...record } = wf;
    const got = await t.request('GET', `/workflows/${wf.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(record);
    expect(Object.keys(got.body).sort()).toEqual(
      [
        'id',
        'name',
        'status',
        'trigger',
        'steps',
        'version',
        'runs',
        'draft',
        'activatedAt',
        'createdAt',
        'updatedAt',
      ].sort(),
    );

    const list = await t.request('GET', '/workflows', { key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [record], nextCursor: null });

    // A second workflow may be saved paused; a send_template may name a template made later.
    const later = await create({
      name: 'Later',
      trigger: { type: 'manual' },
      status: 'paused',
      steps: [sendNotice({ id: 's', templateName: 'not_made_yet' })],
    });
    expect(later.status).toBe(201);
    expect(later.body.status).toBe('paused');
    expect(later.body.secret).not.toBe(wf.secret);
    await create({ name: 'Third', trigger: { type: 'manual' }, steps: [{ id: 'e', type: 'end' }] });

    // Paged.
    const first = await t.request('GET', '/workflows?limit=2', { key });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const rest = await t.request(
      'GET',
      `/workflows?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      { key },
    );
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.nextCursor).toBeNull();
    const ids = [...first.body.data, ...rest.body.data].map((w: Json) => w.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(wf.id);
    for (const w of [...first.body.data, ...rest.body.data]) expect(w).not.toHaveProperty('secret');

    expect((await t.request('GET', '/workflows/wf_nope', { key })).status).toBe(404);
    expect((await t.request('GET', '/workflows', { key: null })).status).toBe(401);
  });

  it('names the field of every kind of bad definition (400 validation_error)', async () => {
    const { key, create } = await setup();
    const end = { id: 'end', type: 'end' };
    const body = (steps: unknown[], over: Record<string, unknown> = {}) => ({
      name: 'Flow',
      trigger: { type: 'manual' },
      steps,
      ...over,
    });
    const cases: [string, Record<string, unknown>, string][] = [
      ['empty name', body([end], { name: '' }), 'name'],
      ['blank name', body([end], { name: '   ' }), 'name'],
      [
        'bad event name',
        body([end], { trigger: { type: 'event', event: 'cart abandoned!' } }),
        'trigger.event',
      ],
      ['no steps', body([]), 'steps'],
      [
        'more than 100 steps',
        body(Array.from({ length: 101 }, (_, i) => ({ id: `s${i}`, type: 'end' }))),
        'steps',
      ],
      ['bad step id', body([{ id: 'a b', type: 'end' }]), 'steps.0.id'],
      ['duplicate step id', body([end, end]), 'steps.1.id'],
      ['unknown step type', body([{ id: 'x', type: 'sleep' }]), 'steps.0.type'],
      [
        'a field of another step type',
        body([{ id: 'x', type: 'send_text', text: 'hi', url: 'https://example.com' }]),
        'steps.0.url',
      ],
      ['missing required field', body([{ id: 'x', type: 'send_text' }]), 'steps.0.text'],
      ['missing templateName', body([{ id: 'x', type: 'send_template' }]), 'steps.0.templateName'],
      ['unknown next', body([{ id: 'x', type: 'end', next: 'nope' }, end]), 'steps.0.next'],
      [
        'unknown goto',
        body([
          end,
          { id: 'b', type: 'end' },
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: '{{payload.x}}', op: 'exists' }, goto: 'nowhere' }],
          },
        ]),
        'steps.2.conditions.0.goto',
      ],
      [
        'unknown else',
        body([
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: '{{payload.x}}', op: 'exists' }, goto: 'br' }],
            else: 'nope',
          },
        ]),
        'steps.0.else',
      ],
      [
        'unknown op',
        body([
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: '{{payload.x}}', op: 'like' }, goto: 'br' }],
          },
        ]),
        'steps.0.conditions.0.if.op',
      ],
      [
        'branch without conditions',
        body([{ id: 'br', type: 'branch', conditions: [] }]),
        'steps.0.conditions',
      ],
      [
        'unknown onTimeout',
        body([{ id: 'w', type: 'wait_for_reply', timeout: 'PT1H', onTimeout: 'nope' }]),
        'steps.0.onTimeout',
      ],
      [
        'unknown onError',
        body([{ id: 'h', type: 'webhook', url: 'https://example.com/h', onError: 'nope' }]),
        'steps.0.onError',
      ],
      [
        'zero duration (4th step)',
        body([
          end,
          { id: 'b', type: 'end' },
          { id: 'c', type: 'end' },
          { id: 'w', type: 'wait', duration: 'PT0S' },
        ]),
        'steps.3.duration',
      ],
      [
        'unparsable duration',
        body([{ id: 'w', type: 'wait', duration: '5 minutes' }]),
        'steps.0.duration',
      ],
      [
        'timeout over 90 days',
        body([{ id: 'w', type: 'wait_for_reply', timeout: 'P91D' }]),
        'steps.0.timeout',
      ],
      [
        'bad template string',
        body([{ id: 't', type: 'send_text', text: 'Hi {{contact.nick}}' }]),
        'steps.0.text',
      ],
      [
        'reference to an unknown step',
        body([{ id: 't', type: 'send_text', text: 'Code {{steps.nope.coupon}}' }]),
        'steps.0.text',
      ],
      [
        'bad variable',
        body([sendNotice({ id: 's', variables: { '1': '{{order.id}}', '2': 'x' } })]),
        'steps.0.variables.1',
      ],
      [
        'text over 4096 characters',
        body([{ id: 't', type: 'send_text', text: 'x'.repeat(4097) }]),
        'steps.0.text',
      ],
      [
        'non-http webhook',
        body([{ id: 'h', type: 'webhook', url: 'ftp://example.com/x' }]),
        'steps.0.url',
      ],
      [
        'GET webhook',
        body([{ id: 'h', type: 'webhook', url: 'https://example.com/h', method: 'GET' }]),
        'steps.0.method',
      ],
      [
        'bad reference in a webhook body',
        body([{ id: 'h', type: 'webhook', url: 'https://example.com/h', body: { a: '{{x.y}}' } }]),
        'steps.0.body',
      ],
      [
        'unknown conversation status',
        body([{ id: 'u', type: 'update_conversation', status: 'closed' }]),
        'steps.0.status',
      ],
      ['update that changes nothing', body([{ id: 'u', type: 'update_conversation' }]), 'steps.0'],
    ];
    for (const [what, b, param] of cases) {
      const res = await create(b);
      expect([what, res.status, res.body.error?.code, res.body.error?.param]).toEqual([
        what,
        400,
        'validation_error',
        param,
      ]);
      expect(res.body.error.message, what).toEqual(expect.any(String));
    }
    // Shapes the body schema refuses.
    for (const b of [
      body([end], { trigger: { type: 'cron' } }),
      body([end], { trigger: { type: 'event' } }),
      body([end], { status: 'deleted' }),
      body([end], { extra: true }),
      { trigger: { type: 'manual' }, steps: [end] },
      { name: 'x', trigger: { type: 'manual' } },
    ]) {
      const res = await create(b);
      expect([JSON.stringify(b), res.status, res.body.error?.code]).toEqual([
        JSON.stringify(b),
        400,
        'validation_error',
      ]);
    }
    expect((await t.request('GET', '/workflows', { key })).body.data).toEqual([]);
  });

  it('PUT makes a new version; a run in flight finishes on the version it started on', async () => {
    const { key, clock, jobs, workflow, start, getRun, path, sentTo } = await setup();
    const wf = await workflow([
      { id: 'w', type: 'wait', duration: 'PT1H' },
      sendNotice({ id: 'say', variables: { '1': '{{contact.name}}', '2': 'v1' } }),
    ]);
    const v1run = await start(wf.id, ANN);
    expect(v1run).toMatchObject({ version: 1, status: 'waiting', currentStepId: 'w' });

    const v2steps = [
      { id: 'pause', type: 'wait', duration: 'PT2H' },
      sendNotice({ id: 'say2', variables: { '1': '{{contact.name}}', '2': 'v2' } }),
    ];
    const put = await t.request('PUT', '/workflows', { key, body: { id: wf.id, steps: v2steps } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: wf.id,
      name: 'Flow',
      version: 2,
      steps: v2steps,
      runs: { running: 0, waiting: 1 },
    });
    expect(put.body).not.toHaveProperty('secret');
    expect((await t.request('GET', `/workflows/${wf.id}`, { key })).body).toMatchObject({
      version: 2,
      steps: v2steps,
    });

    const v2run = await start(wf.id, BOB);
    expect(v2run).toMatchObject({ version: 2, status: 'waiting', currentStepId: 'pause' });

    // The v1 run resumes at v1's step `say`, which v2 does not have.
    clock.advance(HOUR);
    await jobs.runDue();
    const v1done = await getRun(v1run.id);
    expect(v1done).toMatchObject({ version: 1, status: 'completed', error: null });
    expect(path(v1done)).toEqual(['w', 'say']);
    expect((await sentTo(ANN)).map((m: Json) => m.text)).toEqual([
      'Hello Ann, your order v1 has shipped.',
    ]);
    expect((await getRun(v2run.id)).status).toBe('waiting');

    clock.advance(HOUR);
    await jobs.runDue();
    const v2done = await getRun(v2run.id);
    expect(v2done).toMatchObject({ version: 2, status: 'completed' });
    expect(path(v2done)).toEqual(['pause', 'say2']);
    expect((await sentTo(BOB)).map((m: Json) => m.text)).toEqual([
      'Hello Bob, your order v2 has shipped.',
    ]);

    // Any field makes a version; the others stay.
    const renamed = await t.request('PUT', '/workflows', {
      key,
      body: { id: wf.id, name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', version: 3, steps: v2steps });
    // A bad definition changes nothing.
    const bad = await t.request('PUT', '/workflows', {
      key,
      body: { id: wf.id, steps: [{ id: 'a', type: 'end', next: 'b' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'steps.0.next' });
    expect((await t.request('GET', `/workflows/${wf.id}`, { key })).body).toMatchObject({
      name: 'Renamed',
      version: 3,
      steps: v2steps,
    });
    expect(
      (await t.request('PUT', '/workflows', { key, body: { id: 'wf_nope', name: 'x' } })).status,
    ).toBe(404);
  });

  it('PATCH sets the status; only active workflows start runs', async () => {
    const { key, workflow, trigger } = await setup();
    const wf = await workflow([{ id: 'e', type: 'end' }]);
    const patch = (body: unknown, id = wf.id) =>
      t.request('PATCH', `/workflows/${id}`, { key, body });

    const paused = await patch({ status: 'paused' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: wf.id, status: 'paused' });
    expect((await t.request('GET', `/workflows/${wf.id}`, { key })).body.status).toBe('paused');
    const refused = await trigger(wf.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');

    expect((await patch({ status: 'active' })).body.status).toBe('active');
    expect((await trigger(wf.id)).status).toBe(201);

    expect((await patch({ status: 'archived' })).body.status).toBe('archived');
    const archived = await trigger(wf.id, { phone: BOB });
    expect(archived.status).toBe(409);
    expect(archived.body.error.code).toBe('invalid_state');

    const bad = await patch({ status: 'deleted' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect((await patch({ status: 'paused' }, 'wf_nope')).status).toBe(404);
  });
});

describe('runs', () => {
  it('a manual trigger answers the run; one active run per workflow and contact', async () => {
    const { key, clock, jobs, contactIds, workflow, trigger, getRun } = await setup();
    const wf = await workflow([{ id: 'w', type: 'wait', duration: 'PT1H' }]);

    const res = await trigger(wf.id, { phone: ANN }, { orderId: 'A-7' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'id',
        'workflowId',
        'version',
        'contactId',
        'contactName',
        'phone',
        'status',
        'outcome',
        'currentStepId',
        'trigger',
        'payload',
        'error',
        'createdAt',
        'updatedAt',
        'endedAt',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      workflowId: wf.id,
      version: 1,
      contactId: contactIds[ANN],
      phone: ANN,
      contactName: 'Ann',
      outcome: null,
      trigger: { type: 'manual', event: null, messageId: null },
      payload: { orderId: 'A-7' },
      error: null,
      endedAt: null,
    });
    expect(['running', 'waiting']).toContain(res.body.status);
    await jobs.runDue();
    const run = await getRun(res.body.id);
    expect(run).toMatchObject({ id: res.body.id, status: 'waiting', currentStepId: 'w' });
    expect(run.steps).toEqual([
      {
        stepId: 'w',
        type: 'wait',
        status: 'waiting',
        startedAt: expect.any(String),
        endedAt: null,
        output: { resumesAt: '2026-01-05T11:00:00.000Z' },
        error: null,
      },
    ]);

    // The same contact, by phone or by id: refused while the run is active.
    for (const who of [{ phone: ANN }, { contactId: contactIds[ANN]! }]) {
      const again = await trigger(wf.id, who);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('invalid_state');
    }
    // Another contact, by id.
    const bob = await trigger(wf.id, { contactId: contactIds[BOB]! });
    expect(bob.status).toBe(201);
    expect(bob.body).toMatchObject({ contactId: contactIds[BOB], phone: BOB, payload: {} });
    await jobs.runDue();
    expect((await t.request('GET', `/workflows/${wf.id}`, { key })).body.runs).toEqual({
      running: 0,
      waiting: 2,
    });

    // Bad triggers.
    const neither = await trigger(wf.id, {});
    expect(neither.status).toBe(400);
    expect(neither.body.error.code).toBe('validation_error');
    const both = await trigger(wf.id, { phone: CAROL, contactId: contactIds[CAROL]! });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('validation_error');
    expect((await trigger('wf_nope', { phone: CAROL })).status).toBe(404);
    expect((await trigger(wf.id, { contactId: 'ct_nope' })).status).toBe(404);
    const badPhone = await trigger(wf.id, { phone: '12' });
    expect(badPhone.status).toBe(400);

    // Once the run ended, the contact may start another.
    clock.advance(HOUR);
    await jobs.runDue();
    const done = await getRun(res.body.id);
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(done.endedAt).not.toBeNull();
    expect(done.steps[0]).toMatchObject({ stepId: 'w', status: 'completed' });
    expect(done.steps[0].endedAt).not.toBeNull();
    expect((await t.request('GET', `/workflows/${wf.id}`, { key })).body.runs).toEqual({
      running: 0,
      waiting: 0,
    });
    const next = await trigger(wf.id, { phone: ANN });
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(res.body.id);
  });

  it('POST /api/events starts every active workflow listening for the event and skips active runs', async () => {
    const { key, jobs, contactIds, workflow, getRun } = await setup();
    const waitHour = [{ id: 'w', type: 'wait', duration: 'PT1H' }];
    const cart = { type: 'event', event: 'cart.abandoned' };
    const a = await workflow(waitHour, { name: 'A', trigger: cart });
    const b = await workflow(waitHour, { name: 'B', trigger: cart });
    const c = await workflow(waitHour, {
      name: 'C',
      trigger: { type: 'event', event: 'order.shipped' },
    });
    const d = await workflow(waitHour, { name: 'D', trigger: cart, status: 'paused' });
    const e = await workflow(waitHour, { name: 'E' });
    const post = (body: Record<string, unknown>) => t.request('POST', '/api/events', { key, body });
    const runsOf = async (id: string) =>
      (await t.request('GET', `/workflows/${id}/runs`, { key })).body.data as Json[];

    const res = await post({
      event: 'cart.abandoned',
      phone: ANN,
      payload: { cartId: 'c1', total: 59 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.any(String), duplicate: false });
    expect(res.body.runs).toHaveLength(2);
    await jobs.runDue();
    expect(res.body.skipped.filter((s: Json) => [a.id, b.id].includes(s.workflowId))).toEqual([]);
    const started = await Promise.all(res.body.runs.map((id: string) => getRun(id)));
    expect(started.map((r) => r.workflowId).sort()).toEqual([a.id, b.id].sort());
    for (const r of started) {
      expect(r).toMatchObject({
        version: 1,
        contactId: contactIds[ANN],
        phone: ANN,
        trigger: { type: 'event', event: 'cart.abandoned' },
        payload: { cartId: 'c1', total: 59 },
        status: 'waiting',
      });
    }
    for (const other of [c, d, e]) expect(await runsOf(other.id)).toEqual([]);

    // Ann is in both: the next event skips them and says why.
    const again = await post({ event: 'cart.abandoned', phone: ANN, payload: { cartId: 'c2' } });
    expect(again.status).toBe(200);
    expect(again.body.runs).toEqual([]);
    expect(again.body.duplicate).toBe(false);
    expect(
      [...again.body.skipped].sort((x: Json, y: Json) => (x.workflowId < y.workflowId ? -1 : 1)),
    ).toEqual(
      [
        { workflowId: a.id, reason: 'active_run' },
        { workflowId: b.id, reason: 'active_run' },
      ].sort((x, y) => (x.workflowId < y.workflowId ? -1 : 1)),
    );
    expect(again.body.id).not.toBe(res.body.id);
    expect(await runsOf(a.id)).toHaveLength(1);

    // Bob is in none yet.
    const bob = await post({ event: 'cart.abandoned', phone: BOB });
    expect(bob.body.runs).toHaveLength(2);
    expect(bob.body.skipped.filter((s: Json) => s.reason === 'active_run')).toEqual([]);
    expect((await getRun(bob.body.runs[0])).payload).toEqual({});

    // A phone the workspace has never seen: the contact is created for the run.
    const NEW = '+14155552674';
    const fresh = await post({ event: 'cart.abandoned', phone: NEW });
    expect(fresh.body.runs).toHaveLength(2);
    const contact = await t.request('GET', `/api/contacts?phone=${encodeURIComponent(NEW)}`, {
      key,
    });
    expect(contact.body.data).toHaveLength(1);
    expect(await getRun(fresh.body.runs[0])).toMatchObject({
      phone: NEW,
      contactId: contact.body.data[0].id,
    });

    // Nobody listens.
    const none = await post({ event: 'nobody.listens', phone: ANN });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ runs: [], skipped: [], duplicate: false });

    for (const bad of [
      { event: 'cart.abandoned' },
      { phone: ANN },
      { event: 'cart.abandoned', phone: '12' },
      { event: '', phone: ANN },
      { event: 'cart.abandoned', phone: ANN, payload: 'x' },
    ]) {
      const r = await post(bad);
      expect([JSON.stringify(bad), r.status, r.body.error?.code]).toEqual([
        JSON.stringify(bad),
        400,
        'validation_error',
      ]);
    }
    expect(await runsOf(a.id)).toHaveLength(3);
  });

  it('accepts a dedupeKey once per 24 hours', async () => {
    const { key, clock, workflow } = await setup();
    const wf = await workflow([{ id: 'e', type: 'end' }], {
      trigger: { type: 'event', event: 'order.shipped' },
    });
    const post = (body: Record<string, unknown>) => t.request('POST', '/api/events', { key, body });
    const runCount = async () =>
      ((await t.request('GET', `/workflows/${wf.id}/runs?limit=200`, { key })).body.data as Json[])
        .length;

    const first = await post({
      event: 'order.shipped',
      phone: ANN,
      payload: { orderId: 'A-1' },
      dedupeKey: 'ship-A-1',
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ skipped: [], duplicate: false });
    expect(first.body.runs).toHaveLength(1);
    await t.core.services.scheduler.runDue();
    expect(await runCount()).toBe(1);

    // The same key again answers the first answer and starts nothing, whatever the body.
    const dup = await post({
      event: 'order.shipped',
      phone: ANN,
      payload: { orderId: 'A-2' },
      dedupeKey: 'ship-A-1',
    });
    expect(dup.status).toBe(200);
    expect(dup.body).toEqual({ ...first.body, duplicate: true });
    expect(await runCount()).toBe(1);

    // Without the key the same event starts a run (the run above has ended).
    const plain = await post({ event: 'order.shipped', phone: ANN, payload: { orderId: 'A-1' } });
    expect(plain.body.runs).toHaveLength(1);
    expect(plain.body.duplicate).toBe(false);
    expect(await runCount()).toBe(2);
    await t.core.services.scheduler.runDue();

    clock.advance(DAY - SECOND);
    const late = await post({ event: 'order.shipped', phone: ANN, dedupeKey: 'ship-A-1' });
    expect(late.body).toEqual({ ...first.body, duplicate: true });
    expect(await runCount()).toBe(2);

    clock.advance(2 * SECOND);
    const after = await post({ event: 'order.shipped', phone: ANN, dedupeKey: 'ship-A-1' });
    expect(after.status).toBe(200);
    expect(after.body.duplicate).toBe(false);
    expect(after.body.id).not.toBe(first.body.id);
    expect(after.body.runs).toHaveLength(1);
    expect(after.body.runs[0]).not.toBe(first.body.runs[0]);
    expect(await runCount()).toBe(3);
    const again = await post({ event: 'order.shipped', phone: ANN, dedupeKey: 'ship-A-1' });
    expect(again.body).toEqual({ ...after.body, duplicate: true });
    expect(await runCount()).toBe(3);

    // Keys belong to their scope: live has not seen this one.
    const live = await t.request('POST', '/api/events', {
      key: t.key('live'),
      body: { event: 'order.shipped', phone: ANN, dedupeKey: 'ship-A-1' },
    });
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ runs: [], skipped: [], duplicate: false });
    expect(live.body.id).not.toBe(after.body.id);
  });

  it('cancels an active run; a final run cannot be cancelled', async () => {
    const { key, clock, jobs, workflow, start, trigger, getRun, sentTo } = await setup();
    const wf = await workflow([
      { id: 'w', type: 'wait', duration: 'PT1H' },
      sendNotice({ id: 's' }),
    ]);
    const run = await start(wf.id, ANN);
    expect(run.status).toBe('waiting');
    const cancel = (id: string) =>
      t.request('POST', `/workflows/runs/${id}/cancel`, { key, body: {} });

    const res = await cancel(run.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: run.id, status: 'cancelled' });
    expect(res.body.endedAt).not.toBeNull();

    // Its timer does nothing any more.
    clock.advance(2 * HOUR);
    await jobs.runDue();
    const after = await getRun(run.id);
    expect(after.status).toBe('cancelled');
    expect(after.steps.map((s: RunStep) => s.stepId)).toEqual(['w']);
    expect(await sentTo(ANN)).toEqual([]);

    const again = await cancel(run.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
    expect((await cancel('run_nope')).status).toBe(404);

    // The contact is free again; a completed run cannot be cancelled either.
    const quick = await workflow([{ id: 'e', type: 'end' }]);
    const done = await start(quick.id, ANN);
    expect(done.status).toBe('completed');
    expect((await cancel(done.id)).status).toBe(409);
    expect((await trigger(wf.id, { phone: ANN })).status).toBe(201);
  });

  it('lists a workflow’s runs newest first, by status, paged', async () => {
    const { key, clock, workflow, start } = await setup();
    const wf = await workflow([{ id: 'w', type: 'wait', duration: 'PT1H' }]);
    const r1 = await start(wf.id, ANN);
    clock.advance(SECOND);
    const r2 = await start(wf.id, BOB);
    clock.advance(SECOND);
    const r3 = await start(wf.id, CAROL);
    await t.request('POST', `/workflows/runs/${r2.id}/cancel`, { key, body: {} });
    const ids = async (query = '') => {
      const res = await t.request('GET', `/workflows/${wf.id}/runs${query}`, { key });
      expect(res.status).toBe(200);
      return (res.body.data as Json[]).map((r) => r.id);
    };
    expect(await ids()).toEqual([r3.id, r2.id, r1.id]);
    expect(await ids('?status=waiting')).toEqual([r3.id, r1.id]);
    expect(await ids('?status=cancelled')).toEqual([r2.id]);
    expect(await ids('?status=completed')).toEqual([]);

    const page1 = await t.request('GET', `/workflows/${wf.id}/runs?limit=2`, { key });
    expect(page1.body.data.map((r: Json) => r.id)).toEqual([r3.id, r2.id]);
    const page2 = await t.request(
      'GET',
      `/workflows/${wf.id}/runs?limit=2&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
      { key },
    );
    expect(page2.body).toMatchObject({ nextCursor: null });
    expect(page2.body.data.map((r: Json) => r.id)).toEqual([r1.id]);

    const bad = await t.request('GET', `/workflows/${wf.id}/runs?status=sleeping`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect((await t.request('GET', '/workflows/wf_nope/runs', { key })).status).toBe(404);
    expect((await t.request('GET', '/workflows/runs/run_nope', { key })).status).toBe(404);
  });

  it('keeps workflows and runs to their workspace and environment', async () => {
    const { key, workflow, start } = await setup();
    const wf = await workflow([{ id: 'w', type: 'wait', duration: 'PT1H' }], {
      trigger: { type: 'event', event: 'cart.abandoned' },
    });
    const run = await start(wf.id, ANN);
    const live = t.key('live');
    const other = t.key('test', t.core.services.workspaces.create('Other').id);
    for (const k of [live, other]) {
      const req = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown) =>
        t.request(method, url, { key: k, ...(body !== undefined ? { body } : {}) });
      expect((await req('GET', `/workflows/${wf.id}`)).status).toBe(404);
      expect((await req('GET', '/workflows')).body.data).toEqual([]);
      expect((await req('PUT', '/workflows', { id: wf.id, name: 'x' })).status).toBe(404);
      expect((await req('PATCH', `/workflows/${wf.id}`, { status: 'paused' })).status).toBe(404);
      expect(
        (await req('POST', '/workflows/trigger', { workflowId: wf.id, phone: BOB })).status,
      ).toBe(404);
      expect((await req('GET', `/workflows/${wf.id}/runs`)).status).toBe(404);
      expect((await req('GET', `/workflows/runs/${run.id}`)).status).toBe(404);
      expect((await req('POST', `/workflows/runs/${run.id}/cancel`, {})).status).toBe(404);
      // Their events start nothing here.
      const ev = await req('POST', '/api/events', { event: 'cart.abandoned', phone: BOB });
      expect(ev.status).toBe(200);
      expect(ev.body).toMatchObject({ runs: [], skipped: [], duplicate: false });
    }
    // Nothing changed in the workflow's own scope.
    const own = await t.request('GET', `/workflows/${wf.id}`, { key });
    expect(own.body).toMatchObject({ status: 'active', version: 1, name: 'Flow' });
    expect((await t.request('GET', `/workflows/runs/${run.id}`, { key })).body.status).toBe(
      'waiting',
    );
    expect(
      (await t.request('GET', `/workflows/${wf.id}/runs`, { key })).body.data.map(
        (r: Json) => r.id,
      ),
    ).toEqual([run.id]);
  });
});

describe('steps', () => {
  it('send_template renders its variables and sends like /api/send; events tell the run', async () => {
    const { workflow, start, path, sentTo, workflowEvents } = await setup();
    const wf = await workflow([
      sendNotice({
        id: 'say',
        variables: { '1': '{{contact.name}}', '2': '{{payload.order.id}}' },
      }),
      { id: 'done', type: 'end' },
    ]);
    const run = await start(wf.id, ANN, { order: { id: 'A-17' } });
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(run.endedAt).not.toBeNull();
    expect(path(run)).toEqual(['say', 'done']);
    for (const s of run.steps as RunStep[]) {
      expect(s).toMatchObject({ status: 'completed', error: null });
      expect(s.endedAt).not.toBeNull();
    }
    expect(run.steps.map((s: RunStep) => s.type)).toEqual(['send_template', 'end']);
    const sent = await sentTo(ANN);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      type: 'template',
      templateName: 'order_update',
      text: 'Hello Ann, your order A-17 has shipped.',
      variables: { '1': 'Ann', '2': 'A-17' },
    });
    expect(workflowEvents(run.id)).toEqual([
      'workflow.run.started',
      'workflow.run.step',
      'workflow.run.step',
      'workflow.run.completed',
    ]);
  });

  it('a template that cannot be sent fails the step and the run with the reason', async () => {
    const { key, workflow, start, stepOf, sentTo, workflowEvents } = await setup();
    const missing = await workflow([sendNotice({ id: 's', templateName: 'no_such_template' })]);
    const run = await start(missing.id, ANN);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('no_such_template');
    expect(run.endedAt).not.toBeNull();
    expect(stepOf(run, 's')).toMatchObject({ status: 'failed' });
    expect(stepOf(run, 's')!.error).toContain('no_such_template');
    expect(workflowEvents(run.id)).toEqual([
      'workflow.run.started',
      'workflow.run.step',
      'workflow.run.failed',
    ]);

    // Made after the workflow, still pending review.
    await t.request('POST', '/api/templates', {
      key,
      body: {
        name: 'pending_one',
        category: 'UTILITY',
        language: 'en',
        components: [{ type: 'BODY', text: 'Hi {{1}}' }],
      },
    });
    const pending = await workflow([
      sendNotice({ id: 's', templateName: 'pending_one', variables: { '1': 'x' } }),
      { id: 'after', type: 'end' },
    ]);
    const run2 = await start(pending.id, ANN);
    expect(run2.status).toBe('failed');
    expect(run2.error).toMatch(/pending_one|not approved|template_not_approved/i);
    expect(run2.error).toMatch(/approved/i);
    expect(run2.steps.map((s: RunStep) => s.stepId)).toEqual(['s']);

    // The wrong number of variables, as /api/send would refuse it.
    const short = await workflow([sendNotice({ id: 's', variables: { '1': 'only one' } })]);
    const run3 = await start(short.id, ANN);
    expect(run3.status).toBe('failed');
    expect(run3.error).toMatch(/variables/i);
    expect(await sentTo(ANN)).toEqual([]);
  });

  it('a live run pays for its template like /api/send, and fails when the wallet cannot pay', async () => {
    const { clock, jobs } = await setup();
    const live = t.key('live');
    const liveScope = { workspaceId: t.workspaceId, environment: 'live' } as const;
    const tpl = await t.request('POST', '/api/templates', {
      key: live,
      body: {
        name: 'order_update',
        category: 'UTILITY',
        language: 'en',
        components: [{ type: 'BODY', text: 'Hello {{1}}, your order {{2}} has shipped.' }],
      },
    });
    t.core.services.templates.decide(liveScope, tpl.body.template.id, 'approve');
    clock.advance(600_000); // past the live post-approval wait
    await jobs.runDue();
    const created = await t.request('POST', '/workflows', {
      key: live,
      body: {
        name: 'Live',
        trigger: { type: 'manual' },
        // Ann is a test contact: in live she is new, without a name.
        steps: [sendNotice({ id: 's', variables: { '1': 'friend', '2': '{{payload.order}}' } })],
      },
    });
    expect(created.status).toBe(201);
    const runLive = async () => {
      const res = await t.request('POST', '/workflows/trigger', {
        key: live,
        body: { workflowId: created.body.id, phone: ANN, payload: { order: 'L-1' } },
      });
      expect(res.status).toBe(201);
      await jobs.runDue();
      return (await t.request('GET', `/workflows/runs/${res.body.id}`, { key: live })).body;
    };
    const balance = () => t.core.services.wallet.get(t.workspaceId).balanceMicros;

    const broke = await runLive();
    expect(broke.status).toBe('failed');
    expect(broke.error).toMatch(/insufficient_balance/);
    expect(balance()).toBe(0);

    await t.request('POST', '/api/wallet/topup', {
      session: 'live',
      body: { amountMicros: 1_000_000 },
    });
    clock.advance(10 * SECOND);
    const paid = await runLive();
    expect(paid.status).toBe('completed');
    const msgs = (
      await t.request('GET', `/messages?phone=${encodeURIComponent(ANN)}`, { key: live })
    ).body.data;
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatchObject({
      environment: 'live',
      category: 'UTILITY',
      costMicros: 5_000,
      text: 'Hello friend, your order L-1 has shipped.',
    });
    expect(balance()).toBe(1_000_000 - 5_000);
  });

  it('send_text and send_list only inside the 24-hour window', async () => {
    const { key, clock, workflow, start, trigger, getRun, drain, path, stepOf, sentTo, inbound } =
      await setup();
    const list = await t.request('POST', '/interactive-lists', {
      key,
      body: {
        name: 'Topics',
        body: 'Pick a topic',
        buttonText: 'Choose',
        sections: [{ title: 'Help', rows: [{ id: 'billing', title: 'Billing' }] }],
      },
    });
    expect(list.status).toBe(201);
    const text = await workflow([
      { id: 'hi', type: 'send_text', text: 'Hi {{contact.name}}, about {{payload.topic}}' },
    ]);
    const menu = await workflow([{ id: 'menu', type: 'send_list', listId: list.body.id }]);

    // Ann has never written.
    const closed = await start(text.id, ANN, { topic: 'billing' });
    expect(closed.status).toBe('failed');
    expect(closed.error).toMatch(/window/i);
    expect(stepOf(closed, 'hi')).toMatchObject({ status: 'failed' });
    expect(stepOf(closed, 'hi')!.error).toMatch(/window/i);
    const closedList = await start(menu.id, ANN);
    expect(closedList.status).toBe('failed');
    expect(closedList.error).toMatch(/window/i);
    expect(await sentTo(ANN)).toEqual([]);

    // Inside the window.
    expect((await inbound(ANN, { message: 'hello' })).status).toBe(200);
    const both = await workflow([
      { id: 'hi', type: 'send_text', text: 'Hi {{contact.name}}, about {{payload.topic}}' },
      { id: 'menu', type: 'send_list', listId: list.body.id },
    ]);
    const res = await trigger(both.id, { phone: ANN }, { topic: 'billing' });
    expect(res.status).toBe(201);
    await drain(15);
    const open = await getRun(res.body.id);
    expect(open).toMatchObject({ status: 'completed', error: null });
    expect(path(open)).toEqual(['hi', 'menu']);
    const sent = await sentTo(ANN);
    expect(sent.map((m: Json) => [m.type, m.text])).toEqual([
      ['text', 'Hi Ann, about billing'],
      ['list', 'Pick a topic'],
    ]);
    expect(sent[1].list).toMatchObject({ id: list.body.id });

    // A day after Ann's last message the window has closed again.
    clock.advance(DAY);
    const late = await start(menu.id, ANN);
    expect(late.status).toBe('failed');
    expect(late.error).toMatch(/window/i);
    expect(await sentTo(ANN)).toHaveLength(2);
  });

  it('wait holds the run until its time, then goes on', async () => {
    const { key, clock, jobs, workflow, start, getRun, path, sentTo, workflowEvents } =
      await setup();
    const wf = await workflow([
      { id: 'w', type: 'wait', duration: 'PT15M' },
      sendNotice({ id: 's' }),
    ]);
    const run = await start(wf.id, ANN);
    expect(run).toMatchObject({ status: 'waiting', currentStepId: 'w', endedAt: null });
    expect((await t.request('GET', `/workflows/${wf.id}`, { key })).body.runs).toEqual({
      running: 0,
      waiting: 1,
    });

    clock.advance(15 * MINUTE - 1);
    await jobs.runDue();
    expect((await getRun(run.id)).status).toBe('waiting');
    expect(await sentTo(ANN)).toEqual([]);

    clock.advance(1);
    await jobs.runDue();
    const done = await getRun(run.id);
    expect(done.status).toBe('completed');
    expect(path(done)).toEqual(['w', 's']);
    expect(done.steps[0]).toMatchObject({ status: 'completed' });
    expect(Date.parse(done.steps[0].endedAt) - Date.parse(done.steps[0].startedAt)).toBe(
      15 * MINUTE,
    );
    expect(await sentTo(ANN)).toHaveLength(1);
    // It fires once.
    clock.advance(HOUR);
    await jobs.runDue();
    expect(await sentTo(ANN)).toHaveLength(1);
    expect(workflowEvents(run.id).filter((e) => e === 'workflow.run.completed')).toHaveLength(1);
  });

  it('wait_for_reply resumes on the contact’s next text and exposes {{reply.text}}', async () => {
    const { clock, jobs, workflow, start, getRun, drain, path, sentTo, inbound } = await setup();
    // Ann wrote before the run started: that message does not count as the reply.
    await inbound(ANN, { message: 'earlier message' });
    clock.advance(MINUTE);
    const wf = await workflow([
      sendNotice({ id: 'ask' }),
      { id: 'reply', type: 'wait_for_reply', timeout: 'PT1H', onTimeout: 'late' },
      { id: 'echo', type: 'send_text', text: 'You said: {{reply.text}}' },
      { id: 'done', type: 'end' },
      { id: 'late', type: 'send_text', text: 'Too late' },
    ]);
    const run = await start(wf.id, ANN);
    expect(run).toMatchObject({ status: 'waiting', currentStepId: 'reply' });
    expect(path(run)).toEqual(['ask', 'reply']);

    // Someone else's message does not resume Ann's run.
    await inbound(BOB, { message: 'I am Bob' });
    await jobs.runDue();
    expect((await getRun(run.id)).status).toBe('waiting');

    clock.advance(10 * MINUTE);
    expect((await inbound(ANN, { message: 'Yes please' })).status).toBe(200);
    await drain(15);
    const done = await getRun(run.id);
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(path(done)).toEqual(['ask', 'reply', 'echo', 'done']);
    expect((await sentTo(ANN)).map((m: Json) => m.text)).toEqual([
      'Hello Ann, your order A-1 has shipped.',
      'You said: Yes please',
    ]);
    // The timeout that was set does nothing now.
    clock.advance(2 * HOUR);
    await jobs.runDue();
    expect((await getRun(run.id)).steps).toHaveLength(4);
    expect(await sentTo(ANN)).toHaveLength(2);
  });

  it('wait_for_reply resumes on a list pick: {{reply.listReply.*}}', async () => {
    const { key, workflow, trigger, getRun, drain, path, sentTo, inbound, conversationOf } =
      await setup();
    const list = (
      await t.request('POST', '/interactive-lists', {
        key,
        body: {
          name: 'Topics',
          body: 'Pick a topic',
          buttonText: 'Choose',
          sections: [
            {
              title: 'Help',
              rows: [
                { id: 'billing', title: 'Billing' },
                { id: 'track', title: 'Track my order' },
              ],
            },
          ],
        },
      })
    ).body;
    await inbound(ANN, { message: 'help' });
    const wf = await workflow([
      { id: 'menu', type: 'send_list', listId: list.id },
      { id: 'pick', type: 'wait_for_reply', timeout: 'P1D' },
      {
        id: 'route',
        type: 'branch',
        conditions: [
          { if: { value: '{{reply.listReply.rowId}}', op: 'eq', equals: 'billing' }, goto: 'tag' },
        ],
        else: 'done',
      },
      {
        id: 'tag',
        type: 'update_conversation',
        addLabels: ['billing'],
      },
      {
        id: 'confirm',
        type: 'send_text',
        text: 'Picked {{reply.listReply.title}} ({{reply.text}}) from {{reply.listReply.listId}}',
      },
      { id: 'done', type: 'end' },
    ]);
    const res = await trigger(wf.id, { phone: ANN });
    await drain(2);
    expect((await getRun(res.body.id)).status).toBe('waiting');
    const pick = await inbound(ANN, { listReply: { listId: list.id, rowId: 'billing' } });
    expect(pick.status).toBe(200);
    await drain(15);
    const done = await getRun(res.body.id);
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(path(done)).toEqual(['menu', 'pick', 'route', 'tag', 'confirm', 'done']);
    expect((await sentTo(ANN)).map((m: Json) => m.text)).toEqual([
      'Pick a topic',
      `Picked Billing (Billing) from ${list.id}`,
    ]);
    const [conv] = await conversationOf(ANN);
    expect(conv.labels).toEqual(['billing']);
  });

  it('wait_for_reply times out to onTimeout, or ends the run', async () => {
    const { clock, jobs, workflow, start, getRun, path, sentTo, inbound } = await setup();
    const nudge = await workflow([
      { id: 'reply', type: 'wait_for_reply', timeout: 'PT30M', onTimeout: 'nudge' },
      { id: 'thanks', type: 'send_text', text: 'Thanks' },
      { id: 'end', type: 'end' },
      sendNotice({ id: 'nudge', variables: { '1': '{{contact.name}}', '2': '[{{reply.text}}]' } }),
    ]);
    const plain = await workflow([
      { id: 'reply', type: 'wait_for_reply', timeout: 'PT30M' },
      sendNotice({ id: 'after' }),
    ]);
    const a = await start(nudge.id, ANN);
    const b = await start(plain.id, BOB);
    expect(a).toMatchObject({ status: 'waiting', currentStepId: 'reply' });
    expect(b).toMatchObject({ status: 'waiting', currentStepId: 'reply' });

    clock.advance(30 * MINUTE - 1);
    await jobs.runDue();
    expect((await getRun(a.id)).status).toBe('waiting');
    expect((await getRun(b.id)).status).toBe('waiting');

    clock.advance(1);
    await jobs.runDue();
    const aDone = await getRun(a.id);
    expect(aDone).toMatchObject({ status: 'completed', error: null });
    expect(path(aDone)).toEqual(['reply', 'nudge']);
    expect((await sentTo(ANN)).map((m: Json) => m.text)).toEqual([
      'Hello Ann, your order [] has shipped.',
    ]);
    const bDone = await getRun(b.id);
    expect(bDone).toMatchObject({ status: 'completed', error: null });
    expect(path(bDone)).toEqual(['reply']);
    expect(await sentTo(BOB)).toEqual([]);

    // A reply after the timeout changes nothing.
    await inbound(ANN, { message: 'sorry, late' });
    await jobs.runDue();
    expect(path(await getRun(a.id))).toEqual(['reply', 'nudge']);
    expect(await sentTo(ANN)).toHaveLength(1);
  });

  it('branch: eq/ne (numbers and strings), gt, contains, exists; first match wins; else; or the next step', async () => {
    const { workflow, start, path } = await setup();
    /** A workflow `check` → `yes` when the condition holds, else `no`; answers the path taken. */
    const taken = async (cond: Record<string, unknown>, payload: Record<string, unknown>) => {
      const wf = await workflow([
        { id: 'check', type: 'branch', conditions: [{ if: cond, goto: 'yes' }], else: 'no' },
        { id: 'yes', type: 'end' },
        { id: 'no', type: 'end' },
      ]);
      const run = await start(wf.id, ANN, payload);
      expect(run.status).toBe('completed');
      return path(run).slice(1).join();
    };
    const total = '{{payload.total}}';
    const tier = '{{payload.tier}}';
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      // eq, numeric: 42 equals 42.0 and "42".
      [{ value: total, op: 'eq', equals: 42 }, { total: 42.0 }, 'yes'],
      [{ value: total, op: 'eq', equals: '42' }, { total: 42 }, 'yes'],
      [{ value: total, op: 'eq', equals: 42 }, { total: '42.00' }, 'yes'],
      [{ value: total, op: 'eq', equals: 42 }, { total: 41 }, 'no'],
      // eq, strings: exact.
      [{ value: tier, op: 'eq', equals: 'gold' }, { tier: 'gold' }, 'yes'],
      [{ value: tier, op: 'eq', equals: 'gold' }, { tier: 'Gold' }, 'no'],
      [{ value: '{{contact.name}}', op: 'eq', equals: 'Ann' }, {}, 'yes'],
      // ne
      [{ value: total, op: 'ne', equals: 42 }, { total: 42 }, 'no'],
      [{ value: total, op: 'ne', equals: 42 }, { total: 43 }, 'yes'],
      [{ value: tier, op: 'ne', equals: 'gold' }, { tier: 'silver' }, 'yes'],
      [{ value: tier, op: 'ne', equals: 'gold' }, { tier: 'gold' }, 'no'],
      // gt compares numbers as numbers (10 > 9, though "10" < "9" as text).
      [{ value: total, op: 'gt', equals: 9 }, { total: 10 }, 'yes'],
      [{ value: total, op: 'gt', equals: 10 }, { total: 10 }, 'no'],
      [{ value: total, op: 'gt', equals: 100 }, { total: 99.5 }, 'no'],
      // contains: case-insensitive substring.
      [
        { value: '{{payload.note}}', op: 'contains', equals: 'call' },
        { note: 'Please CALL me' },
        'yes',
      ],
      [{ value: '{{payload.note}}', op: 'contains', equals: 'call' }, { note: 'Email me' }, 'no'],
      // exists: non-empty.
      [{ value: '{{payload.coupon}}', op: 'exists' }, { coupon: 'SAVE10' }, 'yes'],
      [{ value: '{{payload.coupon}}', op: 'exists' }, {}, 'no'],
      [{ value: '{{payload.coupon}}', op: 'exists' }, { coupon: '' }, 'no'],
    ];
    for (const [cond, payload, want] of cases) {
      expect([cond, payload, await taken(cond, payload)]).toEqual([cond, payload, want]);
    }

    // First match wins; no match and no else → the following step.
    const ordered = await workflow([
      {
        id: 'check',
        type: 'branch',
        conditions: [
          { if: { value: total, op: 'gt', equals: 100 }, goto: 'big' },
          { if: { value: total, op: 'gt', equals: 10 }, goto: 'medium' },
        ],
      },
      { id: 'small', type: 'end' },
      { id: 'big', type: 'end' },
      { id: 'medium', type: 'end' },
    ]);
    const route = async (n: number) => path(await start(ordered.id, ANN, { total: n })).join();
    expect(await route(500)).toBe('check,big');
    expect(await route(50)).toBe('check,medium');
    expect(await route(5)).toBe('check,small');
  });

  it('webhook: a signed POST to a real receiver; its JSON answer feeds later steps', async () => {
    const { clock, workflow, start, path, stepOf, sentTo, allowPrivateWebhooks } = await setup();
    await allowPrivateWebhooks();
    const answer = { coupon: 'SAVE10', nested: { level: 'gold' } };
    const rx = await receiver(clock, () => ({ status: 200, json: answer }));
    const wf = await workflow([
      {
        id: 'lookup',
        type: 'webhook',
        url: rx.url,
        body: { phone: '{{contact.phone}}', cart: '{{payload.cartId}}', fixed: 3, list: ['a'] },
      },
      {
        id: 'store',
        type: 'webhook',
        url: `${rx.url}/store`,
        method: 'PUT',
        body: { coupon: '{{steps.lookup.coupon}}' },
      },
      sendNotice({
        id: 'say',
        variables: { '1': '{{steps.lookup.coupon}}', '2': '{{steps.lookup.nested.level}}' },
      }),
    ]);
    const run = await start(wf.id, ANN, { cartId: 'c-9' });
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(path(run)).toEqual(['lookup', 'store', 'say']);
    expect(stepOf(run, 'lookup')).toMatchObject({ status: 'completed', output: answer });

    expect(rx.got).toHaveLength(2);
    const [first, second] = rx.got as [(typeof rx.got)[0], (typeof rx.got)[0]];
    expect(first.method).toBe('POST');
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(first.body)).toEqual({ phone: ANN, cart: 'c-9', fixed: 3, list: ['a'] });
    expect(second.method).toBe('PUT');
    expect(JSON.parse(second.body)).toEqual({ coupon: 'SAVE10' });

    // The receiver verifies the signature with the workflow's secret.
    for (const g of rx.got) {
      const ts = verifySignature(wf.secret, g.headers['x-parley-signature'], g.body);
      expect(ts).toBe(Math.floor(clock.now() / 1000));
      expect(verifySignature('wrong-secret', g.headers['x-parley-signature'], g.body)).toBeNull();
      expect(verifySignature(wf.secret, g.headers['x-parley-signature'], `${g.body} `)).toBeNull();
    }

    expect((await sentTo(ANN)).map((m: Json) => m.text)).toEqual([
      'Hello SAVE10, your order gold has shipped.',
    ]);
  });

  it('rotating the secret answers a new one once; the webhook steps sign with it from then on; audited; builders only', async () => {
    const { clock, workflow, start, allowPrivateWebhooks, key } = await setup();
    await allowPrivateWebhooks();
    const rx = await receiver(clock, () => ({ status: 200, json: {} }));
    const wf = await workflow([{ id: 'hook', type: 'webhook', url: rx.url }]);

    const rotated = await t.request('POST', `/workflows/${wf.id}/secret/rotate`, { key });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({ id: wf.id, name: wf.name, status: 'active' });
    const secret = rotated.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(wf.secret);
    // It is not shown again.
    expect((await t.request('GET', `/workflows/${wf.id}`, { key })).body).not.toHaveProperty(
      'secret',
    );

    await start(wf.id);
    const [got] = rx.got;
    expect(verifySignature(secret, got!.headers['x-parley-signature'], got!.body)).not.toBeNull();
    expect(verifySignature(wf.secret, got!.headers['x-parley-signature'], got!.body)).toBeNull();

    // In the audit trail, without the secret.
    const audit = await t.request('GET', '/audit?action=workflow_secret.rotated', {
      session: 'test',
    });
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ target: { type: 'workflow', id: wf.id } });
    expect(JSON.stringify(audit.body.data[0])).not.toContain(secret);

    // An agent may not; an unknown workflow is 404.
    const agent = await t.member({ name: 'Agent Ann', role: 'agent' });
    const refused = await t.request('POST', `/workflows/${wf.id}/secret/rotate`, {
      cookie: agent.cookie,
    });
    expect(refused.status).toBe(403);
    const missing = await t.request('POST', '/workflows/wf_nope/secret/rotate', { key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('webhook: retries a failing receiver with growing backoff, 5 attempts, then onError or fails the run', async () => {
    const { clock, workflow, trigger, finish, path, stepOf, conversationOf, allowPrivateWebhooks } =
      await setup();
    await allowPrivateWebhooks();
    const down = await receiver(clock, () => ({ status: 500, json: { error: 'down' } }));
    const rescued = await workflow([
      { id: 'hook', type: 'webhook', url: down.url, body: { a: 1 }, onError: 'fallback' },
      { id: 'after', type: 'end' },
      { id: 'fallback', type: 'update_conversation', addLabels: ['webhook-failed'] },
    ]);
    const res = await trigger(rescued.id, { phone: ANN });
    expect(res.status).toBe(201);
    const run = await finish(res.body.id);
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(path(run)).toEqual(['hook', 'fallback']);
    expect(stepOf(run, 'hook')).toMatchObject({ status: 'failed' });
    expect(stepOf(run, 'hook')!.error).toMatch(/500/);
    expect(down.got).toHaveLength(5);
    // Every attempt is signed, and each wait is longer than the one before.
    const gaps = down.got.slice(1).map((g, i) => g.at - down.got[i]!.at);
    expect(gaps[0]).toBeGreaterThan(0);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThan(gaps[i - 1]!);
    for (const g of down.got) {
      expect(
        verifySignature(rescued.secret, g.headers['x-parley-signature'], g.body),
      ).not.toBeNull();
    }
    expect((await conversationOf(ANN))[0].labels).toEqual(['webhook-failed']);

    // Without onError the run fails.
    const doomed = await workflow([
      { id: 'hook', type: 'webhook', url: down.url, body: { b: 2 } },
      { id: 'after', type: 'end' },
    ]);
    const failed = await finish((await trigger(doomed.id, { phone: BOB })).body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual(expect.any(String));
    expect(path(failed)).toEqual(['hook']);
    expect(down.got).toHaveLength(10);

    // A receiver that recovers: the retry's answer is the step's output.
    const flaky = await receiver(clock, (n) =>
      n < 3 ? { status: 503 } : { status: 201, json: { ok: true } },
    );
    const recovers = await workflow([
      { id: 'hook', type: 'webhook', url: flaky.url, onError: 'fallback' },
      { id: 'done', type: 'end' },
      { id: 'fallback', type: 'end' },
    ]);
    const ok = await finish((await trigger(recovers.id, { phone: CAROL })).body.id);
    expect(ok.status).toBe('completed');
    expect(path(ok)).toEqual(['hook', 'done']);
    expect(stepOf(ok, 'hook')).toMatchObject({ status: 'completed', output: { ok: true } });
    expect(flaky.got).toHaveLength(3);
  });

  it('update_conversation changes the contact’s conversation, creating it when there is none', async () => {
    const { workflow, start, conversationOf } = await setup();
    expect(await conversationOf(CAROL)).toEqual([]);
    const agent = await t.request('POST', '/agents', {
      session: 'test',
      body: { name: 'Sam', email: 'sam@example.com' },
    });
    expect(agent.status).toBe(201);
    const wf = await workflow([
      {
        id: 'route',
        type: 'update_conversation',
        status: 'pending',
        assignee: agent.body.id,
        addLabels: ['vip', 'workflow'],
      },
      { id: 'tidy', type: 'update_conversation', removeLabels: ['workflow'] },
    ]);
    const run = await start(wf.id, CAROL);
    expect(run).toMatchObject({ status: 'completed', error: null });
    const convs = await conversationOf(CAROL);
    expect(convs).toHaveLength(1);
    expect(convs[0]).toMatchObject({ status: 'pending', assignee: agent.body.id, labels: ['vip'] });

    const release = await workflow([
      { id: 'release', type: 'update_conversation', status: 'resolved', assignee: null },
    ]);
    expect((await start(release.id, CAROL)).status).toBe('completed');
    const after = await conversationOf(CAROL);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: convs[0].id,
      status: 'resolved',
      assignee: null,
      labels: ['vip'],
    });
  });

  it('a conversation a run creates: its conversation.created is the JSON the API serves, and the inbox counts it', async () => {
    const { key, workflow, start, conversationOf } = await setup();
    const wf = await workflow([
      { id: 'route', type: 'update_conversation', status: 'pending', addLabels: ['vip', 'new'] },
    ]);
    expect((await start(wf.id, CAROL)).status).toBe('completed');
    const [conv] = await conversationOf(CAROL);
    const created = JSON.parse(
      t.core.db
        .prepare(
          "SELECT data FROM events WHERE type = 'conversation.created' ORDER BY seq DESC LIMIT 1",
        )
        .pluck()
        .get() as string,
    ).conversation;
    // Built in code, not read back: the same keys in the same order, the same values.
    expect(JSON.stringify(created)).toBe(JSON.stringify(conv));
    // The counts the repo keeps as it inserts (migration 0013) match the rows.
    const counts = async (q: string) =>
      (await t.request('GET', `/conversations?${q}`, { key })).body.counts as Record<
        string,
        number
      >;
    expect((await counts('')).pending).toBe(1);
    expect((await counts('label=vip')).pending).toBe(1);
    expect((await counts('label=new')).pending).toBe(1);
    expect((await counts('label=vip&q=' + encodeURIComponent(CAROL))).pending).toBe(1);
  });

  it('end completes the run at once', async () => {
    const { workflow, start, path, sentTo } = await setup();
    const wf = await workflow([{ id: 'stop', type: 'end' }, sendNotice({ id: 'never' })]);
    const run = await start(wf.id, ANN);
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect(path(run)).toEqual(['stop']);
    expect(await sentTo(ANN)).toEqual([]);
  });

  it(
    'webhook: an attempt that gets no answer within 10 s is retried',
    { timeout: 40_000 },
    async () => {
      const { clock, workflow, trigger, finish, path, stepOf, allowPrivateWebhooks } =
        await setup();
      await allowPrivateWebhooks();
      const got: number[] = [];
      const server = http.createServer((req, res) => {
        req.resume();
        got.push(clock.now());
        // The first request is never answered; the second is.
        if (got.length > 1) {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"late":false}');
        }
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      cleanups.push(() => {
        server.closeAllConnections();
        return new Promise<void>((r) => server.close(() => r()));
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
      const wf = await workflow([
        { id: 'hook', type: 'webhook', url, onError: 'gave_up' },
        { id: 'done', type: 'end' },
        { id: 'gave_up', type: 'end' },
      ]);
      const started = Date.now();
      const run = await finish((await trigger(wf.id, { phone: ANN })).body.id);
      const took = Date.now() - started;
      expect(run.status).toBe('completed');
      expect(path(run)).toEqual(['hook', 'done']);
      expect(stepOf(run, 'hook')!.output).toEqual({ late: false });
      expect(got).toHaveLength(2);
      // The unanswered attempt was given up after about 10 s, not sooner.
      expect(took).toBeGreaterThanOrEqual(9_500);
      expect(took).toBeLessThan(30_000);
    },
  );

  it('webhook: an answer over 64 KiB succeeds but is not stored as the output', async () => {
    const { clock, workflow, start, path, stepOf, allowPrivateWebhooks } = await setup();
    await allowPrivateWebhooks();
    const rx = await receiver(clock, () => ({
      status: 200,
      json: { big: 'x'.repeat(70 * 1024) },
    }));
    const wf = await workflow([
      { id: 'hook', type: 'webhook', url: rx.url },
      {
        id: 'check',
        type: 'branch',
        conditions: [{ if: { value: '{{steps.hook.big}}', op: 'exists' }, goto: 'stored' }],
        else: 'dropped',
      },
      { id: 'stored', type: 'end' },
      { id: 'dropped', type: 'end' },
    ]);
    const run = await start(wf.id, ANN);
    expect(run.status).toBe('completed');
    expect(path(run)).toEqual(['hook', 'check', 'dropped']);
    expect(stepOf(run, 'hook')!.status).toBe('completed');
    expect(JSON.stringify(stepOf(run, 'hook')!.output ?? null).length).toBeLessThan(64 * 1024);
    expect(rx.got).toHaveLength(1);
  });

  it('webhook: a loopback receiver is reached only while the workspace allows private targets', async () => {
    const { clock, workflow, trigger, finish, path, stepOf, allowPrivateWebhooks } = await setup();
    const rx = await receiver(clock, () => ({ status: 200, json: { ok: true } }));
    await allowPrivateWebhooks(true);
    const wf = await workflow([
      { id: 'hook', type: 'webhook', url: rx.url, body: { a: 1 } },
      { id: 'done', type: 'end' },
    ]);
    await allowPrivateWebhooks(false);
    const refused = await finish((await trigger(wf.id, { phone: ANN })).body.id);
    expect(refused.status).toBe('failed');
    expect(path(refused)).toEqual(['hook']);
    expect(stepOf(refused, 'hook')!.error).toMatch(/loopback|private|not allow/i);
    expect(rx.got).toEqual([]);

    await allowPrivateWebhooks(true);
    const allowed = await finish((await trigger(wf.id, { phone: ANN })).body.id);
    expect(allowed.status).toBe('completed');
    expect(path(allowed)).toEqual(['hook', 'done']);
    expect(rx.got).toHaveLength(1);
  });

  it('paces a run’s sends through the governor: one message per recipient per 6 s', async () => {
    const { clock, jobs, workflow, trigger, getRun, path, sentTo, inbound } = await setup();
    await inbound(ANN, { message: 'hi' });
    const wf = await workflow([
      sendNotice({ id: 'first' }),
      { id: 'second', type: 'send_text', text: 'And another thing' },
    ]);
    const res = await trigger(wf.id, { phone: ANN });
    await jobs.runDue();
    const held = await getRun(res.body.id);
    expect(held.status).toBe('running');
    expect(path(held)).toEqual(['first']);
    expect(await sentTo(ANN)).toHaveLength(1);

    clock.advance(6 * SECOND - 1);
    await jobs.runDue();
    expect(await sentTo(ANN)).toHaveLength(1);
    clock.advance(1);
    await jobs.runDue();
    const done = await getRun(res.body.id);
    expect(done.status).toBe('completed');
    const sent = await sentTo(ANN);
    expect(sent.map((m: Json) => m.text)).toEqual([
      'Hello Ann, your order A-1 has shipped.',
      'And another thing',
    ]);
    expect(Date.parse(sent[1].createdAt) - Date.parse(sent[0].createdAt)).toBe(6 * SECOND);
  });

  it('a waiting run’s timer survives a restart and fires once', async () => {
    const { key, clock, workflow, start } = await setup();
    const wf = await workflow([
      { id: 'w', type: 'wait', duration: 'PT1H' },
      sendNotice({ id: 's' }),
    ]);
    const run = await start(wf.id, ANN);
    expect(run.status).toBe('waiting');
    const dataDir = t.dataDir;
    await t.core.stop();
    t = await makeCore({ clock, dataDir });
    clock.advance(HOUR);
    await t.core.services.scheduler.runDue();
    await t.core.services.scheduler.runDue();
    const after = (await t.request('GET', `/workflows/runs/${run.id}`, { key })).body;
    expect(after).toMatchObject({ status: 'completed', error: null });
    expect(after.steps.map((s: RunStep) => s.stepId)).toEqual(['w', 's']);
    const msgs = (await t.request('GET', `/messages?phone=${encodeURIComponent(ANN)}`, { key }))
      .body.data;
    expect(msgs).toHaveLength(1);
  });

  it(`fails a run that loops without a wait after ${MAX_RUN_STEPS} steps`, async () => {
    const { workflow, trigger, finish, workflowEvents } = await setup();
    const wf = await workflow([
      {
        id: 'spin',
        type: 'branch',
        conditions: [{ if: { value: '{{contact.phone}}', op: 'exists' }, goto: 'spin' }],
      },
    ]);
    const res = await trigger(wf.id, { phone: ANN });
    expect(res.status).toBe(201);
    const run = await finish(res.body.id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/1,?000/);
    // It ran exactly MAX_RUN_STEPS steps, all of them the loop's branch, and no more.
    expect(run.steps).toHaveLength(MAX_RUN_STEPS);
    expect(
      (run.steps as RunStep[]).every((s) => s.stepId === 'spin' && s.status === 'completed'),
    ).toBe(true);
    const events = workflowEvents(run.id);
    expect(events.filter((e) => e === 'workflow.run.failed')).toHaveLength(1);
    expect(events.filter((e) => e === 'workflow.run.completed')).toHaveLength(0);
  });
});

describe('webhook step: one webhook-id for every attempt', () => {
  it('a receiver that fails or is cut off sees the same webhook-id with attempts 1, 2, 3, each verifiable by Standard Webhooks', async () => {
    const { clock, workflow, trigger, allowPrivateWebhooks } = await setup();
    await allowPrivateWebhooks();
    // The first call never gets an answer (the core is stopped under it), the second gets a 500,
    // the third a 200.
    const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        if (got.length === 1) return; // hangs
        res
          .writeHead(got.length === 2 ? 500 : 200, { 'content-type': 'application/json' })
          .end(got.length === 2 ? '' : '{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const wf = await workflow([
      { id: 'hook', type: 'webhook', url, body: { order: 'A-1' } },
      { id: 'done', type: 'end' },
    ]);
    const run = (await trigger(wf.id, { phone: ANN })).body;
    const first = t.core.services.scheduler.runDue();
    for (let i = 0; i < 200 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(got).toHaveLength(1);
    // Stopped while the call is out: the next start calls again.
    const dataDir = t.dataDir;
    await t.core.stop();
    await first;
    t = await makeCore({ clock, dataDir });
    const jobs = t.core.services.scheduler;
    for (let i = 0; i < 10 && got.length < 3; i++) {
      await jobs.runDue();
      const next = t.core.db
        .prepare("SELECT min(run_at) FROM jobs WHERE status = 'queued'")
        .pluck()
        .get() as number | null;
      if (next !== null) clock.set(Math.max(clock.now(), next));
    }
    await jobs.runDue();
    expect(got).toHaveLength(3);
    expect(got.map((g) => g.headers['webhook-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(got.map((g) => g.headers['webhook-id']))).toEqual(new Set([`${run.id}.0`]));
    const verifier = new Webhook(wf.secret);
    for (const g of got) {
      // The library checks the timestamp against its own clock: it reads the run's clock here.
      vi.useFakeTimers({ now: Number(g.headers['webhook-timestamp']) * 1000, toFake: ['Date'] });
      try {
        expect(verifier.verify(g.body, g.headers as Record<string, string>)).toEqual({
          order: 'A-1',
        });
      } finally {
        vi.useRealTimers();
      }
      expect(verifySignature(wf.secret, g.headers['x-parley-signature'], g.body)).not.toBeNull();
    }
    const done = (await t.request('GET', `/workflows/runs/${run.id}`, { key: t.key('test') })).body;
    expect(done.status).toBe('completed');
    expect(done.steps[0]).toMatchObject({
      stepId: 'hook',
      status: 'completed',
      output: { ok: true },
    });
  });
});
