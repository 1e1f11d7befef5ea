/**
 * Handoff (design.md §7, issue 23): a person's reply in the conversation, or a person's
 * assignment of it to a member, ends the contact's running and waiting runs as `handed_off`
 * in the same transaction; the `assign` step hands over on purpose. A step due while a person
 * takes over either ran before (its message sent first) or never runs. The inbox sees the run
 * talking to its customer on GET /conversations/:id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Json, WorkflowKit } from './workflow-kit.ts';
import { ANN, BOB, MINUTE, SECOND, workflowKit } from './workflow-kit.ts';

let k: WorkflowKit;
afterEach(async () => k?.t.close());

/** Greets, waits for an answer (1 h), then thanks. */
const ASK = [
  { id: 'ask', type: 'send_text', text: 'What is your order number?' },
  { id: 'answer', type: 'wait_for_reply', timeout: 'PT1H' },
  { id: 'thanks', type: 'send_text', text: 'Thanks, looking up {{reply.text}}' },
];

describe('a person takes over', () => {
  it('an agent’s reply ends the contact’s waiting runs as handed_off, the waiting step cancelled', async () => {
    k = await workflowKit();
    const wf = await k.workflow({ type: 'message_received', keywords: ['order'] }, ASK);
    const other = await k.workflow({ type: 'message_received' }, [
      { id: 'pause', type: 'wait', duration: 'P1D' },
    ]);
    await k.inbound(ANN, 'where is my order?');
    const [run] = await k.runsOf(wf.id);
    expect(run).toMatchObject({ status: 'waiting', outcome: null });
    const conversation = await k.conversationOf(ANN);
    expect(conversation.activeRun).toMatchObject({ workflowId: expect.any(String) });
    expect([wf.id, other.id]).toContain(conversation.activeRun.workflowId);

    await k.reply(ANN, { text: 'Hi, Sam here — let me check.' });
    for (const w of [wf, other]) {
      const [r] = await k.runsOf(w.id);
      expect(r).toMatchObject({ status: 'handed_off', outcome: 'handed_off' });
      expect(r.endedAt).not.toBeNull();
    }
    const detail = await k.getRun(run.id);
    expect(detail.steps.map((s: Json) => [s.stepId, s.status, s.output?.outcome])).toEqual([
      ['ask', 'completed', 'sent'],
      ['answer', 'cancelled', 'handed_off'],
    ]);
    expect((await k.conversationOf(ANN)).activeRun).toBeNull();
    const handed = k.eventsOf('workflow.run.handed_off');
    expect(handed).toHaveLength(2);
    expect(handed[0]).toMatchObject({
      reason: 'agent_reply',
      conversationId: conversation.id,
      run: { status: 'handed_off', outcome: 'handed_off', contactName: 'Ann' },
    });
    // The customer's answer resumes nothing and starts nothing (a person replied today).
    await k.inbound(ANN, 'A-7, my order');
    await k.until(10 * SECOND);
    expect(await k.runsOf(wf.id)).toHaveLength(1);
    expect(await k.sentTo(ANN)).toEqual([
      'What is your order number?',
      'Hi, Sam here — let me check.',
    ]);
  });

  it('a bot reply and a private note do not hand over', async () => {
    k = await workflowKit();
    const wf = await k.workflow({ type: 'message_received' }, ASK);
    await k.inbound(ANN, 'hello');
    await k.reply(ANN, { text: 'note to self', private: true });
    await k.until(10 * SECOND);
    await k.reply(ANN, { text: 'An automatic answer', as: 'bot' });
    expect((await k.runsOf(wf.id))[0]).toMatchObject({ status: 'waiting' });
  });

  it('a person assigning the conversation to a member hands over; auto-assignment and a workflow’s own change do not', async () => {
    k = await workflowKit();
    const sam = await k.t.member({ name: 'Sam', role: 'agent' });
    const wf = await k.workflow({ type: 'message_received' }, ASK);
    await k.inbound(ANN, 'hello');
    const c = await k.conversationOf(ANN);
    // Unassigning (null) is no take-over.
    await k.t.request('PATCH', `/conversations/${c.id}`, { key: k.key, body: { assignee: null } });
    expect((await k.runsOf(wf.id))[0]).toMatchObject({ status: 'waiting' });
    // "Take over": the member assigns it to themself.
    const take = await k.t.request('PATCH', `/conversations/${c.id}`, {
      cookie: sam.cookie,
      headers: { 'x-parley-environment': 'test' },
      body: { assignee: 'me' },
    });
    expect(take.status, JSON.stringify(take.body)).toBe(200);
    expect(take.body.assignee).toBe(sam.id);
    const [run] = await k.runsOf(wf.id);
    expect(run).toMatchObject({ status: 'handed_off', outcome: 'handed_off' });
    expect(k.eventsOf('workflow.run.handed_off')[0]).toMatchObject({
      reason: 'assigned',
      by: sam.id,
    });

    // Auto-assignment (a customer's message, an agent online) hands nothing over.
    await k.t.request('PATCH', '/api/workspace/settings', {
      session: 'test',
      body: { autoAssign: true },
    });
    k.online(sam.id, 'Sam');
    await k.inbound(BOB, 'hello');
    expect((await k.conversationOf(BOB)).assignee).toBe(sam.id);
    const bobRuns = (await k.runsOf(wf.id)).filter((r) => r.phone === BOB);
    expect(bobRuns).toMatchObject([{ status: 'waiting' }]);
  });

  it('Take over on a conversation already assigned to the member still hands over', async () => {
    k = await workflowKit();
    const sam = await k.t.member({ name: 'Sam', role: 'agent' });
    const wf = await k.workflow({ type: 'message_received' }, ASK);
    await k.inbound(ANN, 'hello');
    const c = await k.conversationOf(ANN);
    // Assigned by a workflow of its own (no person): the run goes on.
    k.t.core.services.db.transaction(() =>
      k.t.core.services.conversations.applyForRunner(
        k.scope,
        k.t.core.services.contacts.find(k.scope, c.contact.id)!,
        { assignee: sam.id },
      ),
    )();
    expect((await k.runsOf(wf.id))[0]).toMatchObject({ status: 'waiting' });
    await k.t.request('PATCH', `/conversations/${c.id}`, {
      cookie: sam.cookie,
      headers: { 'x-parley-environment': 'test' },
      body: { assignee: 'me' },
    });
    expect((await k.runsOf(wf.id))[0]).toMatchObject({ status: 'handed_off' });
  });
});

