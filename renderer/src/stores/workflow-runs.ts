import { create } from 'zustand';
import type { RunStatus } from '../../../shared/workflow-rules.ts';
import {
  api,
  ApiRequestError,
  errorMessage,
  type WorkflowRun,
  type WorkflowRunDetail,
} from '../api/client.ts';
import { events } from '../api/events.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  withFresherRow,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { createRequestGuard, registerScopedStore, type LoadStatus } from './scope.ts';
import { runOfEvent } from './workflows.ts';

export type RunStatusFilter = RunStatus | '';
export type { WorkflowRun, WorkflowRunDetail };

/**
 * The run history's filter, by the API's status. A run that went to its end is `completed`
 * whichever way it ended (completed, timed out, otherwise): "Finished" covers the three, and
 * each row's chip says which (README "Run history").
 */
export const RUN_STATUS_LABELS: Record<RunStatus, string> = {
  running: 'Running',
  waiting: 'Waiting',
  completed: 'Finished',
  handed_off: 'Handed off',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Of two copies of a run, the one written last (events and answers may cross). */
const newerRun = <R extends WorkflowRun>(current: R, next: R): R =>
  Date.parse(next.updatedAt) < Date.parse(current.updatedAt) ? current : next;

/** One workflow's runs, newest first, filtered by status and kept live by the event stream. */
interface WorkflowRunsState extends PagedListMeta, StatusFilteredActions<RunStatusFilter> {
  workflowId: string | null;
  runs: WorkflowRun[];
  statusFilter: RunStatusFilter;
  show: (workflowId: string) => void;
  apply: (run: WorkflowRun) => void;
  reset: () => void;
}

const PAGE_SIZE = 50;

const emptyRuns = () => ({ ...emptyPagedList(), runs: [] as WorkflowRun[] });

export const useWorkflowRuns = create<WorkflowRunsState>()((set, get) => {
  const list = createStatusFilteredList({
    set,
    get,
    read: (query) => api.workflows.runs(get().workflowId ?? '', query),
    pageSize: PAGE_SIZE,
    rows: (s) => s.runs,
    withRows: (runs) => ({ runs }),
  });
  return {
    ...emptyRuns(),
    workflowId: null,
    statusFilter: '',
    ...list.actions,

    show: (workflowId) => {
      if (workflowId === get().workflowId) return;
      list.invalidate();
      set({ ...emptyRuns(), workflowId, statusFilter: '' });
    },

    apply: (run) => {
      if (run.workflowId !== get().workflowId) return;
      set((s) => {
        const runs = withFresherRow(s.runs, run, s, newerRun);
        return runs === s.runs ? s : { runs };
      });
    },

    reset: () => {
      list.invalidate();
      set({ ...emptyRuns(), workflowId: null, statusFilter: '' });
    },
  };
});

registerScopedStore(() => useWorkflowRuns.getState().reset());

/** The run open on its timeline: read again whenever the stream says it moved. */
interface WorkflowRunState {
  runId: string | null;
  run: WorkflowRunDetail | null;
  status: LoadStatus;
  error: string | null;
  notFound: boolean;
  open: (runId: string) => void;
  reload: () => Promise<void>;
  /** The stream said this run moved: read it again (reads in a burst are coalesced). */
  changed: (runId: string) => void;
  cancel: () => Promise<void>;
  close: () => void;
}

export const useWorkflowRun = create<WorkflowRunState>()((set, get) => {
  const guard = createRequestGuard();
  let reading: Promise<void> | null = null;
  let again = false;

  const read = async (): Promise<void> => {
    const { runId } = get();
    if (!runId) return;
    const isCurrent = guard.start();
    try {
      const run = await api.workflows.run(runId);
      if (!isCurrent()) return;
      const shown = get().run;
      set({ run: shown && shown.id === run.id ? newerRun(shown, run) : run, status: 'ready' });
    } catch (e) {
      if (!isCurrent()) return;
      const notFound = e instanceof ApiRequestError && e.status === 404;
      if (get().status !== 'ready' || notFound) {
        set({ status: 'error', error: errorMessage(e), notFound });
      }
    }
  };

  /** One read at a time; a change during it reads once more when it ends. */
  const readSoon = (): void => {
    if (reading) {
      again = true;
      return;
    }
    reading = read().finally(() => {
      reading = null;
      if (again) {
        again = false;
        readSoon();
      }
    });
  };

  return {
    runId: null,
    run: null,
    status: 'idle',
    error: null,
    notFound: false,

    open: (runId) => {
      if (runId === get().runId && get().status !== 'idle') return;
      guard.invalidate();
      set({ runId, run: null, status: 'loading', error: null, notFound: false });
      readSoon();
    },

    reload: async () => {
      set({ status: 'loading', error: null, notFound: false });
      await read();
    },

    changed: (runId) => {
      if (runId === get().runId && get().status === 'ready') readSoon();
    },

    cancel: async () => {
      const { runId } = get();
      if (!runId) return;
      const run = await api.workflows.cancelRun(runId);
      useWorkflowRuns.getState().apply(run);
      readSoon();
    },

    close: () => {
      guard.invalidate();
      set({ runId: null, run: null, status: 'idle', error: null, notFound: false });
    },
  };
});

registerScopedStore(() => useWorkflowRun.getState().close());

events.subscribe(
  [
    'workflow.run.started',
    'workflow.run.completed',
    'workflow.run.failed',
    'workflow.run.handed_off',
  ],
  (event) => {
    const run = runOfEvent(event.data);
    if (!run) return;
    useWorkflowRuns.getState().apply(run);
    useWorkflowRun.getState().changed(run.id);
  },
);

// A step that ends moves the run (running ⇄ waiting) without an event of the run's own.
const stepReads = new Set<string>();
events.subscribe('workflow.run.step', (event) => {
  const { runId, workflowId } = event.data;
  if (typeof runId !== 'string') return;
  useWorkflowRun.getState().changed(runId);
  if (workflowId !== useWorkflowRuns.getState().workflowId || stepReads.has(runId)) return;
  stepReads.add(runId);
  api.workflows
    .run(runId)
    .then(({ steps: _steps, ...run }) => useWorkflowRuns.getState().apply(run))
    .catch(() => undefined)
    .finally(() => stepReads.delete(runId));
});
