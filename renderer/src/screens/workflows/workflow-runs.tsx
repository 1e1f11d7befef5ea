import { useEffect, useState } from 'react';
import { RUN_STATUSES } from '../../../../shared/workflow-rules.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FilterToolbar } from '../../components/filter-toolbar.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { PagedTable, type Column } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { hrefFor } from '../../stores/route.ts';
import { selectIsTestMode, useSession } from '../../stores/session.ts';
import {
  RUN_STATUS_LABELS,
  useWorkflowRun,
  useWorkflowRuns,
  type RunStatusFilter,
  type WorkflowRun,
} from '../../stores/workflow-runs.ts';
import type { Workflow } from '../../stores/workflows.ts';
import { outcomeDetail, quietRuleWords, runContact, triggerWords } from './run-format.ts';
import { RunOnCanvas } from './run-on-canvas.tsx';
import { RunOutcomeChip } from './run-status.tsx';
import { RunStepItem } from './run-steps.tsx';
import { PlayCustomer, TestRunDialog } from './test-run-dialog.tsx';
import { WorkflowStatusChip } from './workflow-status.tsx';
import { useRightGate } from '../../components/needs-right.tsx';

const FILTERS: readonly RunStatusFilter[] = ['', ...RUN_STATUSES];
const COLUMNS: Column[] = ['Contact', 'Outcome', 'Now at', 'Version', 'Started', 'Ended'];

const runHref = (run: Pick<WorkflowRun, 'id' | 'workflowId'>) =>
  hrefFor('workflows', `${run.workflowId}/runs/${run.id}`);

