/**
 * Drafts, versions and run outcomes (design.md §7, issue 23): a workflow saved as a draft runs
 * only by hand (the builder's test run) until activated; an active one keeps running its version
 * while edits wait beside it as a draft; activation makes the draft the next version (audited,
 * in the version history) and runs in flight finish on theirs; a version can be restored into
 * the draft. Ended runs say how: completed, timed_out, otherwise, handed_off, failed,
 * cancelled; their steps say what was sent, what the customer answered, which branch and why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Json, WorkflowKit } from './workflow-kit.ts';
import { ANN, BOB, HOUR, MINUTE, SECOND, workflowKit } from './workflow-kit.ts';

let k: WorkflowKit;
afterEach(async () => k?.t.close());

const v1Steps = [
  { id: 'ask', type: 'send_text', text: 'v1: which order?' },
  { id: 'answer', type: 'wait_for_reply', timeout: 'PT1H' },
  { id: 'done', type: 'send_text', text: 'v1: thanks for {{reply.text}}' },
];
const v2Steps = [
  { id: 'ask', type: 'send_text', text: 'v2: your order number?' },
  { id: 'answer', type: 'wait_for_reply', timeout: 'PT1H' },
  { id: 'done', type: 'send_text', text: 'v2: got {{reply.text}}' },
];
const trigger = { type: 'message_received', keywords: ['order'] };

describe('drafts and versions', () => {
  it('a draft runs only by hand until activated; activation is recorded and audited', async () => {
    k = await workflowKit();
    const wf = await k.workflow(trigger, v1Steps, { status: 'draft' });
    expect(wf).toMatchObject({ status: 'draft', draft: null, activatedAt: null, version: 1 });
    await k.inbound(ANN, 'my order');
    expect(await k.runsOf(wf.id)).toEqual([]);
    // The builder's test run: a draft runs by hand.
    const test = await k.t.request('POST', '/workflows/trigger', {
      key: k.key,
      body: { workflowId: wf.id, phone: BOB },
    });
    expect(test.status, JSON.stringify(test.body)).toBe(201);
    // Saving a draft-status workflow replaces its definition (still a draft, still no history).
    const saved = await k.t.request('PUT', `/workflows/${wf.id}/draft`, {
      key: k.key,
      body: { name: 'Order help', trigger, steps: v2Steps },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({
      status: 'draft',
      name: 'Order help',
      draft: null,
      steps: [{ text: 'v2: your order number?' }, {}, {}],
    });
    const none = await k.t.request('GET', `/workflows/${wf.id}/versions`, { key: k.key });
    expect(none.body).toEqual({ data: [] });

    k.clock.advance(MINUTE);
    const on = await k.t.request('POST', `/workflows/${wf.id}/activate`, { key: k.key });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      status: 'active',
      activatedAt: new Date(k.clock.now()).toISOString(),
    });
    const versions = await k.t.request('GET', `/workflows/${wf.id}/versions`, { key: k.key });
    expect(versions.body.data).toEqual([
      {
        version: saved.body.version,
        name: 'Order help',
        trigger,
        steps: v2Steps,
        activatedAt: new Date(k.clock.now()).toISOString(),
        activatedBy: { kind: 'api_key', id: expect.any(String), name: expect.any(String) },
      },
    ]);
    const audit = await k.t.request('GET', '/audit?action=workflow.activated', { session: 'test' });
    expect(audit.body.data).toMatchObject([
      { action: 'workflow.activated', target: { type: 'workflow', id: wf.id } },
    ]);
    await k.inbound(ANN, 'my order');
    expect((await k.runsOf(wf.id)).filter((r) => r.phone === ANN)).toHaveLength(1);
    // PATCH cannot make a workflow a draft again.
    const back = await k.t.request('PATCH', `/workflows/${wf.id}`, {
      key: k.key,
      body: { status: 'draft' },
    });
    expect(back.body.error).toMatchObject({ code: 'validation_error', param: 'status' });
  });

  it('edits of an active workflow wait as a draft; runs in flight finish on their version', async () => {
    k = await workflowKit();
    const wf = await k.workflow(trigger, v1Steps);
    await k.inbound(ANN, 'my order'); // a run on version 1, waiting for Ann's answer
    const edit = await k.t.request('PUT', `/workflows/${wf.id}/draft`, {
      key: k.key,
      body: { name: 'Flow', trigger, steps: v2Steps },
    });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({
      status: 'active',
      version: 1,
      steps: v1Steps,
      draft: { name: 'Flow', trigger, steps: v2Steps, basedOnVersion: 1 },
    });
    // Until activated, new runs start on version 1.
    await k.inbound(BOB, 'order?');
    expect((await k.runsOf(wf.id)).map((r) => r.version)).toEqual([1, 1]);
    const on = await k.t.request('POST', `/workflows/${wf.id}/activate`, { key: k.key });
    expect(on.body).toMatchObject({ status: 'active', version: 2, steps: v2Steps, draft: null });
    // Ann's run finishes on version 1; a new run starts on version 2.
    await k.inbound(ANN, 'A-1');
    await k.until(10 * SECOND);
    await k.inbound(BOB, 'B-2');
    await k.until(10 * SECOND);
    k.clock.advance(2 * HOUR);
    await k.inbound(ANN, 'another order');
    await k.until(10 * SECOND);
    expect(await k.sentTo(ANN)).toEqual([
      'v1: which order?',
      'v1: thanks for A-1',
      'v2: your order number?',
    ]);
    expect(await k.sentTo(BOB)).toEqual(['v1: which order?', 'v1: thanks for B-2']);
    expect((await k.runsOf(wf.id)).map((r) => [r.phone, r.version]).sort()).toEqual(
      [
        [ANN, 1],
        [BOB, 1],
        [ANN, 2],
      ].sort(),
    );
    const versions = (await k.t.request('GET', `/workflows/${wf.id}/versions`, { key: k.key })).body
      .data as Json[];
    expect(versions.map((v) => v.version)).toEqual([2, 1]);

    // Restore version 1 into the draft, then throw the draft away.
    const restored = await k.t.request('POST', `/workflows/${wf.id}/versions/1/restore`, {
      key: k.key,
    });
    expect(restored.body).toMatchObject({
      version: 2,
      steps: v2Steps,
      draft: { steps: v1Steps, basedOnVersion: 2 },
    });
    const missing = await k.t.request('POST', `/workflows/${wf.id}/versions/9/restore`, {
      key: k.key,
    });
    expect(missing.status).toBe(404);
    const dropped = await k.t.request('DELETE', `/workflows/${wf.id}/draft`, { key: k.key });
    expect(dropped.body).toMatchObject({ version: 2, draft: null });

    // Deactivate: paused (again: nothing changes); runs stop starting.
    const off = await k.t.request('POST', `/workflows/${wf.id}/deactivate`, { key: k.key });
    expect(off.body).toMatchObject({ status: 'paused' });
    expect(
      (await k.t.request('POST', `/workflows/${wf.id}/deactivate`, { key: k.key })).body.status,
    ).toBe('paused');
    k.clock.advance(2 * HOUR);
    const before = (await k.runsOf(wf.id)).length;
    await k.inbound(BOB, 'order again');
    expect(await k.runsOf(wf.id)).toHaveLength(before);
  });

  it('refuses a draft in plain words, naming the step’s field', async () => {
    k = await workflowKit();
    const wf = await k.workflow(trigger, v1Steps, { status: 'draft' });
    const put = (steps: unknown[]) =>
      k.t.request('PUT', `/workflows/${wf.id}/draft`, {
        key: k.key,
        body: { name: 'Flow', trigger, steps },
      });
    const cases: [unknown[], string, string][] = [
      [
        [
          { id: 'a', type: 'send_text', text: 'hi' },
          { id: 'b', type: 'send_template' },
        ],
        'steps.1.templateName',
        'Choose a template to send',
      ],
      [[{ id: 'a', type: 'wait' }], 'steps.0.duration', 'Say how long to wait'],
      [
        [{ id: 'a', type: 'wait_for_reply' }],
        'steps.0.timeout',
        'Say how long to wait for a reply',
      ],
      [[{ id: 'a', type: 'send_text' }], 'steps.0.text', 'Write the message to send'],
      [[{ id: 'a', type: 'send_list' }], 'steps.0.listId', 'Choose a list to send'],
      [[{ id: 'a', type: 'branch' }], 'steps.0.conditions', 'Add a condition to branch on'],
    ];
    for (const [steps, param, message] of cases) {
      const res = await put(steps);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', param, message });
    }
    const draftOfDraft = await k.t.request('DELETE', `/workflows/${wf.id}/draft`, { key: k.key });
    expect(draftOfDraft.status).toBe(409);
    const deactivate = await k.t.request('POST', `/workflows/${wf.id}/deactivate`, { key: k.key });
    expect(deactivate.status).toBe(409);
  });
});

describe('run outcomes and readable steps', () => {
  const BRANCHY = [
    { id: 'ask', type: 'send_text', text: 'Reply YES to confirm' },
    { id: 'answer', type: 'wait_for_reply', timeout: 'PT1M', onTimeout: 'late' },
    {
      id: 'check',
      type: 'branch',
      conditions: [{ if: { value: '{{reply.text}}', op: 'contains', equals: 'yes' }, goto: 'ok' }],
      else: 'other',
    },
    { id: 'ok', type: 'send_text', text: 'Confirmed', next: 'end' },
    { id: 'other', type: 'send_text', text: 'Not confirmed', next: 'end' },
    { id: 'late', type: 'send_text', text: 'Too late' },
    { id: 'end', type: 'end' },
  ];

  it('completed, otherwise, timed_out — with what was sent, answered, and why', async () => {
    k = await workflowKit();
    const wf = await k.workflow({ type: 'manual' }, BRANCHY);
    const start = async (phone: string) => {
      const res = await k.t.request('POST', '/workflows/trigger', {
        key: k.key,
        body: { workflowId: wf.id, phone },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    // Windows open (free text needs one).
    await k.inbound(ANN, 'hi');
    await k.inbound(BOB, 'hi');
    const yes = await start(ANN);
    const no = await start(BOB);
    await k.jobs.runDue();
    const waiting = await k.getRun(yes);
    expect(waiting.steps[1]).toMatchObject({
      stepId: 'answer',
      status: 'waiting',
      output: { timesOutAt: new Date(k.clock.now() + MINUTE).toISOString(), timeout: 'PT1M' },
    });
    await k.inbound(ANN, 'Yes please');
    await k.inbound(BOB, 'hmm, no');
    await k.until(10 * SECOND);
    const a = await k.getRun(yes);
    expect(a).toMatchObject({ status: 'completed', outcome: 'completed' });
    const steps = Object.fromEntries(a.steps.map((s: Json) => [s.stepId, s.output]));
    expect(steps.ask).toMatchObject({ outcome: 'sent', text: 'Reply YES to confirm' });
    expect(steps.answer).toMatchObject({ outcome: 'replied', reply: { text: 'Yes please' } });
    expect(steps.check).toMatchObject({
      outcome: 'matched',
      goto: 'ok',
      reason: '“Yes please” contains “yes”',
    });
    const b = await k.getRun(no);
    expect(b).toMatchObject({ status: 'completed', outcome: 'otherwise' });
    expect(b.steps.find((s: Json) => s.stepId === 'check').output).toMatchObject({
      outcome: 'otherwise',
      goto: 'other',
      value: 'hmm, no',
      reason: 'no condition held for “hmm, no”',
    });

    k.clock.advance(HOUR);
    await k.inbound(ANN, 'back');
    const late = await start(ANN);
    await k.until(5 * MINUTE);
    const c = await k.getRun(late);
    expect(c).toMatchObject({ status: 'completed', outcome: 'timed_out' });
    expect(c.steps.find((s: Json) => s.stepId === 'answer').output).toMatchObject({
      outcome: 'timed_out',
      timedOut: true,
      next: 'late',
    });
    expect(await k.sentTo(ANN)).toContain('Too late');
  });

  it('cancelled and failed', async () => {
    k = await workflowKit();
    const waits = await k.workflow({ type: 'manual' }, [
      { id: 'w', type: 'wait', duration: 'P1D' },
    ]);
    const run = await k.t.request('POST', '/workflows/trigger', {
      key: k.key,
      body: { workflowId: waits.id, phone: ANN },
    });
    await k.jobs.runDue();
    await k.t.request('POST', `/workflows/runs/${run.body.id}/cancel`, { key: k.key });
    const cancelled = await k.getRun(run.body.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', outcome: 'cancelled' });
    expect(cancelled.steps[0]).toMatchObject({ status: 'cancelled' });
    // Free text outside the 24-hour window fails.
    const fails = await k.workflow({ type: 'manual' }, [
      { id: 't', type: 'send_text', text: 'hi' },
    ]);
    const f = await k.t.request('POST', '/workflows/trigger', {
      key: k.key,
      body: { workflowId: fails.id, phone: BOB },
    });
    await k.jobs.runDue();
    expect(await k.getRun(f.body.id)).toMatchObject({ status: 'failed', outcome: 'failed' });
  });

  it('is_open_now branches on the business hours', async () => {
    // Monday 2026-01-05 10:00 UTC: open by the default hours (weekdays 09:00–17:00 UTC).
    k = await workflowKit();
    const wf = await k.workflow({ type: 'message_received' }, [
      {
        id: 'hours',
        type: 'branch',
        conditions: [{ if: { op: 'is_open_now' }, goto: 'open' }],
        else: 'closed',
      },
      { id: 'open', type: 'send_text', text: 'We are open', next: 'end' },
      { id: 'closed', type: 'send_text', text: 'We are closed' },
      { id: 'end', type: 'end' },
    ]);
    await k.inbound(ANN, 'hi');
    k.clock.set(Date.parse('2026-01-05T20:00:00Z'));
    await k.inbound(BOB, 'hi');
    expect(await k.sentTo(ANN)).toEqual(['We are open']);
    expect(await k.sentTo(BOB)).toEqual(['We are closed']);
    const [closed] = (await k.runsOf(wf.id)).filter((r) => r.phone === BOB);
    expect(closed.outcome).toBe('otherwise');
  });
});
