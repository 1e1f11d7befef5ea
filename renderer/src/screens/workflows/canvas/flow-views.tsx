/**
 * How the canvas draws a node and an edge (React Flow's custom node and edge types). A step is a
 * button — its title, its gist or its first problem in words, a red badge counting problems —
 * that opens its form; an edge follows dagre's route and carries its words and a "+" that adds
 * a step on it. Handles exist only because React Flow anchors edges to them; nobody drags here.
 */
import {
  BaseEdge,
  EdgeLabelRenderer,
  Handle,
  Position,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import type { FlowNodeKind } from './flow-graph.ts';
import type { Point } from './layout.ts';

export type FlowNodeData = {
  kind: FlowNodeKind;
  /** The step's number, "2" (none for the trigger and the ends). */
  number: string | null;
  title: string;
  summary: string;
  problems: readonly string[];
  reached: boolean;
  selected: boolean;
  /** On the highlighted run's path, and where the run is now. */
  onPath: boolean;
  current: boolean;
  stepType: string | null;
  /** Opens the node's form; none: the node only shows. */
  open: (() => void) | null;
  panelId: string | null;
};
export type FlowNodeType = Node<FlowNodeData, 'flow'>;

export type FlowEdgeData = {
  points: Point[];
  labelAt: Point;
  label: string;
  onPath: boolean;
  /** Adds a step on this edge, and what its button says to assistive tech; none: read-only. */
  add: (() => void) | null;
  addLabel: string;
};
export type FlowEdgeType = Edge<FlowEdgeData, 'flow'>;

const hidden = { isConnectable: false, className: 'wf-handle' } as const;

export function FlowNodeView({ id, data }: NodeProps<FlowNodeType>) {
  if (data.kind === 'end' || data.kind === 'unset') {
    return (
      <div
        className={`wf-terminal wf-terminal-${data.kind}`}
        data-testid={`wf-terminal-${data.kind}`}
      >
        <Handle type="target" position={Position.Top} {...hidden} />
        {data.title}
      </div>
    );
  }
  const className = [
    'wf-node',
    `wf-node-${data.kind}`,
    data.problems.length > 0 ? 'has-problems' : '',
    data.selected ? 'is-selected' : '',
    data.reached ? '' : 'is-unreached',
    data.onPath ? 'on-path' : '',
    data.current ? 'is-current' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const body = (
    <>
      <span className="wf-node-head">
        {data.number ? (
          <span className="wf-node-number">
            <span className="visually-hidden">Step </span>
            {data.number}
          </span>
        ) : null}
        <span className="wf-node-title" title={data.title}>
          {data.number ? <span className="visually-hidden">: </span> : null}
          {data.title}
        </span>
        {data.problems.length > 0 ? (
          <span className="wf-node-badge" data-testid="wf-node-badge">
            <span aria-hidden="true">{data.problems.length}</span>
            <span className="visually-hidden">
              {data.problems.length === 1 ? ', 1 problem' : `, ${data.problems.length} problems`}
            </span>
          </span>
        ) : null}
      </span>
      <span className={data.problems[0] ? 'wf-node-problem' : 'wf-node-summary'}>
        <span className="visually-hidden">: </span>
        {data.problems[0] ?? data.summary}
      </span>
      {data.reached ? null : <span className="wf-node-note">Nothing leads here</span>}
      {data.current ? <span className="visually-hidden"> (the run is here)</span> : null}
    </>
  );
  // The same node, a button when it opens a form (the builder), else only shown (a run's path).
  const shown = {
    className,
    'aria-current': data.current ? ('step' as const) : undefined,
    'data-flow-node': id,
    'data-testid': 'wf-node',
    'data-kind': data.kind,
    'data-step-type': data.stepType ?? undefined,
  };
  return (
    <>
      <Handle type="target" position={Position.Top} {...hidden} />
      {data.open ? (
        <button
          type="button"
          {...shown}
          onClick={data.open}
          aria-expanded={data.selected}
          aria-controls={data.selected && data.panelId ? data.panelId : undefined}
        >
          {body}
        </button>
      ) : (
        <div {...shown}>{body}</div>
      )}
      <Handle type="source" position={Position.Bottom} {...hidden} />
    </>
  );
}

/** A smooth line through dagre's route: straight ends, quadratic bends at its inner points. */
export function routePath(points: readonly Point[]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M ${first.x} ${first.y}`;
  rest.forEach((p, i) => {
    const after = rest[i + 1];
    d += after
      ? ` Q ${p.x} ${p.y} ${(p.x + after.x) / 2} ${(p.y + after.y) / 2}`
      : ` L ${p.x} ${p.y}`;
  });
  return d;
}

export function FlowEdgeView({ id, data, markerEnd }: EdgeProps<FlowEdgeType>) {
  if (!data) return null;
  return (
    <>
      <BaseEdge
        id={id}
        path={routePath(data.points)}
        markerEnd={markerEnd}
        className={data.onPath ? 'wf-edge on-path' : 'wf-edge'}
      />
      {data.label || data.add ? (
        <EdgeLabelRenderer>
          <div
            className={`wf-edge-label nodrag nopan${data.onPath ? ' on-path' : ''}`}
            style={{
              transform: `translate(-50%, -50%) translate(${data.labelAt.x}px, ${data.labelAt.y}px)`,
            }}
            data-testid="wf-edge"
            data-edge-id={id}
          >
            {data.label ? <span className="wf-edge-text">{data.label}</span> : null}
            {data.add ? (
              <button
                type="button"
                className="wf-edge-add"
                tabIndex={-1}
                aria-label={data.addLabel}
                title={data.addLabel}
                onClick={data.add}
                data-flow-edge={id}
                data-testid="wf-edge-add"
              >
                +
              </button>
            ) : null}
          </div>
        </EdgeLabelRenderer>
      ) : null}
    </>
  );
}
