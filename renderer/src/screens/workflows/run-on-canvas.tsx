import { useEffect, useMemo, useState } from 'react';
import type { WorkflowTrigger } from '../../../../shared/workflow-rules.ts';
import { api, errorMessage, type WorkflowRunDetail } from '../../api/client.ts';
import type { Workflow } from '../../stores/workflows.ts';
import { LazyWorkflowCanvas } from './canvas/lazy-canvas.tsx';
import { runPath } from './run-format.ts';
import { draftFromDefinition } from './workflow-definition.ts';

interface Definition {
  name: string;
  trigger: WorkflowTrigger;
  steps: readonly unknown[];
}

/**
 * The definition the run follows: its own version's (a run finishes on the version it started
 * with), read from the workflow's versions when it is not the one the workflow runs now.
 */
function useRunDefinition(
  workflow: Workflow,
  version: number,
): { definition: Definition | null; error: string | null } {
  const current = version === workflow.version || workflow.status === 'draft';
  const [read, setRead] = useState<{
    key: string;
    definition: Definition | null;
    error: string | null;
  } | null>(null);
  const key = `${workflow.id}:${version}`;
  useEffect(() => {
    if (current) return;
    let live = true;
    api.workflows.versions(workflow.id).then(
      ({ data }) => {
        const found = data.find((v) => v.version === version) ?? null;
        if (live) {
          setRead({
            key,
            definition: found,
            error: found ? null : `Version ${version} is no longer on record.`,
          });
        }
      },
      (e: unknown) => live && setRead({ key, definition: null, error: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [current, workflow.id, version, key]);
  if (current) return { definition: workflow, error: null };
  return read?.key === key ? read : { definition: null, error: null };
}

/** The run's path drawn on its workflow's flow chart: the steps it went through, and where it is. */
export function RunOnCanvas({
  workflow,
  run,
  id,
}: {
  workflow: Workflow;
  run: WorkflowRunDetail;
  id: string;
}) {
  const { definition, error } = useRunDefinition(workflow, run.version);
  const draft = useMemo(() => (definition ? draftFromDefinition(definition) : null), [definition]);
  const { status, currentStepId } = run;
  const stepKey = run.steps.map((s) => s.stepId).join('\n');
  const highlight = useMemo(
    () =>
      runPath({
        status,
        currentStepId,
        steps: stepKey ? stepKey.split('\n').map((stepId) => ({ stepId })) : [],
      }),
    [status, currentStepId, stepKey],
  );
  return (
    <section
      id={id}
      className="run-canvas"
      aria-label={`The run’s path on version ${run.version} of the flow`}
      data-testid="run-canvas"
      data-path={highlight.stepIds.join(' ')}
      data-current={highlight.current}
    >
      {draft ? (
        <LazyWorkflowCanvas
          draft={draft}
          highlight={highlight}
          label={`The flow, with the run’s path: ${highlight.stepIds.join(' → ') || 'no step yet'}`}
        />
      ) : (
        <p className="hint run-canvas-note" role={error ? 'alert' : undefined}>
          {error ?? 'Loading the flow…'}
        </p>
      )}
    </section>
  );
}
