/**
 * The workflow builder's canvas, its pure parts: a definition as a graph (steps, branches and
 * timeouts as labelled edges, ends and unset paths as their own nodes), a step added on an edge
 * or removed with its paths re-linked — the run goes where it went, whatever the steps' order —
 * and undo/redo with typing merged into one step.
 */
import { describe, expect, it } from 'vitest';
import { followingStep } from '../../shared/workflow-rules.ts';
import {
  insertStep,
  removeStep,
  renameStep,
} from '../../renderer/src/screens/workflows/canvas/flow-edits.ts';
import { flowGraph, pathEdges } from '../../renderer/src/screens/workflows/canvas/flow-graph.ts';
import {
  COALESCE_MS,
  createHistoryStore,
  record,
  redo,
  startHistory,
  undo,
} from '../../renderer/src/screens/workflows/canvas/history.ts';
import { layoutFlow, NODE_SIZE } from '../../renderer/src/screens/workflows/canvas/layout.ts';
import {
  definitionOf,
  draftFromDefinition,
  problemsOf,
} from '../../renderer/src/screens/workflows/workflow-definition.ts';
import type {
  StepDraft,
  WorkflowDraft,
} from '../../renderer/src/screens/workflows/workflow-draft.ts';

/** "order" outside hours → template → wait for a reply (1 min) → branch → label / list. */
const ORDER_FLOW = {
  name: 'Orders after hours',
  trigger: {
    type: 'message_received',
    keywords: ['order'],
    match: 'whole_word',
    outsideHours: true,
  },
  steps: [
    { id: 'hello', type: 'send_template', templateName: 'after_hours', variables: {} },
    { id: 'ask', type: 'wait_for_reply', timeout: 'PT1M', onTimeout: 'bye' },
    {
      id: 'check',
      type: 'branch',
      conditions: [{ if: { value: '{{reply.text}}', op: 'contains', equals: 'yes' }, goto: 'tag' }],
      else: 'menu',
    },
    { id: 'tag', type: 'update_conversation', addLabels: ['order'], next: 'done' },
    { id: 'menu', type: 'send_list', listId: 'lst_1' },
    { id: 'done', type: 'end' },
    { id: 'bye', type: 'send_text', text: 'We will write tomorrow.' },
  ],
} as const;

const draftOf = (definition: unknown): WorkflowDraft =>
  draftFromDefinition(definition as Parameters<typeof draftFromDefinition>[0]);

/** Where each step's run goes, by id: [then-or-paths…], resolved as the engine would. */
function routes(steps: readonly StepDraft[]): Record<string, unknown> {
  const def = definitionOf({ ...draftOf(ORDER_FLOW), steps: [...steps] });
  const out: Record<string, unknown> = {};
  def.steps.forEach((s, i) => {
    const then = ['branch', 'end', 'assign'].includes(s.type)
      ? undefined
      : followingStep(def.steps, i);
    out[s.id] = {
      ...(then !== undefined ? { then } : {}),
      ...(s.onTimeout !== undefined ? { onTimeout: s.onTimeout } : {}),
      ...(s.conditions ? { goto: s.conditions.map((c) => c.goto) } : {}),
      ...(s.type === 'branch' ? { else: s.else ?? null } : {}),
    };
  });
  return out;
}

const ids = (steps: readonly StepDraft[]) => steps.map((s) => s.id);
const keyOf = (steps: readonly StepDraft[], id: string) => steps.find((s) => s.id === id)!.key;

