import { create } from 'zustand';
import type { WorkflowStatus } from '../../../shared/workflow-rules.ts';
import { api, type Workflow, type WorkflowBody, type WorkflowRun } from '../api/client.ts';
import type { WorkflowDefinition } from '../../../shared/workflow-rules.ts';
import { events } from '../api/events.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

export type { Workflow, WorkflowRun };

/**
 * The workflows screen's list (newest first, as the core answers). Its run counts follow the
 * event stream: a run that starts, moves or ends re-reads its workflow (at most once a second).
 */
interface WorkflowsState extends PagedListMeta {
  workflows: Workflow[];
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  create: (body: WorkflowBody) => Promise<Workflow & { secret: string }>;
  update: (id: string, body: WorkflowDefinition) => Promise<Workflow>;
  setStatus: (id: string, status: WorkflowStatus) => Promise<Workflow>;
  /** Puts a fresher copy in place (a save, an answer); a new one joins at the top. */
  apply: (workflow: Workflow) => void;
  /** A run of this workflow changed: its counts are read again soon. */
  runChanged: (workflowId: string) => void;
  reset: () => void;
}

const PAGE_SIZE = 50;
const COUNTS_EVERY_MS = 1_000;

const initial = () => ({ ...emptyPagedList(), workflows: [] as Workflow[] });

export const useWorkflows = create<WorkflowsState>()((set, get) => {
  const list = createPagedList({
    set,
    get,
    first: () => api.workflows.list({ limit: PAGE_SIZE }),
    next: (cursor) => api.workflows.list({ limit: PAGE_SIZE, cursor }),
    rows: (s) => s.workflows,
    withRows: (workflows) => ({ workflows }),
  });
  const pending = new Map<string, number>();

  const saved = <W extends Workflow>(workflow: W): W => {
    get().apply(workflow);
    return workflow;
  };

  return {
    ...initial(),
    load: list.load,
    loadMore: list.loadMore,

    create: async (body) => saved(await api.workflows.create(body)),
    update: async (id, body) => saved(await api.workflows.update(id, body)),
    setStatus: async (id, status) => saved(await api.workflows.setStatus(id, status)),

    apply: (workflow) => {
      const { secret: _secret, ...record } = workflow as Workflow & { secret?: string };
      set((s) => {
        if (s.status !== 'ready') return s;
        const index = s.workflows.findIndex((w) => w.id === record.id);
        if (index < 0) return { workflows: [record, ...s.workflows] };
        const workflows = s.workflows.slice();
        workflows[index] = record;
        return { workflows };
      });
    },

    runChanged: (workflowId) => {
      if (pending.has(workflowId)) return;
      if (!get().workflows.some((w) => w.id === workflowId)) return;
      const isCurrent = list.guard.start();
      pending.set(
        workflowId,
        window.setTimeout(() => {
          pending.delete(workflowId);
          api.workflows.get(workflowId).then(
            (fresh) => isCurrent() && get().apply(fresh),
            () => undefined,
          );
        }, COUNTS_EVERY_MS),
      );
    },

    reset: () => {
      list.invalidate();
      for (const timer of pending.values()) window.clearTimeout(timer);
      pending.clear();
      set(initial());
    },
  };
});

registerScopedStore(() => useWorkflows.getState().reset());

export const WORKFLOW_STATUS_LABELS: Record<WorkflowStatus, string> = {
  draft: 'Draft',
  active: 'Active',
  paused: 'Paused',
  archived: 'Archived',
};

/** The run of a `workflow.run.started|completed|failed|handed_off` event. */
export function runOfEvent(data: Record<string, unknown>): WorkflowRun | null {
  const run = data.run as WorkflowRun | undefined;
  return run && typeof run.id === 'string' ? run : null;
}

events.subscribe(
  [
    'workflow.run.started',
    'workflow.run.completed',
    'workflow.run.failed',
    'workflow.run.handed_off',
    'workflow.run.step',
  ],
  (event) => {
    const workflowId = runOfEvent(event.data)?.workflowId ?? event.data.workflowId;
    if (typeof workflowId === 'string') useWorkflows.getState().runChanged(workflowId);
  },
);
