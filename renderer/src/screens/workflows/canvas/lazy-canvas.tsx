/**
 * The canvas as the screens use it: its libraries (React Flow, dagre) load with the first
 * workflow opened, not with the app.
 */
import { lazy, Suspense } from 'react';
import type { WorkflowCanvasProps } from './workflow-canvas.tsx';

export type { CanvasHighlight, WorkflowCanvasProps } from './workflow-canvas.tsx';

const Canvas = lazy(() =>
  import('./workflow-canvas.tsx').then((m) => ({ default: m.WorkflowCanvas })),
);

export function LazyWorkflowCanvas(props: WorkflowCanvasProps) {
  return (
    <Suspense
      fallback={
        <div className="wf-canvas-loading" data-testid="wf-canvas-loading">
          Drawing the flow…
        </div>
      }
    >
      <Canvas {...props} />
    </Suspense>
  );
}
