/**
 * A workflow drawn as a graph (README "Workflows", the builder): the trigger on top, each step a
 * node, each path an edge labelled in words, laid out top to bottom by dagre and drawn by React
 * Flow. The builder edits through it (a node opens its form, a "+" adds a step on an edge); the
 * run history shows a run's path on it (`highlight`). Keys: Tab goes from step to step in the
 * flow's order, Enter opens one, ↓ and ↑ follow the paths (through each edge's "+"), ← and →
 * move along a row, Delete removes a step.
 */
import {
  Controls,
  MarkerType,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type EdgeTypes,
  type NodeTypes,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { stepLabel } from '../../../../../shared/workflow-steps/index.ts';
import type { WorkflowProblem, WorkflowDraft } from '../workflow-draft.ts';
import type { PathRef } from './flow-edits.ts';
import {
  flowGraph,
  pathEdges,
  problemsByNode,
  TRIGGER_NODE,
  type FlowEdge,
  type FlowGraph,
} from './flow-graph.ts';
import {
  FlowEdgeView,
  FlowNodeView,
  type FlowEdgeType,
  type FlowNodeData,
  type FlowNodeType,
} from './flow-views.tsx';
import { stepSummary, triggerSummary, triggerTitle, type Names } from './flow-words.ts';
import { layoutOf, NODE_SIZE, type FlowLayout } from './layout.ts';
import './canvas.css';

/** A run's path to show: the steps it went through, in order, and where it is now. */
export interface CanvasHighlight {
  stepIds: readonly string[];
  current?: string;
}

export interface WorkflowCanvasProps {
  draft: WorkflowDraft;
  /** The problems to show on their nodes (the rules', the core's), by the API's params. */
  problems?: readonly WorkflowProblem[];
  /** The node whose form is open: TRIGGER_NODE or a step's key. */
  selected?: string | null;
  /** A node was opened (click, Enter); none: nodes only show. */
  onSelect?: (nodeId: string) => void;
  /** "+" on an edge: `where` says which path, in words ("after Step 2 · Wait, Replied"). */
  onAdd?: (at: PathRef, where: string) => void;
  /** Delete on a step. */
  onRemove?: (key: string) => void;
  highlight?: CanvasHighlight;
  /** Ids and names of lists and members the steps name. */
  names?: Names;
  /** The region's name for assistive tech. */
  label?: string;
  /** The id of the panel a node's form opens in (aria-controls). */
  panelId?: string;
}

// React Flow lets a node take clicks only when it has a click handler: the node's button opens it.
const opensByItsButton = () => undefined;
const NODE_TYPES: NodeTypes = { flow: FlowNodeView };
const EDGE_TYPES: EdgeTypes = { flow: FlowEdgeView };
const MARKER = { type: MarkerType.ArrowClosed, width: 16, height: 16, color: '#98a2b3' };
const MARKER_ON_PATH = { ...MARKER, color: '#2f5bea' };

export function WorkflowCanvas(props: WorkflowCanvasProps) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}

/** A node's name in sentences: "Step 2 · Wait for a reply", "the trigger". */
function nodeName(draft: WorkflowDraft, graph: FlowGraph, id: string): string {
  if (id === TRIGGER_NODE) return 'the trigger';
  const node = graph.nodes.find((n) => n.id === id);
  if (node?.index === undefined) return node?.kind === 'end' ? 'the end' : 'an unset path';
  return `Step ${node.index + 1} · ${stepLabel(draft.steps[node.index]!.type)}`;
}

/** Where an edge is, in words: "after Step 2 · Wait for a reply (Replied)". */
function edgeWords(draft: WorkflowDraft, graph: FlowGraph, edge: FlowEdge): string {
  const from = nodeName(draft, graph, edge.source);
  const to = graph.nodes.find((n) => n.id === edge.target);
  const onward = to?.kind === 'step' ? `, before ${nodeName(draft, graph, edge.target)}` : '';
  return `after ${from}${edge.label ? ` (${edge.label})` : ''}${onward}`;
}