function TestRunButton({ workflow }: { workflow: Workflow }) {
  const [open, setOpen] = useState(false);
  const { gate } = useRightGate('automation.write');
  const testable = workflow.status === 'active' || workflow.status === 'draft';
  return (
    <>
      <button
        type="button"
        className="button button-primary"
        {...gate}
        onClick={() => setOpen(true)}
        disabled={!testable || gate.disabled}
        title={
          gate.title ??
          (testable ? undefined : 'Only an active workflow, or a draft, starts a test run.')
        }
        data-testid="wf-test-run"
      >
        Test run
      </button>
      {open ? <TestRunDialog workflow={workflow} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

const eyebrow = (workflow: Workflow) => (
  <>
    <a href={hrefFor('workflows')} className="link-button">
      ← Workflows
    </a>{' '}
    ·{' '}
    <a href={hrefFor('workflows', workflow.id)} className="link-button">
      Edit “{workflow.name}”
    </a>
  </>
);

/** A workflow's runs, filtered by status, live from the event stream. */
export function RunHistory({ workflow }: { workflow: Workflow }) {
  const runs = useWorkflowRuns((s) => s.runs);
  const status = useWorkflowRuns((s) => s.status);
  const error = useWorkflowRuns((s) => s.error);
  const filter = useWorkflowRuns((s) => s.statusFilter);
  const setFilter = useWorkflowRuns((s) => s.setStatusFilter);
  const load = useWorkflowRuns((s) => s.load);
  const loadMore = useWorkflowRuns((s) => s.loadMore);
  const nextCursor = useWorkflowRuns((s) => s.nextCursor);
  const loadingMore = useWorkflowRuns((s) => s.loadingMore);
  const show = useWorkflowRuns((s) => s.show);
  const shownFor = useWorkflowRuns((s) => s.workflowId);

  useEffect(() => show(workflow.id), [show, workflow.id]);
  useLoadWhenIdle(shownFor === workflow.id ? status : 'loading', load);
  const loading = status === 'idle' || status === 'loading';
  const quiet = quietRuleWords(workflow.trigger);

  return (
    <div className="screen" data-testid="wf-runs" data-workflow-id={workflow.id}>
      <PageHeader
        eyebrow={eyebrow(workflow)}
        title={`Runs of ${workflow.name}`}
        description={
          <>
            Started {triggerWords(workflow.trigger)}. Version {workflow.version}{' '}
            <WorkflowStatusChip status={workflow.status} />
            {quiet ? (
              <span className="wf-runs-quiet" data-testid="wf-runs-quiet-rule">
                {quiet}
              </span>
            ) : null}
          </>
        }
        actions={<TestRunButton workflow={workflow} />}
      />
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
      <section className="card card-flush" aria-label="Runs">
        <FilterToolbar
          label="Filter by status"
          options={FILTERS}
          value={filter}
          onChange={setFilter}
          labels={RUN_STATUS_LABELS}
          testId={(value) => `wf-run-filter-${value || 'all'}`}
        >
          {loading
            ? 'Loading…'
            : `${runs.length}${nextCursor ? '+' : ''} run${runs.length === 1 ? '' : 's'}`}
        </FilterToolbar>
        <PagedTable
          hasRows={runs.length > 0}
          emptyTestId="wf-runs-none"
          empty={
            loading
              ? 'Loading runs…'
              : filter
                ? `No ${RUN_STATUS_LABELS[filter].toLowerCase()} runs.`
                : 'No runs yet: they appear here as they start.'
          }
          testId="wf-runs-table"
          columns={COLUMNS}
          nextCursor={nextCursor}
          loadingMore={loadingMore}
          loadMore={loadMore}
        >
          {runs.map((run) => (
            <tr key={run.id} data-testid="wf-run-row" data-run-id={run.id}>
              <td>
                <span className="run-contact">
                  <a href={runHref(run)} className="cell-strong" data-testid="wf-run-link">
                    {runContact(run)}
                  </a>
                  {runContact(run) === run.phone ? null : (
                    <span className="muted mono">{run.phone}</span>
                  )}
                </span>
              </td>
              <td>
                <RunOutcomeChip run={run} />
              </td>
              <td className="mono">{run.currentStepId ?? '—'}</td>
              <td className="num">{run.version}</td>
              <td className="nowrap muted">{formatDateTime(run.createdAt)}</td>
              <td className="nowrap muted">{formatDateTime(run.endedAt)}</td>
            </tr>
          ))}
        </PagedTable>
      </section>
    </div>
  );
}

const RUN_CANVAS_ID = 'run-canvas';

/** One run's steps in order, with times and readable results; followed live; cancellable. */
export function RunTimeline({ workflow, runId }: { workflow: Workflow; runId: string }) {
  const run = useWorkflowRun((s) => s.run);
  const status = useWorkflowRun((s) => s.status);
  const error = useWorkflowRun((s) => s.error);
  const open = useWorkflowRun((s) => s.open);
  const close = useWorkflowRun((s) => s.close);
  const reload = useWorkflowRun((s) => s.reload);
  const cancel = useWorkflowRun((s) => s.cancel);
  const openId = useWorkflowRun((s) => s.runId);
  const testMode = useSession(selectIsTestMode);
  const [confirming, setConfirming] = useState(false);
  const [onCanvas, setOnCanvas] = useState(false);
  const { gate } = useRightGate('automation.write');

  useEffect(() => {
    if (openId !== runId) open(runId);
  }, [runId, openId, open]);
  useEffect(() => () => close(), [close]);

  const shown = run && run.id === runId ? run : null;
  const inFlight = shown?.status === 'running' || shown?.status === 'waiting';
  const who = shown ? runContact(shown) : null;
  const detail = shown && !inFlight ? outcomeDetail(shown, shown.steps) : null;

  return (
    <div
      className="screen"
      aria-busy={!shown && status !== 'error'}
      data-testid="wf-run"
      data-run-id={runId}
    >
      <PageHeader
        eyebrow={
          <>
            {eyebrow(workflow)} ·{' '}
            <a href={hrefFor('workflows', `${workflow.id}/runs`)} className="link-button">
              All runs
            </a>
          </>
        }
        title={who ? `Run for ${who}` : 'Run'}
        titleClassName="title-with-badge"
        description={
          shown ? (
            <>
              <span className="run-outcome-line">
                <RunOutcomeChip run={shown} />
                {detail ? <span data-testid="run-outcome-text">— {detail}</span> : null}
              </span>{' '}
              · {who === shown.phone ? '' : `${shown.phone} · `}version {shown.version} · started{' '}
              {formatDateTime(shown.createdAt)} {triggerWords(shown.trigger)}
              {shown.endedAt ? ` · ended ${formatDateTime(shown.endedAt)}` : ''}
            </>
          ) : (
            'Loading the run…'
          )
        }
        actions={
          shown ? (
            <>
              <button
                type="button"
                className="button"
                aria-expanded={onCanvas}
                aria-controls={RUN_CANVAS_ID}
                onClick={() => setOnCanvas((v) => !v)}
                data-testid="run-show-canvas"
              >
                {onCanvas ? 'Hide the canvas' : 'Show on canvas'}
              </button>
              {inFlight ? (
                <button
                  type="button"
                  className="button button-danger-ghost"
                  {...gate}
                  onClick={() => setConfirming(true)}
                  data-testid="wf-run-cancel"
                >
                  Cancel run
                </button>
              ) : null}
            </>
          ) : null
        }
      />
      {status === 'error' && error ? (
        <ErrorBanner message={error} onRetry={() => void reload()} />
      ) : null}
      {shown ? (
        <div className="run-layout">
          {shown.error ? (
            <div className="banner banner-error" role="note" data-testid="wf-run-error">
              {shown.error}
            </div>
          ) : null}
          {testMode && inFlight ? <PlayCustomer workflow={workflow} run={shown} /> : null}
          {onCanvas ? <RunOnCanvas workflow={workflow} run={shown} id={RUN_CANVAS_ID} /> : null}
          <ol className="wf-timeline" aria-label="Steps of the run" data-testid="wf-timeline">
            {shown.steps.map((step, i) => (
              <RunStepItem key={`${step.stepId}-${i}`} step={step} />
            ))}
          </ol>
          {Object.keys(shown.payload).length > 0 ? (
            <details className="card wf-payload">
              <summary>Payload</summary>
              <pre className="wf-json">{JSON.stringify(shown.payload, null, 2)}</pre>
            </details>
          ) : null}
          {inFlight ? (
            <p className="hint" aria-live="polite">
              {shown.status === 'waiting' ? 'Waiting' : 'Running'}: new steps appear here as they
              happen.
            </p>
          ) : null}
        </div>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title="Cancel this run?"
          onClose={() => setConfirming(false)}
          onConfirm={cancel}
          doneMessage="Cancelled the run."
          confirmLabel="Cancel run"
          busyLabel="Cancelling…"
          testId="wf-cancel-dialog"
          confirmTestId="wf-cancel-confirm"
        >
          It stops where it is: no further step runs for {who ?? 'this contact'}. Messages already
          sent stay sent.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
