/**
 * Workflows' rules live once in shared/workflow-rules.ts: the core refuses a definition with them
 * (400 naming `steps.N.field`) and a builder shows the same problems as they are made.
 */
import { describe, expect, it } from 'vitest';
import type {
  BranchOp,
  RunContext,
  StepDefinition,
  WorkflowDefinition,
} from '../../shared/workflow-rules.ts';
import {
  BRANCH_OPS,
  conditionHolds,
  followingStep,
  MAX_DURATION_MS,
  MAX_RUN_STEPS,
  MAX_STEPS,
  parseDuration,
  refProblem,
  renderTemplateString,
  STEP_TYPES,
  templateRefs,
  workflowProblems,
} from '../../shared/workflow-rules.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('constants', () => {
  it('names every step type, operator and limit of the contract', () => {
    expect([...STEP_TYPES]).toEqual([
      'send_template',
      'send_text',
      'send_list',
      'wait',
      'wait_for_reply',
      'branch',
      'webhook',
      'update_conversation',
      'assign',
      'end',
    ]);
    expect([...BRANCH_OPS]).toEqual([
      'eq',
      'ne',
      'gt',
      'gte',
      'lt',
      'lte',
      'contains',
      'exists',
      'is_open_now',
    ]);
    expect(MAX_RUN_STEPS).toBe(1000);
    expect(MAX_DURATION_MS).toBe(90 * DAY);
  });
});