describe('races: a step due while a person takes over', () => {
  const FOLLOW_UP = [
    { id: 'hi', type: 'send_text', text: 'Hi!' },
    { id: 'pause', type: 'wait', duration: 'PT1M' },
    { id: 'nudge', type: 'send_text', text: 'Still there?' },
    { id: 'pause2', type: 'wait', duration: 'PT1H' },
  ];

  it('the reply commits first: the due step never happens', async () => {
    k = await workflowKit();
    const wf = await k.workflow({ type: 'message_received' }, FOLLOW_UP);
    await k.inbound(ANN, 'hello');
    // The wait is over and its job is due, but the agent's reply commits before it runs.
    k.clock.advance(2 * MINUTE);
    await k.reply(ANN, { text: 'Sam here.' });
    await k.until(2 * MINUTE);
    const [run] = await k.runsOf(wf.id);
    expect(run).toMatchObject({ status: 'handed_off', outcome: 'handed_off' });
    expect(await k.sentTo(ANN)).toEqual(['Hi!', 'Sam here.']);
    const steps = (await k.getRun(run.id)).steps.map((s: Json) => [s.stepId, s.status]);
    expect(steps).toEqual([
      ['hi', 'completed'],
      ['pause', 'cancelled'],
    ]);
  });

  it('the step commits first: its message is sent, then the reply hands over', async () => {
    k = await workflowKit();
    const wf = await k.workflow({ type: 'message_received' }, FOLLOW_UP);
    await k.inbound(ANN, 'hello');
    k.clock.advance(2 * MINUTE);
    await k.jobs.runDue(); // the due step runs first
    await k.reply(ANN, { text: 'Sam here.' });
    await k.until(2 * MINUTE);
    const [run] = await k.runsOf(wf.id);
    expect(run).toMatchObject({ status: 'handed_off' });
    expect(await k.sentTo(ANN)).toEqual(['Hi!', 'Still there?', 'Sam here.']);
    const steps = (await k.getRun(run.id)).steps.map((s: Json) => [s.stepId, s.status]);
    expect(steps).toEqual([
      ['hi', 'completed'],
      ['pause', 'completed'],
      ['nudge', 'completed'],
      ['pause2', 'cancelled'],
    ]);
  });

  it('a send held by the pair rate never goes once a person took over', async () => {
    k = await workflowKit();
    const wf = await k.workflow({ type: 'message_received' }, [
      { id: 'one', type: 'send_text', text: 'One' },
      { id: 'two', type: 'send_text', text: 'Two' },
    ]);
    await k.inbound(ANN, 'hello');
    // "Two" waits for the pair rate (6 s); the agent replies meanwhile.
    expect((await k.runsOf(wf.id))[0]).toMatchObject({ status: 'running' });
    k.clock.advance(7 * SECOND);
    await k.reply(ANN, { text: 'Sam here.' });
    await k.until(MINUTE);
    expect((await k.runsOf(wf.id))[0]).toMatchObject({ status: 'handed_off' });
    expect(await k.sentTo(ANN)).toEqual(['One', 'Sam here.']);
  });
});

