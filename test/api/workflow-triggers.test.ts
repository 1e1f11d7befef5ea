/**
 * Automation that listens (design.md §7, issue 23): a customer's message starts the active
 * `message_received` workflows it matches — keywords anywhere, as a whole word or as the whole
 * message, accents and case aside; first message only; outside business hours (across a
 * daylight-saving change and a holiday) — unless a person spoke in the conversation in the
 * last 24 h; a list pick starts `list_reply` ones and a status change `conversation_status`
 * ones. Each message starts a workflow's run exactly once. All on an injected clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkflowKit } from './workflow-kit.ts';
import { ANN, BOB, DAY, HOUR, MINUTE, SECOND, workflowKit } from './workflow-kit.ts';

let k: WorkflowKit;
afterEach(async () => k?.t.close());

const END = [{ id: 'done', type: 'end' }];
const received = (keywords: string[], match?: string, over: Record<string, unknown> = {}) => ({
  type: 'message_received',
  keywords,
  ...(match ? { match } : {}),
  ...over,
});

describe('message_received keywords', () => {
  it('any: anywhere in the message, accents and case aside', async () => {
    k = await workflowKit();
    const wf = await k.workflow(received(['café', 'Pedido']), END);
    for (const text of ['One CAFE please', 'mi pédido?', 'Cafés are good']) {
      await k.inbound(ANN, text);
    }
    await k.inbound(ANN, 'nothing here');
    const runs = await k.runsOf(wf.id);
    expect(runs).toHaveLength(3);
    expect(runs.map((r) => r.trigger.type)).toEqual(Array(3).fill('message_received'));
    expect(runs.every((r) => r.status === 'completed' && r.outcome === 'completed')).toBe(true);
  });

  it('whole_word: the keyword as a word, not inside one', async () => {
    k = await workflowKit();
    const wf = await k.workflow(received(['order', 'track it'], 'whole_word'), END);
    const matching = ['my ORDER!', 'Órder 42', 'please track   it now', '(order)'];
    const not = ['reorder please', 'orders', 'tracking it', 'border'];
    for (const text of [...matching, ...not]) await k.inbound(ANN, text);
    const texts = (await k.runsOf(wf.id)).map((r) => r.payload.text).sort();
    expect(texts).toEqual([...matching].sort());
  });

  it('exact: the whole message, punctuation around it aside', async () => {
    k = await workflowKit();
    const wf = await k.workflow(received(['stop', 'opt out'], 'exact'), END);
    const matching = ['STOP', ' Stop! ', 'opt  out.', 'Ópt out'];
    const not = ['stop it', 'please stop', 'opt outs'];
    for (const text of [...matching, ...not]) await k.inbound(ANN, text);
    expect((await k.runsOf(wf.id)).map((r) => r.payload.text).sort()).toEqual([...matching].sort());
  });

  it('no keywords: every message; the run reads the message as {{payload.text}} and {{reply.text}}', async () => {
    k = await workflowKit();
    const wf = await k.workflow({ type: 'message_received' }, [
      { id: 'hi', type: 'send_text', text: '{{payload.text}} / {{reply.text}}' },
    ]);
    const got = await k.inbound(ANN, 'Hello there');
    const [run] = await k.runsOf(wf.id);
    expect(run).toMatchObject({
      status: 'completed',
      outcome: 'completed',
      contactName: 'Ann',
      trigger: { type: 'message_received', event: null, messageId: got.id },
      payload: { text: 'Hello there', messageId: got.id },
    });
    expect(await k.sentTo(ANN)).toEqual(['Hello there / Hello there']);
  });

  it('refuses bad keywords in plain words, naming the field', async () => {
    k = await workflowKit();
    const post = (trigger: unknown) =>
      k.t.request('POST', '/workflows', { key: k.key, body: { name: 'F', trigger, steps: END } });
    const long = await post(received(['x'.repeat(101)]));
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({
      code: 'validation_error',
      param: 'trigger.keywords.0',
    });
    const empty = await post(received(['ok', '  ']));
    expect(empty.body.error).toMatchObject({
      param: 'trigger.keywords.1',
      message: 'A keyword cannot be empty',
    });
    const many = await post(received(Array.from({ length: 51 }, (_, i) => `k${i}`)));
    expect(many.status).toBe(400);
    expect(many.body.error.param).toBe('trigger.keywords');
  });
});

describe('conditions', () => {
  it('firstMessageOnly: only the customer’s first message in the conversation', async () => {
    k = await workflowKit();
    const wf = await k.workflow(received([], undefined, { firstMessageOnly: true }), END);
    await k.inbound(ANN, 'first');
    await k.inbound(ANN, 'second');
    // A conversation we opened with a template: the customer's first answer is their first.
    await k.t.request('POST', '/api/send', {
      key: k.key,
      body: { phone: BOB, templateName: 'order_update', variables: { '1': 'Bob', '2': 'A-1' } },
    });
    await k.inbound(BOB, 'thanks');
    await k.inbound(BOB, 'again');
    expect((await k.runsOf(wf.id)).map((r) => r.payload.text).sort()).toEqual(['first', 'thanks']);
  });

  it('outsideHours: New York hours across the March DST change and a holiday', async () => {
    // Friday 2026-03-06 16:30 EST: open.
    k = await workflowKit(Date.parse('2026-03-06T21:30:00Z'));
    const hours = await k.setHours({
      timeZone: 'America/New_York',
      days: {
        mon: [{ from: '09:00', to: '17:00' }],
        tue: [{ from: '09:00', to: '17:00' }],
        wed: [{ from: '09:00', to: '17:00' }],
        thu: [{ from: '09:00', to: '17:00' }],
        fri: [{ from: '09:00', to: '17:00' }],
      },
      holidays: ['2026-03-10'],
    });
    expect(hours).toMatchObject({ openNow: true, nextChange: '2026-03-06T22:00:00.000Z' });
    const wf = await k.workflow(received(['help'], 'whole_word', { outsideHours: true }), END);
    const at = async (iso: string, text: string) => {
      k.clock.set(Date.parse(iso));
      await k.inbound(ANN, text);
    };
    await at('2026-03-06T21:30:00Z', 'help friday open'); // 16:30 EST: open
    await at('2026-03-06T22:30:00Z', 'help friday closed'); // 17:30 EST: closed
    // Clocks went forward on Sunday 8 March: Monday 09:00 EDT is 13:00Z, not 14:00Z.
    const monday = await k.t.request('GET', '/settings/business-hours', { session: 'test' });
    expect(monday.body).toMatchObject({ openNow: false, nextChange: '2026-03-09T13:00:00.000Z' });
    await at('2026-03-09T12:30:00Z', 'help monday early'); // 08:30 EDT: closed
    await at('2026-03-09T13:30:00Z', 'help monday open'); // 09:30 EDT (08:30 EST): open
    await at('2026-03-10T15:00:00Z', 'help holiday'); // Tuesday 11:00 EDT, a holiday: closed
    await at('2026-03-11T15:00:00Z', 'help wednesday open'); // open
    expect((await k.runsOf(wf.id)).map((r) => r.payload.text).sort()).toEqual(
      ['help friday closed', 'help holiday', 'help monday early'].sort(),
    );
    // On the holiday the next change is Wednesday's opening.
    k.clock.set(Date.parse('2026-03-10T15:00:00Z'));
    const holiday = await k.t.request('GET', '/settings/business-hours', { session: 'test' });
    expect(holiday.body).toMatchObject({ openNow: false, nextChange: '2026-03-11T13:00:00.000Z' });
  });

  it('a person who replied in the last 24 h keeps the bot away; a bot reply or a note does not', async () => {
    k = await workflowKit();
    const wf = await k.workflow(received([]), END);
    await k.inbound(ANN, 'hello'); // starts (and completes)
    await k.reply(ANN, { text: 'A bot answer', as: 'bot' });
    await k.reply(ANN, { text: 'a note', private: true });
    await k.inbound(ANN, 'after the bot and a note'); // starts
    await k.reply(ANN, { text: 'Hi, Sam here' }); // an agent
    k.clock.advance(23 * HOUR);
    await k.inbound(ANN, 'within 24 h of a person'); // does not start
    k.clock.advance(1 * HOUR + MINUTE);
    await k.inbound(ANN, 'a day later'); // starts again
    expect((await k.runsOf(wf.id)).map((r) => r.payload.text).sort()).toEqual(
      ['a day later', 'after the bot and a note', 'hello'].sort(),
    );
  });

  it('one active run per contact per workflow: a message while the run waits resumes it instead', async () => {
    k = await workflowKit();
    const wf = await k.workflow(received(['order']), [
      { id: 'ask', type: 'send_text', text: 'Which order?' },
      { id: 'wait', type: 'wait_for_reply', timeout: 'PT1H' },
      { id: 'ok', type: 'send_text', text: 'Looking up {{reply.text}}' },
    ]);
    await k.inbound(ANN, 'my order');
    await k.inbound(ANN, 'order A-7');
    await k.until(10 * SECOND); // one message per recipient per 6 s
    const runs = await k.runsOf(wf.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'completed', outcome: 'completed' });
    expect(await k.sentTo(ANN)).toEqual(['Which order?', 'Looking up order A-7']);
  });
});

describe('exactly once per message', () => {
  it('the same channel message delivered twice starts one run; every run names its message', async () => {
    k = await workflowKit();
    const wf = await k.workflow(received(['hi']), END);
    const other = await k.workflow(received(['hi'], 'whole_word'), END);
    const msg = {
      phone: ANN,
      text: 'hi there',
      type: 'text' as const,
      receivedAt: k.clock.now(),
      channelMessageId: 'wamid.ONE',
    };
    const first = k.t.core.services.messages.receive(k.scope, msg);
    const again = k.t.core.services.messages.receive(k.scope, msg);
    expect(first).not.toBeNull();
    expect(again).toBeNull();
    await k.jobs.runDue();
    for (const w of [wf, other]) {
      const runs = await k.runsOf(w.id);
      expect(runs.map((r) => r.trigger.messageId)).toEqual([first!.id]);
    }
    // The store refuses a second run of a workflow for the same message.
    const db = k.t.core.services.db;
    expect(() =>
      db
        .prepare(
          `INSERT INTO workflow_runs (id, workflow_id, version, workspace_id, environment, contact_id,
             status, context, trigger, trigger_message_id, created_at, updated_at)
           SELECT 'run_x', workflow_id, version, workspace_id, environment, contact_id, 'completed',
             context, trigger, trigger_message_id, created_at, updated_at FROM workflow_runs
           WHERE workflow_id = ?`,
        )
        .run(wf.id),
    ).toThrow(/UNIQUE/);
  });

  it('draft, paused and event workflows never start on a message', async () => {
    k = await workflowKit();
    const draft = await k.workflow(received([]), END, { status: 'draft' });
    const paused = await k.workflow(received([]), END, { status: 'paused' });
    const byEvent = await k.workflow({ type: 'event', event: 'order.shipped' }, END);
    await k.inbound(ANN, 'hello');
    for (const w of [draft, paused, byEvent]) expect(await k.runsOf(w.id)).toEqual([]);
    // Activated, the draft listens from the next message on.
    expect(
      (await k.t.request('POST', `/workflows/${draft.id}/activate`, { key: k.key })).status,
    ).toBe(200);
    await k.inbound(ANN, 'again');
    expect((await k.runsOf(draft.id)).map((r) => r.payload.text)).toEqual(['again']);
  });
});

describe('list_reply and conversation_status', () => {
  it('a pick from the list starts list_reply workflows of that list only', async () => {
    k = await workflowKit();
    const list = async (name: string) =>
      (
        await k.t.request('POST', '/interactive-lists', {
          key: k.key,
          body: {
            name,
            body: 'Pick one',
            buttonText: 'Choose',
            sections: [{ title: 'Help', rows: [{ id: 'billing', title: 'Billing' }] }],
          },
        })
      ).body.id as string;
    const menu = await list('Menu');
    const other = await list('Other');
    const wf = await k.workflow({ type: 'list_reply', listId: menu }, [
      { id: 'ok', type: 'send_text', text: 'You picked {{reply.listReply.title}}' },
    ]);
    await k.inbound(ANN, { listReply: { listId: other, rowId: 'billing' } });
    await k.inbound(ANN, 'plain text');
    expect(await k.runsOf(wf.id)).toEqual([]);
    await k.inbound(ANN, { listReply: { listId: menu, rowId: 'billing' } });
    const runs = await k.runsOf(wf.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: { type: 'list_reply' }, outcome: 'completed' });
    expect(await k.sentTo(ANN)).toEqual(['You picked Billing']);
    // A list of another scope is refused at save, naming the field.
    const bad = await k.t.request('POST', '/workflows', {
      key: k.key,
      body: { name: 'F', trigger: { type: 'list_reply', listId: 'lst_nope' }, steps: END },
    });
    expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'trigger.listId' });
  });

  it('resolving or reopening a conversation starts conversation_status workflows', async () => {
    k = await workflowKit();
    const resolved = await k.workflow({ type: 'conversation_status', to: 'resolved' }, [
      { id: 'survey', type: 'send_text', text: 'How did we do?' },
    ]);
    const reopened = await k.workflow({ type: 'conversation_status', to: 'open' }, END);
    await k.inbound(ANN, 'hello');
    const c = await k.conversationOf(ANN);
    await k.reply(ANN, { text: 'Fixed!' });
    const patch = await k.t.request('PATCH', `/conversations/${c.id}`, {
      key: k.key,
      body: { status: 'resolved' },
    });
    expect(patch.status).toBe(200);
    await k.until(10 * SECOND); // one message per recipient per 6 s
    expect((await k.runsOf(resolved.id)).map((r) => r.payload)).toEqual([
      { conversationId: c.id, from: 'open', to: 'resolved' },
    ]);
    expect(await k.sentTo(ANN)).toEqual(['Fixed!', 'How did we do?']);
    // The customer writes again: the conversation reopens.
    k.clock.advance(DAY);
    await k.inbound(ANN, 'one more thing');
    expect((await k.runsOf(reopened.id)).map((r) => r.payload.to)).toEqual(['open']);
  });
});
