/**
 * A workflow draft as a graph: the trigger, a node per step, and an edge per path (a step's
 * "then", a reply or its timeout, a branch's conditions and "otherwise", a webhook's failure),
 * labelled in words. A path that ends the run ends in a small "End" node, one that names no step
 * (a condition not chosen yet, a step since removed) in a "Not connected" node: each edge can
 * take a new step (PathRef). Node ids are the steps' keys, stable while ids are renamed.
 */
import type { PathRef } from './flow-edits.ts';
import { pathsOf } from '../workflow-definition.ts';
import type { StepDraft, WorkflowDraft } from '../workflow-draft.ts';

export const TRIGGER_NODE = 'trigger';

export type FlowNodeKind = 'trigger' | 'step' | 'end' | 'unset';

export interface FlowNode {
  id: string;
  kind: FlowNodeKind;
  /** The step's index in the draft (step nodes). */
  index?: number;
  /** Whether a run can get here from the trigger (an unreached step is drawn apart and says so). */
  reached: boolean;
}

export interface FlowEdge {
  id: string;
  source: string;
  target: string;
  /** The path in words ('' for a plain "then"). */
  label: string;
  /** Where a step added on this edge is linked from. */
  from: PathRef;
}

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** The graph of a draft: nodes in the order a reader follows them (trigger, then the flow depth first). */
export function flowGraph(draft: Pick<WorkflowDraft, 'steps'>): FlowGraph {
  const { steps } = draft;
  const byId = new Map<string, number>();
  steps.forEach((s, i) => {
    if (!byId.has(s.id)) byId.set(s.id, i);
  });
  const edges: FlowEdge[] = [];
  const terminals: FlowNode[] = [];
  const order: number[] = [];
  const reached = new Set<number>();

  const terminal = (id: string, kind: 'end' | 'unset') => {
    terminals.push({ id, kind, reached: true });
    return id;
  };
  /** The node a path to `target` ends at: the step's, or a terminal of its own. */
  const targetNode = (source: string, field: string, target: string | null): string => {
    if (target === null) return terminal(`end:${source}:${field}`, 'end');
    const index = byId.get(target);
    return index === undefined
      ? terminal(`unset:${source}:${field}`, 'unset')
      : (steps[index] as StepDraft).key;
  };

  // Depth first from the first step, in the order of each step's paths.
  const visit = (index: number) => {
    if (reached.has(index)) return;
    reached.add(index);
    order.push(index);
    for (const path of pathsOf(steps, index)) {
      const next = path.target ? byId.get(path.target) : undefined;
      if (next !== undefined) visit(next);
    }
  };
  if (steps.length > 0) visit(0);
  steps.forEach((_, i) => {
    if (!reached.has(i)) order.push(i);
  });

  const first = steps[0];
  edges.push({
    id: `${TRIGGER_NODE}->first`,
    source: TRIGGER_NODE,
    target: first ? first.key : terminal(`end:${TRIGGER_NODE}`, 'end'),
    label: '',
    from: { step: null },
  });
  for (const index of order) {
    const step = steps[index]!;
    for (const path of pathsOf(steps, index)) {
      edges.push({
        id: `${step.key}->${path.field}`,
        source: step.key,
        target: targetNode(step.key, path.field, path.target),
        label: path.label,
        from: { step: step.key, field: path.field },
      });
    }
  }

  return {
    nodes: [
      { id: TRIGGER_NODE, kind: 'trigger', reached: true },
      ...order.map((index) => ({
        id: steps[index]!.key,
        kind: 'step' as const,
        index,
        reached: reached.has(index),
      })),
      ...terminals,
    ],
    edges,
  };
}

/** The edges a run took, as consecutive steps of its path (the trigger's edge once it started). */
export function pathEdges(
  graph: FlowGraph,
  steps: readonly StepDraft[],
  stepIds: readonly string[],
) {
  const keyOf = new Map(steps.map((s) => [s.id, s.key]));
  const keys = stepIds.map((id) => keyOf.get(id));
  const on = new Set<string>();
  if (keys[0] !== undefined && keys[0] === steps[0]?.key) on.add(`${TRIGGER_NODE}->first`);
  for (let i = 1; i < keys.length; i++) {
    const edge = graph.edges.find((e) => e.source === keys[i - 1] && e.target === keys[i]);
    if (edge) on.add(edge.id);
  }
  return on;
}

/**
 * The problems each node shows, by node id: a step's by its index in the param, the trigger's and
 * the steps' as a whole (`steps`: none yet) on the trigger; the name's are its field's alone.
 */
export function problemsByNode<P extends { param: string }>(
  steps: readonly StepDraft[],
  problems: readonly P[],
): Map<string, P[]> {
  const out = new Map<string, P[]>();
  for (const problem of problems) {
    if (problem.param === 'name') continue;
    const index = /^steps\.(\d+)(?:\.|$)/.exec(problem.param)?.[1];
    const node = index === undefined ? TRIGGER_NODE : steps[Number(index)]?.key;
    if (node === undefined) continue;
    out.set(node, [...(out.get(node) ?? []), problem]);
  }
  return out;
}