describe('the assign step', () => {
  it('gives the conversation to a member and ends the run (and the contact’s other runs) as handed_off', async () => {
    k = await workflowKit();
    const sam = await k.t.member({ name: 'Sam', role: 'agent' });
    const waiting = await k.workflow({ type: 'message_received', keywords: ['hello'] }, [
      { id: 'pause', type: 'wait', duration: 'P1D' },
    ]);
    const wf = await k.workflow({ type: 'message_received', keywords: ['human'] }, [
      { id: 'sorry', type: 'send_text', text: 'Passing you to a person.' },
      { id: 'person', type: 'assign', to: sam.id },
      { id: 'never', type: 'send_text', text: 'never sent' },
    ]);
    await k.inbound(ANN, 'hello');
    await k.inbound(ANN, 'a human please');
    await k.until(10 * SECOND);
    const [run] = await k.runsOf(wf.id);
    expect(run).toMatchObject({ status: 'handed_off', outcome: 'handed_off' });
    const detail = await k.getRun(run.id);
    expect(detail.steps.at(-1)).toMatchObject({
      stepId: 'person',
      status: 'completed',
      output: { outcome: 'handed_off', assignee: sam.id, assigneeName: 'Sam' },
    });
    expect((await k.conversationOf(ANN)).assignee).toBe(sam.id);
    // The contact's other run (waiting a day) was handed over too.
    expect((await k.runsOf(waiting.id))[0]).toMatchObject({ status: 'handed_off' });
    expect(await k.sentTo(ANN)).not.toContain('never sent');
    expect(k.eventsOf('workflow.run.handed_off').map((e) => e.reason)).toContain('assign_step');
    // The bot keeps quiet for a day.
    await k.inbound(ANN, 'a human please');
    expect(await k.runsOf(wf.id)).toHaveLength(1);
  });

  it('round robin picks the next online agent with room, or leaves it for the team', async () => {
    k = await workflowKit();
    const sam = await k.t.member({ name: 'Sam', role: 'agent' });
    const wf = await k.workflow({ type: 'message_received' }, [
      { id: 'person', type: 'assign', to: 'round_robin' },
    ]);
    await k.inbound(ANN, 'hello');
    const [nobody] = await k.runsOf(wf.id);
    expect(nobody).toMatchObject({ status: 'handed_off' });
    expect((await k.getRun(nobody.id)).steps[0].output).toMatchObject({
      assignee: null,
      assigneeName: null,
    });
    k.online(sam.id, 'Sam');
    await k.inbound(BOB, 'hello');
    expect((await k.conversationOf(BOB)).assignee).toBe(sam.id);
  });

  it('refuses a member of another workspace at save, in plain words', async () => {
    k = await workflowKit();
    const res = await k.t.request('POST', '/workflows', {
      key: k.key,
      body: {
        name: 'F',
        trigger: { type: 'manual' },
        steps: [{ id: 'p', type: 'assign', to: 'mem_nope' }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'steps.0.to' });
    const missing = await k.t.request('POST', '/workflows', {
      key: k.key,
      body: { name: 'F', trigger: { type: 'manual' }, steps: [{ id: 'p', type: 'assign' }] },
    });
    expect(missing.body.error).toMatchObject({
      param: 'steps.0.to',
      message: 'Choose who takes the conversation over',
    });
  });
});
