import { describe, expect, it } from 'vitest';
import { RUN_OUTCOMES } from '../../shared/workflow-rules.ts';
import { formatClock, formatDayTime } from '../../renderer/src/components/format.ts';
import {
  fieldLabel,
  outcomeText,
  RUN_STATE_LOOKS,
  runContact,
  runPath,
  runState,
  spanText,
  stepResult,
  stepTimesOutAt,
  timesOutText,
  triggerWords,
  waitingText,
  type RunState,
  type RunStepLike,
} from '../../renderer/src/screens/workflows/run-format.ts';

const T0 = Date.parse('2026-11-26T14:02:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const step = (over: Partial<RunStepLike> & Pick<RunStepLike, 'type'>): RunStepLike => ({
  stepId: over.type,
  status: 'completed',
  startedAt: iso(T0),
  endedAt: iso(T0 + 60_000),
  output: null,
  error: null,
  ...over,
});

describe('run outcomes', () => {
  it('gives each outcome its own words and colour, and a timed-out wait is not a green Done', () => {
    const states: RunState[] = [...RUN_OUTCOMES];
    const labels = states.map((s) => RUN_STATE_LOOKS[s].label);
    const tones = states.map((s) => RUN_STATE_LOOKS[s].tone);
    expect(new Set(labels).size).toBe(states.length);
    expect(new Set(tones).size).toBe(states.length);
    expect(RUN_STATE_LOOKS.timed_out.label).toBe('Timed out');
    expect(RUN_STATE_LOOKS.timed_out.tone).not.toBe(RUN_STATE_LOOKS.completed.tone);
    expect(RUN_STATE_LOOKS.handed_off.label).toBe('Handed off');
  });

  it('reads the outcome first, the status while the run is in flight, and copes with older runs', () => {
    expect(runState({ status: 'completed', outcome: 'timed_out' })).toBe('timed_out');
    expect(runState({ status: 'completed', outcome: 'otherwise' })).toBe('otherwise');
    expect(runState({ status: 'handed_off', outcome: 'handed_off' })).toBe('handed_off');
    expect(runState({ status: 'waiting', outcome: null })).toBe('waiting');
    expect(runState({ status: 'running' })).toBe('running');
    expect(runState({ status: 'completed' })).toBe('completed');
    expect(runState({ status: 'cancelled', outcome: null })).toBe('cancelled');
  });

  it('says a timed-out run as "no reply in 1 min", from the wait that timed out', () => {
    const steps = [
      step({ type: 'send_text', output: { outcome: 'sent', text: 'Hi!' } }),
      step({
        type: 'wait_for_reply',
        output: { outcome: 'timed_out', timeout: 'PT1M' },
      }),
    ];
    expect(outcomeText({ status: 'completed', outcome: 'timed_out' }, steps)).toBe(
      'Timed out — no reply in 1 min',
    );
    expect(outcomeText({ status: 'completed', outcome: 'timed_out' })).toBe(
      'Timed out — no reply in time',
    );
  });

  it('says why a run fell through, failed or was handed off', () => {
    const branch = step({
      type: 'branch',
      output: {
        outcome: 'otherwise',
        matched: null,
        goto: null,
        value: 'maybe',
        reason: 'no condition held for “maybe”',
      },
    });
    expect(outcomeText({ status: 'completed', outcome: 'otherwise' }, [branch])).toBe(
      'Otherwise — no condition held for “maybe”',
    );
    expect(outcomeText({ status: 'failed', outcome: 'failed', error: 'list_not_found' })).toBe(
      'Failed — list_not_found',
    );
    expect(outcomeText({ status: 'handed_off', outcome: 'handed_off' })).toBe(
      'Handed off — a person took over',
    );
    expect(outcomeText({ status: 'completed', outcome: 'completed' })).toBe('Completed');
  });

  it('names a run by its contact, else the phone', () => {
    expect(runContact({ phone: '+14155550100', contactName: 'Dana Cart' })).toBe('Dana Cart');
    expect(runContact({ phone: '+14155550100', contactName: null })).toBe('+14155550100');
    expect(runContact({ phone: '+14155550100', contactName: '  ' })).toBe('+14155550100');
  });
});