describe('the flow as a graph', () => {
  const draft = draftOf(ORDER_FLOW);
  const graph = flowGraph(draft);
  const edge = (fromId: string, field: string) =>
    graph.edges.find((e) => e.id === `${keyOf(draft.steps, fromId)}->${field}`)!;
  const nodeOf = (id: string) => keyOf(draft.steps, id);

  it('has the trigger, every step in reading order, and an End where a path ends', () => {
    expect(graph.nodes[0]).toMatchObject({ id: 'trigger', kind: 'trigger' });
    const stepNodes = graph.nodes.filter((n) => n.kind === 'step');
    expect(stepNodes.map((n) => draft.steps[n.index!]!.id)).toEqual([
      'hello',
      'ask',
      'check',
      'tag',
      'done',
      'menu',
      'bye',
    ]);
    expect(stepNodes.every((n) => n.reached)).toBe(true);
    // menu leads to the end step after it; bye, the last, ends the run.
    const ends = graph.nodes.filter((n) => n.kind === 'end').map((n) => n.id);
    expect(ends).toEqual([`end:${nodeOf('bye')}:next`]);
    expect(edge('menu', 'next').target).toBe(nodeOf('done'));
  });

  it('labels the reply, its timeout, the condition and otherwise in words', () => {
    expect(graph.edges[0]).toMatchObject({ source: 'trigger', target: nodeOf('hello'), label: '' });
    expect(edge('ask', 'next')).toMatchObject({ label: 'Replied', target: nodeOf('check') });
    expect(edge('ask', 'onTimeout')).toMatchObject({
      label: 'No reply after 1 minute',
      target: nodeOf('bye'),
    });
    expect(edge('check', 'conditions.0.goto')).toMatchObject({
      label: 'The reply contains “yes”',
      target: nodeOf('tag'),
    });
    expect(edge('check', 'else')).toMatchObject({ label: 'Otherwise', target: nodeOf('menu') });
    expect(edge('tag', 'next').target).toBe(nodeOf('done'));
    expect(graph.edges.some((e) => e.source === nodeOf('done'))).toBe(false);
  });

  it('draws an unchosen or missing target as "not connected", and an unreached step apart', () => {
    const g = flowGraph(
      draftOf({
        name: 'x',
        trigger: { type: 'manual' },
        steps: [
          {
            id: 'b',
            type: 'branch',
            conditions: [{ if: { op: 'is_open_now' }, goto: '' }],
            else: 'gone',
          },
          { id: 'lost', type: 'send_text', text: 'hi' },
        ],
      }),
    );
    expect(g.edges.map((e) => [e.label, g.nodes.find((n) => n.id === e.target)!.kind])).toEqual([
      ['', 'step'],
      ['Open now', 'unset'],
      ['Otherwise', 'unset'],
      ['', 'end'],
    ]);
    expect(g.nodes.find((n) => n.index === 1)!.reached).toBe(false);
  });

  it('starts with the trigger and an End that takes the first step', () => {
    const g = flowGraph({ steps: [] });
    expect(g.nodes.map((n) => n.kind)).toEqual(['trigger', 'end']);
    expect(g.edges).toEqual([
      expect.objectContaining({
        source: 'trigger',
        target: 'end:trigger',
        from: { step: null },
      }),
    ]);
  });

  it('lays it out top to bottom: every edge runs down except loops, nodes do not overlap', () => {
    const laid = layoutFlow(graph);
    const y = (id: string) => laid.nodes.get(id)!.y;
    expect(y('trigger')).toBeLessThan(y(nodeOf('hello')));
    expect(y(nodeOf('ask'))).toBeLessThan(y(nodeOf('check')));
    expect(y(nodeOf('check'))).toBeLessThan(y(nodeOf('tag')));
    const boxes = graph.nodes.map((n) => ({ ...laid.nodes.get(n.id)!, ...NODE_SIZE[n.kind] }));
    for (const a of boxes) {
      for (const b of boxes) {
        if (a === b) continue;
        const apart =
          a.x + a.width <= b.x ||
          b.x + b.width <= a.x ||
          a.y + a.height <= b.y ||
          b.y + b.height <= a.y;
        expect(apart).toBe(true);
      }
    }
    for (const e of graph.edges) expect(laid.edges.get(e.id)!.points.length).toBeGreaterThan(1);
  });

  it('marks the edges a run took', () => {
    const on = pathEdges(graph, draft.steps, ['hello', 'ask', 'bye']);
    expect([...on].sort()).toEqual(
      ['trigger->first', `${nodeOf('hello')}->next`, `${nodeOf('ask')}->onTimeout`].sort(),
    );
  });
});

