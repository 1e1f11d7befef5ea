import { Fragment, type ReactNode } from 'react';
import { api } from '../../api/client.ts';
import { RecordLoader } from '../../components/record-loader.tsx';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { useSession } from '../../stores/session.ts';
import type { Workflow } from '../../stores/workflows.ts';
import { WorkflowBuilder } from './workflow-builder.tsx';
import { WorkflowList } from './workflow-list.tsx';
import { RunHistory, RunTimeline } from './workflow-runs.tsx';
import './workflows.css';

type View =
  | { kind: 'list' }
  | { kind: 'builder'; id: string | null }
  | { kind: 'runs'; id: string }
  | { kind: 'run'; id: string; runId: string };

/** `#/workflows`, `/new`, `/<id>` (its builder), `/<id>/runs` and `/<id>/runs/<runId>`. */
function viewOf(subPath: string | null): View {
  if (!subPath) return { kind: 'list' };
  if (subPath === 'new') return { kind: 'builder', id: null };
  const [id = subPath, page, runId] = subPath.split('/');
  if (page === 'runs' && runId) return { kind: 'run', id, runId };
  if (page === 'runs') return { kind: 'runs', id };
  return { kind: 'builder', id };
}

/** Reads a workflow, then shows the page about it. */
function WithWorkflow({
  id,
  children,
}: {
  id: string;
  children: (workflow: Workflow) => ReactNode;
}) {
  return (
    <RecordLoader
      load={() => api.workflows.get(id)}
      back={{ href: hrefFor('workflows'), label: '← Workflows' }}
      title="Workflow"
      loadingText="Loading the workflow…"
      failedText="The workflow could not be opened."
      testId="wf-loading"
    >
      {children}
    </RecordLoader>
  );
}

function WorkflowsView({ view }: { view: View }) {
  switch (view.kind) {
    case 'list':
      return <WorkflowList />;
    case 'builder':
      return view.id === null ? (
        <WorkflowBuilder workflow={null} />
      ) : (
        <WithWorkflow id={view.id}>{(w) => <WorkflowBuilder workflow={w} />}</WithWorkflow>
      );
    case 'runs':
      return <WithWorkflow id={view.id}>{(w) => <RunHistory workflow={w} />}</WithWorkflow>;
    case 'run':
      return (
        <WithWorkflow id={view.id}>
          {(w) => <RunTimeline workflow={w} runId={view.runId} />}
        </WithWorkflow>
      );
  }
}

const viewKey = (view: View): string =>
  view.kind === 'list'
    ? 'list'
    : view.kind === 'run'
      ? `run:${view.id}:${view.runId}`
      : `${view.kind}:${view.id ?? 'new'}`;

export function WorkflowsScreen() {
  const subPath = useRoute((s) => s.subPath);
  // A mode or workspace switch starts the screen afresh: the workflow open belongs to the old scope.
  const scope = useSession((s) => `${s.environment}:${s.workspaceId ?? ''}`);
  const view = viewOf(subPath);
  return (
    <Fragment key={`${scope}:${viewKey(view)}`}>
      <WorkflowsView view={view} />
    </Fragment>
  );
}