describe('time-outs', () => {
  it('says when a waiting step times out, at a clock time and how far off', () => {
    const at = T0 + 3 * 60_000;
    expect(timesOutText(iso(at), T0)).toBe(`times out at ${formatClock(new Date(at))}, in 3 min`);
    expect(timesOutText(iso(at), at - 2 * 60_000 - 10_000)).toBe(
      `times out at ${formatClock(new Date(at))}, in 3 min`,
    );
    expect(timesOutText(iso(at), at - 59_500)).toBe(
      `times out at ${formatClock(new Date(at))}, in 1 min`,
    );
    expect(timesOutText(iso(at), at - 42_000)).toBe(
      `times out at ${formatClock(new Date(at))}, in 42 s`,
    );
    expect(timesOutText(iso(at), at)).toBe('timing out now');
  });

  it('names the day of a time-out that is not today', () => {
    const at = T0 + 3 * 24 * 3600_000;
    expect(timesOutText(iso(at), T0)).toBe(
      `times out on ${formatDayTime(new Date(at))}, in 3 days`,
    );
  });

  it('says what a waiting step waits for', () => {
    const at = T0 + 3 * 60_000;
    expect(waitingText('wait_for_reply', iso(at), T0)).toBe(
      `waiting for a reply — times out at ${formatClock(new Date(at))}, in 3 min`,
    );
    expect(waitingText('wait_for_reply', null, T0)).toBe('waiting for a reply');
    expect(waitingText('wait', iso(at), T0)).toBe(
      `waiting until ${formatClock(new Date(at))}, in 3 min`,
    );
  });

  it('puts spans in words', () => {
    expect(spanText(45_000)).toBe('45 s');
    expect(spanText(60_000)).toBe('1 min');
    expect(spanText(80 * 60_000)).toBe('1 h 20 min');
    expect(spanText(2 * 3600_000)).toBe('2 h');
    expect(spanText(3 * 24 * 3600_000)).toBe('3 days');
  });
});

describe('the run on the canvas', () => {
  it('passes the steps the run went through, and where it is while in flight', () => {
    const steps = [
      { stepId: 'hello' },
      { stepId: 'wait' },
      { stepId: 'branch' },
      { stepId: 'wait' },
    ];
    expect(runPath({ status: 'waiting', currentStepId: 'wait', steps })).toEqual({
      stepIds: ['hello', 'wait', 'branch'],
      current: 'wait',
    });
    expect(runPath({ status: 'completed', currentStepId: null, steps })).toEqual({
      stepIds: ['hello', 'wait', 'branch'],
    });
  });

  it('says what started a run', () => {
    expect(triggerWords({ type: 'message_received' })).toBe('by the customer’s message');
    expect(triggerWords({ type: 'event', event: 'cart.abandoned' })).toBe(
      'by the event cart.abandoned',
    );
    expect(triggerWords({ type: 'manual' })).toBe('by hand');
  });
});

/** A step's result as label → value, as the timeline shows it. */
const fieldsOf = (s: RunStepLike) =>
  Object.fromEntries(stepResult(s).fields.map((f) => [f.label, f.value]));