function Canvas({
  draft,
  problems = [],
  selected = null,
  onSelect,
  onAdd,
  onRemove,
  highlight,
  names,
  label = 'The workflow as a flow chart',
  panelId,
}: WorkflowCanvasProps) {
  const flow = useReactFlow<FlowNodeType, FlowEdgeType>();
  const wrapper = useRef<HTMLDivElement>(null);
  const graph = useMemo(() => flowGraph(draft), [draft]);
  const laid: FlowLayout = useMemo(() => layoutOf(graph), [graph]);
  const byNode = useMemo(() => problemsByNode(draft.steps, problems), [draft.steps, problems]);
  const onPath = useMemo(
    () => (highlight ? pathEdges(graph, draft.steps, highlight.stepIds) : new Set<string>()),
    [graph, draft.steps, highlight],
  );

  const pathIds = highlight?.stepIds;
  const currentId = highlight?.current;
  const nodes: FlowNodeType[] = useMemo(() => {
    const idsOnPath = new Set(pathIds ?? []);
    return graph.nodes.map((node) => {
      const step = node.index !== undefined ? draft.steps[node.index] : undefined;
      const size = NODE_SIZE[node.kind];
      const data: FlowNodeData = {
        kind: node.kind,
        number: node.index !== undefined ? String(node.index + 1) : null,
        title:
          node.kind === 'trigger'
            ? `When: ${triggerTitle(draft.trigger)}`
            : node.kind === 'end'
              ? 'End'
              : node.kind === 'unset'
                ? 'Not connected'
                : stepLabel(step!.type),
        summary:
          node.kind === 'trigger'
            ? triggerSummary(draft.trigger, names)
            : step
              ? stepSummary(step, names)
              : '',
        problems: (byNode.get(node.id) ?? []).map((p) => p.message),
        reached: node.reached,
        selected: selected === node.id,
        onPath: node.kind === 'trigger' ? idsOnPath.size > 0 : !!step && idsOnPath.has(step.id),
        current: !!step && currentId === step.id,
        stepType: step?.type ?? null,
        open: onSelect && (node.kind === 'trigger' || step) ? () => onSelect(node.id) : null,
        panelId: panelId ?? null,
      };
      return {
        id: node.id,
        type: 'flow',
        position: laid.nodes.get(node.id) ?? { x: 0, y: 0 },
        width: size.width,
        height: size.height,
        data,
        draggable: false,
        selectable: false,
        connectable: false,
        ariaRole: 'group',
        ariaLabel: node.kind === 'step' || node.kind === 'trigger' ? undefined : data.title,
      };
    });
  }, [graph, laid, draft, byNode, selected, onSelect, pathIds, currentId, names, panelId]);

  const edges: FlowEdgeType[] = useMemo(
    () =>
      graph.edges.map((edge) => {
        const route = laid.edges.get(edge.id);
        const words = edgeWords(draft, graph, edge);
        const on = onPath.has(edge.id);
        return {
          id: edge.id,
          source: edge.source,
          target: edge.target,
          type: 'flow',
          markerEnd: on ? MARKER_ON_PATH : MARKER,
          selectable: false,
          focusable: false,
          ariaLabel: `Path ${words}`,
          data: {
            points: route?.points ?? [],
            labelAt: route?.label ?? { x: 0, y: 0 },
            label: edge.label,
            onPath: on,
            add: onAdd ? () => onAdd(edge.from, words) : null,
            addLabel: `Add a step ${words}`,
          },
        };
      }),
    [graph, laid, draft, onAdd, onPath],
  );

  // The flow is shown whole when it fits at 60 % or more, else from its top at 60 %: a long flow
  // scrolls like a page (the wheel pans; Ctrl + wheel or the buttons zoom).
  const pane = () => wrapper.current?.querySelector('.react-flow');
  const fitTop = () => {
    const box = pane();
    if (!box) return;
    const zoom = Math.max(
      0.6,
      Math.min(1, (box.clientWidth - 24) / laid.width, (box.clientHeight - 16) / laid.height),
    );
    const tall = laid.height * zoom > box.clientHeight;
    void flow.setViewport({
      x: (box.clientWidth - laid.width * zoom) / 2,
      y: tall ? 8 : (box.clientHeight - laid.height * zoom) / 2,
      zoom,
    });
  };
  const fitRef = useRef(fitTop);
  useEffect(() => {
    fitRef.current = fitTop;
  });
  useEffect(() => {
    const frame = window.requestAnimationFrame(() => fitRef.current());
    return () => window.cancelAnimationFrame(frame);
  }, []);

  /** Pans (at the same zoom) so a node is on screen: one just added, one just opened. */
  const showNode = (id: string) => {
    const at = laid.nodes.get(id);
    const node = graph.nodes.find((n) => n.id === id);
    const box = pane();
    if (!at || !node || !box) return;
    const { x, y, zoom } = flow.getViewport();
    const size = NODE_SIZE[node.kind];
    // A panel laid over the canvas (a narrow window) hides its right part.
    const bounds = box.getBoundingClientRect();
    const cover = panelId ? document.getElementById(panelId)?.getBoundingClientRect() : undefined;
    const covered =
      cover && cover.width > 0 && cover.left < bounds.right && cover.left > bounds.left
        ? bounds.right - cover.left
        : 0;
    const width = box.clientWidth - covered;
    const left = at.x * zoom + x;
    const top = at.y * zoom + y;
    const visible =
      left >= 0 &&
      top >= 0 &&
      left + size.width * zoom <= width &&
      top + size.height * zoom <= box.clientHeight;
    if (!visible) {
      void flow.setCenter(at.x + size.width / 2 + covered / 2 / zoom, at.y + size.height / 2, {
        zoom,
        duration: 150,
      });
    }
  };
  const showRef = useRef(showNode);
  useEffect(() => {
    showRef.current = showNode;
  });
  useEffect(() => {
    if (!selected) return;
    const frame = window.requestAnimationFrame(() => showRef.current(selected));
    return () => window.cancelAnimationFrame(frame);
  }, [selected, graph.nodes.length]);

  /** Brings a node or edge button into view when focus reaches it off screen. */
  const reveal = (element: HTMLElement) => {
    const box = wrapper.current?.getBoundingClientRect();
    const at = element.getBoundingClientRect();
    if (!box) return;
    const inside =
      at.left >= box.left && at.right <= box.right && at.top >= box.top && at.bottom <= box.bottom;
    if (inside) return;
    const id = element.dataset.flowNode;
    const edgeId = element.dataset.flowEdge;
    const point = id
      ? (() => {
          const p = laid.nodes.get(id)!;
          const node = graph.nodes.find((n) => n.id === id)!;
          return {
            x: p.x + NODE_SIZE[node.kind].width / 2,
            y: p.y + NODE_SIZE[node.kind].height / 2,
          };
        })()
      : edgeId
        ? laid.edges.get(edgeId)?.label
        : undefined;
    if (point) void flow.setCenter(point.x, point.y, { zoom: flow.getZoom(), duration: 150 });
  };

  const focusTarget = (selector: string) => {
    const target = wrapper.current?.querySelector<HTMLElement>(selector);
    if (!target) return false;
    target.focus();
    return true;
  };
  const nodeSelector = (id: string) => `[data-flow-node="${CSS.escape(id)}"]`;
  const edgeSelector = (id: string) => `[data-flow-edge="${CSS.escape(id)}"]`;

  /** ↓ ↑ follow the paths (a node → its first edge's "+" → the next node), ← → move along a row. */
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const element = event.target as HTMLElement;
    const nodeId = element.dataset.flowNode;
    const edgeId = element.dataset.flowEdge;
    if (!nodeId && !edgeId) return;
    const move = (candidates: string[]) => candidates.some((selector) => focusTarget(selector));
    const out = (id: string) => graph.edges.filter((e) => e.source === id);
    const into = (id: string) => graph.edges.filter((e) => e.target === id);
    let moved = false;
    if (nodeId) {
      const row = graph.nodes
        .filter((n) => laid.nodes.get(n.id)?.y === laid.nodes.get(nodeId)?.y)
        .sort((a, b) => laid.nodes.get(a.id)!.x - laid.nodes.get(b.id)!.x)
        .map((n) => n.id);
      const at = row.indexOf(nodeId);
      switch (event.key) {
        case 'ArrowDown':
          moved = move(out(nodeId).flatMap((e) => [edgeSelector(e.id), nodeSelector(e.target)]));
          break;
        case 'ArrowUp':
          moved = move(into(nodeId).flatMap((e) => [edgeSelector(e.id), nodeSelector(e.source)]));
          break;
        case 'ArrowLeft':
          moved = move(row.slice(0, at).reverse().map(nodeSelector));
          break;
        case 'ArrowRight':
          moved = move(row.slice(at + 1).map(nodeSelector));
          break;
        case 'Delete':
        case 'Backspace':
          if (onRemove && nodeId !== TRIGGER_NODE && draft.steps.some((s) => s.key === nodeId)) {
            onRemove(nodeId);
            moved = true;
          }
          break;
      }
    } else if (edgeId) {
      const edge = graph.edges.find((e) => e.id === edgeId)!;
      const siblings = out(edge.source).map((e) => e.id);
      const at = siblings.indexOf(edgeId);
      switch (event.key) {
        case 'ArrowDown':
          moved = move([nodeSelector(edge.target)]);
          break;
        case 'ArrowUp':
          moved = move([nodeSelector(edge.source)]);
          break;
        case 'ArrowLeft':
          moved = move(siblings.slice(0, at).reverse().map(edgeSelector));
          break;
        case 'ArrowRight':
          moved = move(siblings.slice(at + 1).map(edgeSelector));
          break;
      }
    }
    if (moved) event.preventDefault();
  };

  return (
    <div
      className="wf-canvas"
      ref={wrapper}
      role="region"
      aria-label={label}
      aria-describedby={onSelect ? 'wf-canvas-keys' : undefined}
      onKeyDown={onKeyDown}
      onFocus={(event) => reveal(event.target)}
      data-testid="wf-canvas"
    >
      <ReactFlow<FlowNodeType, FlowEdgeType>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        edgeTypes={EDGE_TYPES}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        disableKeyboardA11y
        deleteKeyCode={null}
        selectionKeyCode={null}
        multiSelectionKeyCode={null}
        zoomOnDoubleClick={false}
        onNodeClick={opensByItsButton}
        panOnScroll
        zoomOnScroll={false}
        zoomActivationKeyCode={['Control', 'Meta']}
        minZoom={0.25}
        maxZoom={1.5}
        fitViewOptions={{ padding: 0.12, maxZoom: 1 }}
        proOptions={{ hideAttribution: true }}
      >
        <Controls showInteractive={false} position="bottom-left" />
      </ReactFlow>
      {onSelect ? (
        <p id="wf-canvas-keys" className="wf-canvas-keys">
          Tab: next step · Enter: edit it · ↓ ↑: follow its paths (Enter on + adds a step) · Delete:
          remove it
        </p>
      ) : null}
    </div>
  );
}