describe('parseDuration', () => {
  const table: [string, number | null][] = [
    ['PT2S', 2 * SECOND],
    ['PT15M', 15 * MINUTE],
    ['P1D', DAY],
    ['PT1H', HOUR],
    ['P1DT2H', DAY + 2 * HOUR],
    ['PT1H30M', HOUR + 30 * MINUTE],
    ['PT1H2M3S', HOUR + 2 * MINUTE + 3 * SECOND],
    ['P2W', 14 * DAY],
    ['P1W2D', 9 * DAY],
    ['P1W2DT3H4M5S', 9 * DAY + 3 * HOUR + 4 * MINUTE + 5 * SECOND],
    ['PT1.5S', 1500],
    ['PT0.25S', 250],
    ['PT90M', 90 * MINUTE],
    ['P90D', 90 * DAY],
    ['P0D', 0],
    ['PT0S', 0],
    // Not durations.
    ['P', null],
    ['PT', null],
    ['P1DT', null],
    ['', null],
    ['2S', null],
    ['T2S', null],
    ['pt2s', null],
    ['PT2s', null],
    ['PT-1S', null],
    ['PT+1S', null],
    [' PT2S', null],
    ['PT2S ', null],
    ['PT1S2M', null],
    ['P1D1W', null],
    ['PT1.5M', null],
    ['PT.5S', null],
    ['P1.5D', null],
    ['2 minutes', null],
    ['15m', null],
    // Years and months vary in length: refused.
    ['P1Y', null],
    ['P1M', null],
    ['P1Y2M3D', null],
  ];
  it.each(table)('%j → %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('conditionHolds', () => {
  const table: [string, BranchOp, string | number | boolean | null | undefined, boolean][] = [
    // eq: numbers compare as numbers when both sides are numeric, else exact strings.
    ['42', 'eq', 42, true],
    ['42', 'eq', '42', true],
    ['42.0', 'eq', 42, true],
    [' 42 ', 'eq', '42', true],
    ['1e3', 'eq', 1000, true],
    ['41', 'eq', 42, false],
    ['gold', 'eq', 'gold', true],
    ['gold', 'eq', 'Gold', false],
    ['gold', 'eq', 'gold ', false],
    ['true', 'eq', true, true],
    ['false', 'eq', false, true],
    ['', 'eq', null, true],
    ['', 'eq', undefined, true],
    ['', 'eq', '', true],
    ['', 'eq', 0, false],
    ['0', 'eq', '', false],
    ['null', 'eq', null, false],
    // ne
    ['42', 'ne', 42, false],
    ['42', 'ne', '42.00', false],
    ['42', 'ne', 43, true],
    ['gold', 'ne', 'silver', true],
    ['gold', 'ne', 'gold', false],
    ['', 'ne', null, false],
    // gt / gte / lt / lte: numerically when both are numbers (10 > 9), else by string order.
    ['10', 'gt', 9, true],
    ['10', 'gt', '9', true],
    ['9', 'gt', 10, false],
    ['10', 'gt', 10, false],
    ['-1', 'gt', -2, true],
    ['2.5', 'gt', 2.25, true],
    ['b', 'gt', 'a', true],
    ['abc', 'gt', 'abd', false],
    ['10', 'gte', 10, true],
    ['9.99', 'gte', 10, false],
    ['9', 'lt', 10, true],
    ['9', 'lt', '10', true],
    ['10', 'lt', 10, false],
    ['abc', 'lt', 'abd', true],
    ['10', 'lte', 10, true],
    ['11', 'lte', 10, false],
    // contains: a case-insensitive substring test.
    ['Please CALL me', 'contains', 'call', true],
    ['Please call me', 'contains', 'CALL ME', true],
    ['order 12345', 'contains', 234, true],
    ['hello', 'contains', 'bye', false],
    ['hello', 'contains', '', true],
    ['', 'contains', 'x', false],
    // exists: a non-empty value (whitespace is empty); `equals` is ignored.
    ['x', 'exists', undefined, true],
    ['0', 'exists', undefined, true],
    ['false', 'exists', null, true],
    ['', 'exists', undefined, false],
    ['   ', 'exists', 'anything', false],
  ];
  it.each(table)('%j %s %j → %s', (value, op, equals, holds) => {
    expect(conditionHolds(value, op, equals)).toBe(holds);
  });
});

describe('template strings', () => {
  const ctx: RunContext = {
    payload: {
      cart: { total: 42.5, items: [{ sku: 'A1' }] },
      name: 'x',
      zero: 0,
      no: false,
      nothing: null,
      'with-dash': 'dashed',
    },
    contact: {
      name: 'Ann',
      firstName: 'Ann',
      phone: '+14155552671',
      email: null,
      attributes: { tier: 'gold' },
    },
    reply: {
      text: 'yes please',
      listReply: { listId: 'lst_1', rowId: 'billing', title: 'Billing' },
    },
    steps: { hook: { coupon: 'SAVE10', nested: { level: 2 } } },
  };

  it('renders payload, contact, reply and step outputs', () => {
    const cases: [string, string][] = [
      ['Hi {{contact.name}}', 'Hi Ann'],
      ['Hi {{contact.firstName}}', 'Hi Ann'],
      ['{{contact.phone}}', '+14155552671'],
      ['{{contact.attributes.tier}}', 'gold'],
      ['{{ payload.cart.total }}', '42.5'],
      ['{{payload.cart.items.0.sku}}', 'A1'],
      ['{{payload.with-dash}}', 'dashed'],
      ['{{reply.text}}', 'yes please'],
      ['{{reply.listReply.rowId}}/{{reply.listReply.title}}', 'billing/Billing'],
      ['{{steps.hook.coupon}} at level {{steps.hook.nested.level}}', 'SAVE10 at level 2'],
      ['{{payload.zero}} {{payload.no}}', '0 false'],
      // Missing and null values are empty.
      ['[{{payload.missing}}]', '[]'],
      ['[{{payload.nothing}}]', '[]'],
      ['[{{contact.email}}]', '[]'],
      ['[{{steps.other.x}}]', '[]'],
      ['[{{payload.cart.total.more}}]', '[]'],
      // A string is not walked into.
      ['[{{payload.name.length}}]', '[]'],
      // An object is its JSON.
      ['{{steps.hook.nested}}', '{"level":2}'],
      ['{{payload.cart.items}}', '[{"sku":"A1"}]'],
      // Text around and without references is left alone.
      ['no refs', 'no refs'],
      ['a {{ b', 'a {{ b'],
      ['{single}', '{single}'],
      ['{{contact.name}}{{contact.name}}', 'AnnAnn'],
    ];
    for (const [text, out] of cases)
      expect([text, renderTemplateString(text, ctx)]).toEqual([text, out]);
  });

  it('renders an absent reply as empty', () => {
    expect(renderTemplateString('[{{reply.text}}]', { ...ctx, reply: null })).toBe('[]');
  });

  it('lists references and says which ones a run cannot have', () => {
    expect(templateRefs('Hi {{contact.name}}, {{ payload.x.y }} {{reply.text}}')).toEqual([
      'contact.name',
      'payload.x.y',
      'reply.text',
    ]);
    const ids = new Set(['hook']);
    for (const ok of [
      'payload.x',
      'payload.a.b.c',
      'contact.name',
      'contact.phone',
      'contact.email',
      'contact.attributes.tier',
      'reply.text',
      'reply.listReply.listId',
      'reply.listReply.rowId',
      'reply.listReply.title',
      'steps.hook.coupon',
      'steps.hook.a.b',
    ]) {
      expect([ok, refProblem(ok, ids)]).toEqual([ok, null]);
    }
    for (const bad of [
      'payload',
      'contact',
      'contact.nick',
      'contact.name.first',
      'contact.attributes',
      'reply',
      'reply.body',
      'reply.listReply',
      'reply.listReply.other',
      'steps',
      'steps.hook',
      'steps.nope.x',
      'foo',
      'order.id',
    ]) {
      expect(refProblem(bad, ids), bad).toEqual(expect.any(String));
    }
  });
});

describe('followingStep', () => {
  it('is `next`, else the following step, else the end (null)', () => {
    const steps: StepDefinition[] = [
      { id: 'a', type: 'end' },
      { id: 'b', type: 'end', next: 'a' },
      { id: 'c', type: 'end' },
    ];
    expect(followingStep(steps, 0)).toBe('b');
    expect(followingStep(steps, 1)).toBe('a');
    expect(followingStep(steps, 2)).toBeNull();
  });
});

describe('workflowProblems', () => {
  const manual = { type: 'manual' } as const;
  const def = (
    steps: Partial<StepDefinition>[],
    over: Partial<WorkflowDefinition> = {},
  ): WorkflowDefinition => ({
    name: 'Flow',
    trigger: manual,
    steps: steps as StepDefinition[],
    ...over,
  });
  const params = (d: WorkflowDefinition) => workflowProblems(d).map((p) => p.param);

  it('accepts a definition using every step type', () => {
    const ok = def([
      {
        id: 'hello',
        type: 'send_template',
        templateName: 'welcome',
        variables: { '1': '{{contact.name}}' },
      },
      { id: 'ask', type: 'send_list', listId: 'lst_1' },
      { id: 'reply', type: 'wait_for_reply', timeout: 'P1D', onTimeout: 'nudge' },
      {
        id: 'route',
        type: 'branch',
        conditions: [
          { if: { value: '{{reply.listReply.rowId}}', op: 'eq', equals: 'billing' }, goto: 'hook' },
          { if: { value: '{{reply.text}}', op: 'exists' }, goto: 'thanks' },
        ],
        else: 'nudge',
      },
      {
        id: 'hook',
        type: 'webhook',
        url: 'https://example.com/hook',
        method: 'PUT',
        body: { phone: '{{contact.phone}}', cart: '{{payload.cartId}}' },
        onError: 'tag',
      },
      { id: 'thanks', type: 'send_text', text: 'Code {{steps.hook.coupon}}', next: 'tag' },
      { id: 'nudge', type: 'wait', duration: 'PT15M' },
      {
        id: 'tag',
        type: 'update_conversation',
        status: 'pending',
        assignee: null,
        addLabels: ['flow'],
        removeLabels: ['new'],
      },
      { id: 'done', type: 'end' },
    ]);
    expect(workflowProblems(ok)).toEqual([]);
    expect(
      workflowProblems(
        def([{ id: 'x', type: 'end' }], { trigger: { type: 'event', event: 'cart.abandoned' } }),
      ),
    ).toEqual([]);
    // A template that does not exist yet is not this function's concern.
    expect(params(def([{ id: 'x', type: 'send_template', templateName: 'later' }]))).toEqual([]);
    // Limits at their edge.
    expect(params(def([{ id: 'w', type: 'wait', duration: 'P90D' }]))).toEqual([]);
    expect(params(def([{ id: 't', type: 'send_text', text: 'x'.repeat(4096) }]))).toEqual([]);
    expect(params(def([{ id: 'a'.repeat(64), type: 'end' }]))).toEqual([]);
    expect(
      params(
        def(Array.from({ length: MAX_STEPS }, (_, i) => ({ id: `s${i}`, type: 'end' as const }))),
      ),
    ).toEqual([]);
    expect(params(def([{ id: 'x', type: 'end' }], { name: 'n'.repeat(200) }))).toEqual([]);
  });

  it('names the field of each kind of problem', () => {
    const end = { id: 'end', type: 'end' } as const;
    const cases: [string, WorkflowDefinition, string[]][] = [
      ['empty name', def([end], { name: '' }), ['name']],
      ['blank name', def([end], { name: '   ' }), ['name']],
      ['long name', def([end], { name: 'n'.repeat(201) }), ['name']],
      [
        'bad event name',
        def([end], { trigger: { type: 'event', event: 'cart abandoned!' } }),
        ['trigger.event'],
      ],
      [
        'empty event name',
        def([end], { trigger: { type: 'event', event: '' } }),
        ['trigger.event'],
      ],
      ['no steps', def([]), ['steps']],
      [
        'too many steps',
        def(
          Array.from({ length: MAX_STEPS + 1 }, (_, i) => ({ id: `s${i}`, type: 'end' as const })),
        ),
        ['steps'],
      ],
      ['bad step id', def([{ id: 'a b', type: 'end' }]), ['steps.0.id']],
      ['long step id', def([{ id: 'a'.repeat(65), type: 'end' }]), ['steps.0.id']],
      ['duplicate step id', def([end, { id: 'x', type: 'end' }, end]), ['steps.2.id']],
      [
        'unknown type',
        def([{ id: 'x', type: 'sleep' as string as StepDefinition['type'] }]),
        ['steps.0.type'],
      ],
      [
        'field of another type',
        def([{ id: 'x', type: 'send_text', text: 'hi', url: 'https://x.io' }]),
        ['steps.0.url'],
      ],
      ['field on end', def([{ id: 'x', type: 'end', text: 'bye' }]), ['steps.0.text']],
      ['missing text', def([{ id: 'x', type: 'send_text' }]), ['steps.0.text']],
      ['empty text', def([{ id: 'x', type: 'send_text', text: '' }]), ['steps.0.text']],
      ['missing templateName', def([{ id: 'x', type: 'send_template' }]), ['steps.0.templateName']],
      ['missing listId', def([{ id: 'x', type: 'send_list' }]), ['steps.0.listId']],
      ['missing conditions', def([{ id: 'x', type: 'branch' }]), ['steps.0.conditions']],
      [
        'empty conditions',
        def([{ id: 'x', type: 'branch', conditions: [] }]),
        ['steps.0.conditions'],
      ],
      // Said once, in the registry's words ("Give the web address to call").
      ['missing url', def([{ id: 'x', type: 'webhook' }]), ['steps.0.url']],
      ['unknown next', def([{ id: 'x', type: 'end', next: 'nope' }, end]), ['steps.0.next']],
      [
        'unknown goto',
        def([
          end,
          { id: 'b', type: 'end' },
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: 'x', op: 'exists' }, goto: 'nowhere' }],
          },
        ]),
        ['steps.2.conditions.0.goto'],
      ],
      [
        'missing goto',
        def([
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: 'x', op: 'exists' } } as never],
          },
        ]),
        ['steps.0.conditions.0.goto'],
      ],
      [
        'unknown else',
        def([
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: 'x', op: 'exists' }, goto: 'br' }],
            else: 'nope',
          },
        ]),
        ['steps.0.else'],
      ],
      [
        'unknown op',
        def([
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: 'x', op: 'like' as string as BranchOp }, goto: 'br' }],
          },
        ]),
        ['steps.0.conditions.0.if.op'],
      ],
      [
        'bad reference in a branch value',
        def([
          {
            id: 'br',
            type: 'branch',
            conditions: [{ if: { value: '{{cart.total}}', op: 'gt', equals: 1 }, goto: 'br' }],
          },
        ]),
        ['steps.0.conditions.0.if.value'],
      ],
      [
        'unknown onTimeout',
        def([{ id: 'w', type: 'wait_for_reply', timeout: 'PT1H', onTimeout: 'nope' }]),
        ['steps.0.onTimeout'],
      ],
      [
        'unknown onError',
        def([{ id: 'h', type: 'webhook', url: 'https://x.io', onError: 'nope' }]),
        ['steps.0.onError'],
      ],
      [
        'zero duration (4th step)',
        def([
          end,
          { id: 'b', type: 'end' },
          { id: 'c', type: 'end' },
          { id: 'w', type: 'wait', duration: 'PT0S' },
        ]),
        ['steps.3.duration'],
      ],
      [
        'unparsable duration',
        def([{ id: 'w', type: 'wait', duration: '5 minutes' }]),
        ['steps.0.duration'],
      ],
      [
        'duration in months',
        def([{ id: 'w', type: 'wait', duration: 'P1M' }]),
        ['steps.0.duration'],
      ],
      [
        'duration over 90 days',
        def([{ id: 'w', type: 'wait', duration: 'P91D' }]),
        ['steps.0.duration'],
      ],
      ['missing duration', def([{ id: 'w', type: 'wait' }]), ['steps.0.duration']],
      [
        'bad timeout',
        def([{ id: 'w', type: 'wait_for_reply', timeout: 'PT' }]),
        ['steps.0.timeout'],
      ],
      [
        'bad text reference',
        def([{ id: 't', type: 'send_text', text: 'Hi {{contact.nick}}' }]),
        ['steps.0.text'],
      ],
      [
        'reference to an unknown step',
        def([{ id: 't', type: 'send_text', text: '{{steps.nope.x}}' }]),
        ['steps.0.text'],
      ],
      [
        'reference to a step without a field',
        def([{ id: 't', type: 'send_text', text: '{{steps.t}}' }]),
        ['steps.0.text'],
      ],
      [
        'text too long',
        def([{ id: 't', type: 'send_text', text: 'x'.repeat(4097) }]),
        ['steps.0.text'],
      ],
      [
        'bad variable reference',
        def([
          {
            id: 's',
            type: 'send_template',
            templateName: 'welcome',
            variables: { '1': '{{order.id}}' },
          },
        ]),
        ['steps.0.variables.1'],
      ],
      [
        'non-http url',
        def([{ id: 'h', type: 'webhook', url: 'ftp://example.com/x' }]),
        ['steps.0.url'],
      ],
      ['not a url', def([{ id: 'h', type: 'webhook', url: 'example.com/x' }]), ['steps.0.url']],
      [
        'GET webhook',
        def([{ id: 'h', type: 'webhook', url: 'https://x.io', method: 'GET' }]),
        ['steps.0.method'],
      ],
      [
        'bad reference in a webhook body',
        def([{ id: 'h', type: 'webhook', url: 'https://x.io', body: { a: ['{{secret.key}}'] } }]),
        ['steps.0.body'],
      ],
      [
        'unknown conversation status',
        def([{ id: 'u', type: 'update_conversation', status: 'closed' }]),
        ['steps.0.status'],
      ],
      ['update that changes nothing', def([{ id: 'u', type: 'update_conversation' }]), ['steps.0']],
      [
        'update with empty label lists',
        def([{ id: 'u', type: 'update_conversation', addLabels: [], removeLabels: [] }]),
        ['steps.0'],
      ],
    ];
    for (const [what, d, want] of cases) expect([what, params(d)]).toEqual([what, want]);
  });

  it('reports every problem, in order, each with a message', () => {
    const problems = workflowProblems(
      def(
        [
          { id: 'a', type: 'wait', duration: 'soon', next: 'zz' },
          { id: 'a', type: 'send_text', text: '{{x}}' },
        ],
        { name: '', trigger: { type: 'event', event: 'bad event' } },
      ),
    );
    expect(problems.map((p) => p.param)).toEqual([
      'name',
      'trigger.event',
      'steps.1.id',
      'steps.0.next',
      'steps.0.duration',
      'steps.1.text',
    ]);
    for (const p of problems) expect(p.message.length).toBeGreaterThan(5);
    expect(problems[2]!.message).toContain('"a"');
    expect(problems[3]!.message).toContain('"zz"');
  });
});