describe('step results in words', () => {
  it('says what a send step sent: the text, the template, the list and its choices', () => {
    expect(
      fieldsOf(
        step({ type: 'send_text', output: { outcome: 'sent', messageId: 'm1', text: 'Hi Dana!' } }),
      ),
    ).toEqual({ Sent: 'Hi Dana!' });
    const template = step({
      type: 'send_template',
      output: {
        outcome: 'sent',
        messageId: 'm2',
        text: 'Your order shipped',
        templateName: 'shipped',
      },
    });
    expect(fieldsOf(template)).toEqual({ Template: 'shipped', Sent: 'Your order shipped' });
    expect(stepResult(template).outcome).toMatchObject({ key: 'sent', label: 'Sent' });
    expect(stepResult(template).fields.find((f) => f.key === 'sent')?.quoted).toBe(true);
    expect(
      fieldsOf(
        step({
          type: 'send_list',
          output: {
            outcome: 'sent',
            messageId: 'm3',
            text: 'Pick one',
            listId: 'l1',
            listName: 'Order help',
            rows: [
              { id: 'track', title: 'Track my order' },
              { id: 'return', title: 'Return an item' },
            ],
          },
        }),
      ),
    ).toEqual({
      List: 'Order help',
      Sent: 'Pick one',
      Choices: 'Track my order · Return an item',
    });
  });

  it('says what the customer answered, picked, or that nothing came in time', () => {
    const waited = { timesOutAt: iso(T0 + 60_000), timeout: 'PT1M' };
    expect(
      fieldsOf(
        step({
          type: 'wait_for_reply',
          output: { ...waited, outcome: 'replied', reply: { text: 'yes please' } },
        }),
      ),
    ).toEqual({ 'Customer answered': 'yes please' });
    expect(
      fieldsOf(
        step({
          type: 'wait_for_reply',
          output: {
            ...waited,
            outcome: 'replied',
            reply: {
              text: 'Track my order',
              listReply: { listId: 'l1', rowId: 'track', title: 'Track my order' },
            },
          },
        }),
      ),
    ).toEqual({ 'Customer picked': 'Track my order' });
    const timedOut = step({
      type: 'wait_for_reply',
      output: { ...waited, outcome: 'timed_out', timedOut: true, next: 'nudge' },
    });
    expect(fieldsOf(timedOut)).toEqual({
      'Customer answered': 'nothing in 1 min',
      Then: 'took the timeout path to nudge',
    });
    expect(stepResult(timedOut).outcome).toMatchObject({ label: 'Timed out', tone: 'timeout' });
    expect(
      fieldsOf(
        step({
          type: 'wait_for_reply',
          output: { ...waited, outcome: 'timed_out', timedOut: true, next: null },
        }),
      ),
    ).toEqual({ 'Customer answered': 'nothing in 1 min', Then: 'the run ended there' });
  });

  it('says which branch a run took and why', () => {
    const matched = step({
      type: 'branch',
      output: {
        outcome: 'matched',
        condition: 0,
        value: 'yes please',
        matched: 'thanks',
        goto: 'thanks',
        reason: '“yes please” contains “yes”',
      },
    });
    expect(fieldsOf(matched)).toEqual({
      'Branch taken': 'Condition 1 — went on to thanks',
      Why: '“yes please” contains “yes”',
    });
    expect(stepResult(matched).outcome).toMatchObject({ label: 'Matched', tone: 'success' });
    const otherwise = step({
      type: 'branch',
      output: { outcome: 'otherwise', matched: null, goto: null, reason: 'no condition held' },
    });
    expect(fieldsOf(otherwise)).toEqual({
      'Branch taken': 'Otherwise — the run ended there',
      Why: 'no condition held',
    });
    expect(stepResult(otherwise).outcome).toMatchObject({ label: 'Otherwise', tone: 'otherwise' });
  });

  it('says what a webhook answered, and who a conversation went to', () => {
    expect(fieldsOf(step({ type: 'webhook', output: { status: 204 } }))).toEqual({
      'Your server answered': 'HTTP 204',
    });
    expect(fieldsOf(step({ type: 'webhook', output: { status: 200, text: 'accepted' } }))).toEqual({
      'Your server answered': 'HTTP 200',
      'Its answer': 'accepted',
    });
    expect(fieldsOf(step({ type: 'webhook', output: { orderId: 'A-17', paid: true } }))).toEqual({
      'Your server answered': 'Order id: A-17 · Paid: true',
    });
    expect(
      fieldsOf(
        step({
          type: 'update_conversation',
          output: {
            conversationId: 'c1',
            status: 'pending',
            assignee: 'mem_1',
            assigneeName: 'Ann Lee',
            addedLabels: ['vip', 'order'],
          },
        }),
      ),
    ).toEqual({
      'Status set to': 'pending',
      'Assigned to': 'Ann Lee',
      'Labels added': 'vip, order',
    });
    const assigned = step({
      type: 'assign',
      output: {
        outcome: 'handed_off',
        conversationId: 'c1',
        assignee: 'mem_1',
        assigneeName: 'Ann Lee',
      },
    });
    expect(fieldsOf(assigned)).toEqual({ 'Handed to': 'Ann Lee' });
    expect(stepResult(assigned).outcome).toMatchObject({ label: 'Handed off', tone: 'handoff' });
  });

  it('says a waiting step was stopped by a handoff, and when a waiting step moves on', () => {
    const stopped = step({
      type: 'wait_for_reply',
      status: 'cancelled',
      output: { timesOutAt: iso(T0 + 60_000), timeout: 'PT1M', outcome: 'handed_off' },
    });
    expect(fieldsOf(stopped)).toEqual({ Stopped: 'a person took the conversation over here' });
    const waiting = step({
      type: 'wait_for_reply',
      status: 'waiting',
      endedAt: null,
      output: { timesOutAt: iso(T0 + 60_000), timeout: 'PT1M' },
    });
    expect(stepTimesOutAt(waiting)).toBe(iso(T0 + 60_000));
    expect(fieldsOf(waiting)).toEqual({ 'Waits up to': '1 min' });
    expect(stepResult(waiting).outcome).toBeNull();
    expect(
      stepTimesOutAt(
        step({ type: 'wait', status: 'waiting', endedAt: null, output: { resumesAt: iso(T0) } }),
      ),
    ).toBe(iso(T0));
  });

  it('never shows JSON: an unknown step’s fields by name, in words', () => {
    expect(
      fieldsOf(step({ type: 'future_step', output: { cartId: 'C-1', items: [1, 2] } })),
    ).toEqual({ 'Cart id': 'C-1', Items: '1, 2' });
    expect(fieldLabel('listReply.rowId')).toBe('List reply row id');
  });
});
