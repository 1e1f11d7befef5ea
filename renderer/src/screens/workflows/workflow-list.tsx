import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PlusIcon } from '../../components/icons.tsx';
import { ListIntro } from '../../components/list-intro.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { PagedTable, type Column } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { useWorkflows, type Workflow } from '../../stores/workflows.ts';
import { triggerSummary, triggerTitle } from './canvas/flow-words.ts';
import { triggerDraftOf } from './workflow-definition.ts';
import { StatusActions, WorkflowStatusChip } from './workflow-status.tsx';
import { ReadOnlyNote, useRightGate } from '../../components/needs-right.tsx';

function Intro({ onCreate }: { onCreate: () => void }) {
  return (
    <ListIntro
      right="automation.write"
      title="Follow up with customers automatically"
      createLabel="Build your first workflow"
      onCreate={onCreate}
      testId="workflows-empty"
      createTestId="workflows-create-first"
    >
      <p>
        A workflow runs a few steps for one customer when they write to you (say “order”, or outside
        your business hours) or when something happens in your shop — a cart is abandoned, an order
        ships: send an approved <a href={hrefFor('templates')}>template</a>, wait for their reply,
        branch on what they said, label the conversation in the <a href={hrefFor('inbox')}>inbox</a>
        , hand it to a person, call your server.
      </p>
      <p>
        You draw it as a flow and save it as a draft; it runs once you activate it. Your shop can
        also start one with <code>POST /api/events</code>, and a test run follows each step live.
      </p>
    </ListIntro>
  );
}

/** What starts a workflow, in a few words: its event's name, "A customer writes: Says “order”". */
export function triggerText(workflow: Pick<Workflow, 'trigger'>): string {
  const { trigger } = workflow;
  if (trigger.type === 'event') return trigger.event;
  const draft = triggerDraftOf(trigger);
  return trigger.type === 'message_received'
    ? `${triggerTitle(draft)}: ${triggerSummary(draft)}`
    : triggerTitle(draft);
}

const COLUMNS: Column[] = [
  'Name',
  'Trigger',
  'Status',
  { label: 'Running', className: 'num' },
  { label: 'Waiting', className: 'num' },
  { label: 'Version', className: 'num' },
  'Updated',
];

/** The workflows: what starts each, its state, its runs in flight, and its controls. */
export function WorkflowList() {
  const workflows = useWorkflows((s) => s.workflows);
  const status = useWorkflows((s) => s.status);
  const error = useWorkflows((s) => s.error);
  const load = useWorkflows((s) => s.load);
  const nextCursor = useWorkflows((s) => s.nextCursor);
  const loadingMore = useWorkflows((s) => s.loadingMore);
  const loadMore = useWorkflows((s) => s.loadMore);
  const navigate = useRoute((s) => s.navigate);
  const { gate } = useRightGate('automation.write');

  useLoadWhenIdle(status, load);

  const loading = status === 'idle' || status === 'loading';
  const nothingYet = !loading && status !== 'error' && workflows.length === 0;
  const create = () => navigate('workflows', 'new');

  return (
    <div className="screen" data-testid="screen-workflows">
      <PageHeader
        title="Workflows"
        description="Automatic replies and follow-ups: steps that run for a customer when they write, when an event arrives, or when you start them — every run's steps shown live."
        actions={
          <button
            type="button"
            className="button button-primary"
            {...gate}
            onClick={create}
            data-testid="workflow-new"
          >
            <PlusIcon />
            New workflow
          </button>
        }
      />

      <ReadOnlyNote right="automation.write" what="workflows" />
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}

      <section className="card card-flush" aria-label="Workflows">
        {nothingYet ? (
          <Intro onCreate={create} />
        ) : (
          <PagedTable
            hasRows={workflows.length > 0}
            emptyTestId="workflows-none"
            empty={loading ? 'Loading workflows…' : 'No workflows.'}
            testId="workflows-table"
            columns={COLUMNS}
            actions
            nextCursor={nextCursor}
            loadingMore={loadingMore}
            loadMore={loadMore}
          >
            {workflows.map((workflow) => (
              <tr key={workflow.id} data-testid="workflow-row" data-workflow-id={workflow.id}>
                <td>
                  <a
                    href={hrefFor('workflows', workflow.id)}
                    className="cell-strong"
                    data-testid="workflow-link"
                  >
                    {workflow.name}
                  </a>
                  <div className="muted small">
                    <a
                      href={hrefFor('workflows', `${workflow.id}/runs`)}
                      data-testid="workflow-runs-link"
                    >
                      Run history
                    </a>
                  </div>
                </td>
                <td
                  className={workflow.trigger.type === 'event' ? 'mono' : 'muted'}
                  data-testid="workflow-trigger"
                >
                  {triggerText(workflow)}
                </td>
                <td>
                  <WorkflowStatusChip status={workflow.status} />
                </td>
                <td className="num" data-testid="workflow-running">
                  {workflow.runs.running}
                </td>
                <td className="num" data-testid="workflow-waiting">
                  {workflow.runs.waiting}
                </td>
                <td className="num">{workflow.version}</td>
                <td className="nowrap muted">{formatDateTime(workflow.updatedAt)}</td>
                <td className="col-actions">
                  <div className="row-actions">
                    <StatusActions workflow={workflow} small />
                  </div>
                </td>
              </tr>
            ))}
          </PagedTable>
        )}
      </section>
    </div>
  );
}
