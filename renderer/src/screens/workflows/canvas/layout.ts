/**
 * Where the canvas draws each node and edge: dagre's layered layout, top to bottom. Edges carry
 * their label's size so dagre leaves room for it between ranks, and keep dagre's route (its
 * points), so a label sits on its own line and no line runs through a node.
 */
import { Graph, layout } from '@dagrejs/dagre';
import type { FlowGraph, FlowNodeKind } from './flow-graph.ts';

/** Each kind of node's box (the stylesheet draws them at these sizes). */
export const NODE_SIZE: Readonly<Record<FlowNodeKind, { width: number; height: number }>> = {
  // Room for a title on two lines and a summary on two (canvas.css clamps both there).
  trigger: { width: 260, height: 96 },
  step: { width: 260, height: 96 },
  end: { width: 96, height: 32 },
  unset: { width: 150, height: 32 },
};

/** The "+" button's room on an edge without words. */
const PLUS = { width: 32, height: 28 };
const CHAR_WIDTH = 7;
const LABEL_MAX_WIDTH = 200;

export interface Point {
  x: number;
  y: number;
}

export interface FlowLayout {
  /** Each node's top-left corner. */
  nodes: Map<string, Point>;
  /** Each edge's route, from its source's border to its target's, and its label's centre. */
  edges: Map<string, { points: Point[]; label: Point }>;
  width: number;
  height: number;
}

/** A label's box as the canvas draws it (words wrap at LABEL_MAX_WIDTH) with its "+" button. */
export function labelSize(label: string): { width: number; height: number } {
  if (!label) return PLUS;
  const width = Math.min(LABEL_MAX_WIDTH, label.length * CHAR_WIDTH + 24);
  const lines = Math.ceil((label.length * CHAR_WIDTH) / (LABEL_MAX_WIDTH - 24));
  return { width: width + PLUS.width, height: Math.max(PLUS.height, lines * 18 + 10) };
}

const laidOut = new Map<string, FlowLayout>();

/**
 * The layout of a graph's shape (its nodes, edges and words), computed once: typing in a form
 * redraws the graph but moves nothing until a path or its words change.
 */
export function layoutOf(graph: FlowGraph): FlowLayout {
  const key = JSON.stringify([graph.nodes.map((n) => [n.id, n.kind]), graph.edges]);
  let found = laidOut.get(key);
  if (!found) {
    found = layoutFlow(graph);
    if (laidOut.size >= 32) laidOut.delete(laidOut.keys().next().value!);
    laidOut.set(key, found);
  }
  return found;
}

export function layoutFlow(graph: FlowGraph): FlowLayout {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 48, edgesep: 24, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) g.setNode(node.id, { ...NODE_SIZE[node.kind] });
  for (const edge of graph.edges) {
    g.setEdge(edge.source, edge.target, { ...labelSize(edge.label), labelpos: 'c' }, edge.id);
  }
  layout(g);

  const nodes = new Map<string, Point>();
  for (const node of graph.nodes) {
    const { x, y, width, height } = g.node(node.id);
    nodes.set(node.id, { x: x - width / 2, y: y - height / 2 });
  }
  const edges = new Map<string, { points: Point[]; label: Point }>();
  for (const edge of graph.edges) {
    const laid = g.edge({ v: edge.source, w: edge.target, name: edge.id });
    edges.set(edge.id, {
      points: (laid.points ?? []).map(({ x, y }: Point) => ({ x, y })),
      label: { x: laid.x ?? 0, y: laid.y ?? 0 },
    });
  }
  const { width = 0, height = 0 } = g.graph();
  return { nodes, edges, width, height };
}