describe('editing on the canvas', () => {
  it('adds a step on an edge between two steps, with no explicit next', () => {
    const draft = draftOf({
      name: 'x',
      trigger: { type: 'manual' },
      steps: [
        { id: 'a', type: 'send_text', text: 'a' },
        { id: 'b', type: 'send_text', text: 'b' },
      ],
    });
    const { steps, key } = insertStep(
      draft.steps,
      { step: draft.steps[0]!.key, field: 'next' },
      'wait',
    );
    expect(ids(steps)).toEqual(['a', 'wait_1', 'b']);
    expect(steps.find((s) => s.key === key)!.id).toBe('wait_1');
    expect(steps.every((s) => s.next === undefined)).toBe(true);
  });

  it('adds the first step from the trigger, before the old first', () => {
    const empty = insertStep([], { step: null }, 'send_text');
    expect(ids(empty.steps)).toEqual(['text_1']);
    const again = insertStep(empty.steps, { step: null }, 'wait');
    expect(ids(again.steps)).toEqual(['wait_1', 'text_1']);
    expect(routes(again.steps)).toMatchObject({
      wait_1: { then: 'text_1' },
      text_1: { then: null },
    });
  });

  it('adds a step on a timeout: the reply path and every other path still go where they went', () => {
    const draft = draftOf(ORDER_FLOW);
    const before = routes(draft.steps);
    const { steps } = insertStep(
      draft.steps,
      { step: keyOf(draft.steps, 'ask'), field: 'onTimeout' },
      'send_text',
    );
    expect(routes(steps)).toEqual({
      ...before,
      ask: { then: 'check', onTimeout: 'text_1' },
      text_1: { then: 'bye' },
    });
  });

  it('adds a step on a path that ends: it ends in turn (through an end step when it is not last)', () => {
    const draft = draftOf(ORDER_FLOW);
    const before = routes(draft.steps);
    const { steps } = insertStep(
      draft.steps,
      { step: keyOf(draft.steps, 'menu'), field: 'next' },
      'assign',
    );
    expect(routes(steps)).toEqual({ ...before, menu: { then: 'assign_1' }, assign_1: {} });
    expect(problemsOf({ ...draft, steps }).filter((p) => !p.param.endsWith('.to'))).toEqual([]);

    const open = draftOf({
      name: 'x',
      trigger: { type: 'manual' },
      steps: [
        { id: 'w', type: 'wait_for_reply', timeout: 'PT1M' },
        { id: 'last', type: 'send_text', text: 'b' },
      ],
    });
    const timedOut = insertStep(
      open.steps,
      { step: open.steps[0]!.key, field: 'onTimeout' },
      'send_text',
    );
    expect(routes(timedOut.steps)).toEqual({
      w: { then: 'last', onTimeout: 'text_1' },
      text_1: { then: 'end_1' },
      last: { then: 'end_1' },
      end_1: {},
    });
  });

  it('adds a branch on an edge: otherwise goes where the edge went, its condition is to be chosen', () => {
    const draft = draftOf(ORDER_FLOW);
    const { steps } = insertStep(
      draft.steps,
      { step: keyOf(draft.steps, 'hello'), field: 'next' },
      'branch',
    );
    expect(routes(steps)).toMatchObject({
      hello: { then: 'branch_1' },
      branch_1: { goto: [''], else: 'ask' },
    });
  });

  it('removes a step: what led to it goes where it went', () => {
    const draft = draftOf(ORDER_FLOW);
    const before = routes(draft.steps);
    const steps = removeStep(draft.steps, keyOf(draft.steps, 'tag'));
    const { tag: _tag, ...rest } = before;
    expect(routes(steps)).toEqual({ ...rest, check: { goto: ['done'], else: 'menu' } });
  });

  it('removes a branch: what led to it goes to its otherwise; the first step can go too', () => {
    const draft = draftOf(ORDER_FLOW);
    const noBranch = removeStep(draft.steps, keyOf(draft.steps, 'check'));
    expect(routes(noBranch)).toMatchObject({ ask: { then: 'menu', onTimeout: 'bye' } });
    const noFirst = removeStep(noBranch, keyOf(noBranch, 'hello'));
    expect(ids(noFirst)[0]).toBe('ask');
    const noWait = removeStep(noFirst, keyOf(noFirst, 'ask'));
    expect(ids(noWait)[0]).toBe('menu');
    expect(routes(noWait).menu).toEqual({ then: 'done' });
  });

  it('renames a step and the paths that name it', () => {
    const draft = draftOf(ORDER_FLOW);
    const steps = renameStep(draft.steps, keyOf(draft.steps, 'bye'), 'goodbye');
    expect(routes(steps).ask).toEqual({ then: 'check', onTimeout: 'goodbye' });
  });
});

describe('undo and redo', () => {
  it('undoes and redoes each edit; a new edit drops what could be redone', () => {
    let h = startHistory('a');
    h = record(h, 'b', null, 0);
    h = record(h, 'c', null, 10);
    expect(undo(h).present).toBe('b');
    expect(undo(undo(h)).present).toBe('a');
    expect(undo(undo(undo(h))).present).toBe('a');
    expect(redo(undo(undo(h))).present).toBe('b');
    const branched = record(undo(h), 'd', null, 20);
    expect(branched.future).toEqual([]);
    expect(redo(branched)).toBe(branched);
  });

  it('merges typing in one field into one step until a pause or another field', () => {
    let h = startHistory('');
    h = record(h, 'h', 'name', 0);
    h = record(h, 'hi', 'name', 300);
    h = record(h, 'hi!', 'name', 600);
    expect(h.past).toEqual(['']);
    h = record(h, 'hi! x', 'name', 600 + COALESCE_MS + 1);
    expect(h.past).toEqual(['', 'hi!']);
    h = record(h, 'hi! xy', 'text', 600 + COALESCE_MS + 2);
    expect(h.past).toEqual(['', 'hi!', 'hi! x']);
    expect(undo(h).present).toBe('hi! x');
  });

  it('is a store an editor holds: edit, undo, redo, reset', () => {
    let now = 0;
    const store = createHistoryStore({ n: 0 }, () => now);
    const { edit } = store.getState();
    edit((s) => ({ n: s.n + 1 }));
    now += 5000;
    edit((s) => ({ n: s.n + 1 }));
    store.getState().undo();
    expect(store.getState().history.present).toEqual({ n: 1 });
    store.getState().redo();
    expect(store.getState().history.present).toEqual({ n: 2 });
    store.getState().reset({ n: 9 });
    expect(store.getState().history).toMatchObject({ past: [], future: [], present: { n: 9 } });
  });
});
