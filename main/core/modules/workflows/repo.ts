import type { Database as Db } from 'better-sqlite3';
import type { RunStatus, WorkflowStatus } from '../../../../shared/workflow-rules.ts';
import type { Scope } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import { CONTACT_FIELDS } from '../contacts/sql.ts';

export interface WorkflowRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  name: string;
  status: WorkflowStatus;
  trigger_event: string | null;
  version: number;
  secret: string;
  created_at: number;
  updated_at: number;
}

export interface RunRow {
  id: string;
  workflow_id: string;
  version: number;
  workspace_id: string;
  environment: 'test' | 'live';
  contact_id: string;
  status: RunStatus;
  current_step: string | null;
  seq: number;
  waiting_for: 'timer' | 'reply' | 'webhook' | 'governor' | null;
  context: string;
  trigger: string;
  error: string | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

export interface RunStepRow {
  run_id: string;
  seq: number;
  step_id: string;
  type: string;
  status: 'running' | 'waiting' | 'completed' | 'failed';
  started_at: number;
  ended_at: number | null;
  output: string | null;
  error: string | null;
}

const RUN_COLUMNS = 'r.*, coalesce(c.phone, c.wa_user_id) AS phone';
/** A run row's columns, in RunRow's order. */
const RUN_FIELDS = [
  'id',
  'workflow_id',
  'version',
  'workspace_id',
  'environment',
  'contact_id',
  'status',
  'current_step',
  'seq',
  'waiting_for',
  'context',
  'trigger',
  'error',
  'created_at',
  'updated_at',
  'ended_at',
] as const satisfies readonly (keyof RunRow)[];

export function workflowsRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO workflows (id, workspace_id, environment, name, status, trigger_event, version, secret,
       created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @name, @status, @trigger_event, @version, @secret,
       @created_at, @updated_at)`,
  );
  const update = db.prepare(
    `UPDATE workflows SET name = @name, status = @status, trigger_event = @trigger_event,
       version = @version, updated_at = @updated_at WHERE id = @id`,
  );
  const insertVersion = db.prepare(
    'INSERT INTO workflow_versions (workflow_id, version, definition, created_at) VALUES (?, ?, ?, ?)',
  );
  const definition = db
    .prepare('SELECT definition FROM workflow_versions WHERE workflow_id = ? AND version = ?')
    .pluck();
  const get = db.prepare('SELECT * FROM workflows WHERE id = ?');
  const inScope = db.prepare(
    'SELECT * FROM workflows WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const page = db.prepare(
    `SELECT * FROM workflows WHERE workspace_id = @workspaceId AND environment = @environment
       AND (@cursor IS NULL OR id < @cursor) ORDER BY id DESC LIMIT @limit`,
  );
  const byEvent = db.prepare(
    `SELECT * FROM workflows WHERE workspace_id = ? AND environment = ? AND trigger_event = ?
       AND status = 'active' ORDER BY id`,
  );
  const activeCounts = db.prepare(
    `SELECT workflow_id, status, count(*) AS n FROM workflow_runs
     WHERE workflow_id IN (SELECT value FROM json_each(?)) AND status IN ('running', 'waiting')
     GROUP BY workflow_id, status`,
  );

  const insertRun = db.prepare(
    `INSERT INTO workflow_runs (id, workflow_id, version, workspace_id, environment, contact_id, status,
       current_step, seq, waiting_for, context, trigger, error, created_at, updated_at, ended_at)
     VALUES (@id, @workflow_id, @version, @workspace_id, @environment, @contact_id, @status,
       @current_step, @seq, @waiting_for, @context, @trigger, @error, @created_at, @updated_at, @ended_at)`,
  );
  const saveRun = db.prepare(
    `UPDATE workflow_runs SET status = @status, current_step = @current_step, seq = @seq,
       waiting_for = @waiting_for, context = @context, error = @error, updated_at = @updated_at,
       ended_at = @ended_at WHERE id = @id`,
  );
  const run = db.prepare(
    `SELECT ${RUN_COLUMNS} FROM workflow_runs r JOIN contacts c ON c.id = r.contact_id WHERE r.id = ?`,
  );
  // A run and its contact in one read (a fired timer needs both): named columns, split by place.
  const runAndContact = db
    .prepare(
      `SELECT ${RUN_FIELDS.map((f) => `r.${f}`).join(', ')}, ${CONTACT_FIELDS.map((f) => `c.${f}`).join(', ')}
       FROM workflow_runs r JOIN contacts c ON c.id = r.contact_id WHERE r.id = ?`,
    )
    .raw();
  const runInScope = db.prepare(
    `SELECT ${RUN_COLUMNS} FROM workflow_runs r JOIN contacts c ON c.id = r.contact_id
     WHERE r.workspace_id = ? AND r.environment = ? AND r.id = ?`,
  );
  const activeRun = db.prepare(
    `SELECT id FROM workflow_runs WHERE workflow_id = ? AND contact_id = ? AND status IN ('running', 'waiting')`,
  );
  const awaitingReply = db.prepare(
    `SELECT ${RUN_COLUMNS} FROM workflow_runs r JOIN contacts c ON c.id = r.contact_id
     WHERE r.contact_id = ? AND r.status = 'waiting' AND r.waiting_for = 'reply'`,
  );
  const runPage = (withStatus: boolean) =>
    db.prepare(
      `SELECT ${RUN_COLUMNS} FROM workflow_runs r JOIN contacts c ON c.id = r.contact_id
       WHERE r.workflow_id = @workflowId ${withStatus ? 'AND r.status = @status' : ''}
         AND (@cursor IS NULL OR r.id < @cursor)
       ORDER BY r.id DESC LIMIT @limit`,
    );
  const runsAll = runPage(false);
  const runsByStatus = runPage(true);

  const insertStep = db.prepare(
    `INSERT INTO workflow_run_steps (run_id, seq, step_id, type, status, started_at, ended_at, output, error)
     VALUES (@run_id, @seq, @step_id, @type, @status, @started_at, @ended_at, @output, @error)`,
  );
  const endStep = db.prepare(
    `UPDATE workflow_run_steps SET status = @status, ended_at = @ended_at, output = @output,
       error = @error WHERE run_id = @run_id AND seq = @seq`,
  );
  const steps = db.prepare('SELECT * FROM workflow_run_steps WHERE run_id = ? ORDER BY seq');
  const step = db.prepare('SELECT * FROM workflow_run_steps WHERE run_id = ? AND seq = ?');

  const eventByKey = db.prepare(
    `SELECT id, response, created_at FROM business_events
     WHERE workspace_id = ? AND environment = ? AND dedupe_key = ?`,
  );
  const dropEvent = db.prepare('DELETE FROM business_events WHERE id = ?');
  const insertEvent = db.prepare(
    `INSERT INTO business_events (id, workspace_id, environment, event, phone, payload, dedupe_key, response, created_at)
     VALUES (@id, @workspace_id, @environment, @event, @phone, @payload, @dedupe_key, @response, @created_at)`,
  );

  return {
    insert: (r: WorkflowRow) => insert.run(r),
    update: (r: WorkflowRow) => update.run(r),
    insertVersion: (id: string, version: number, def: string, at: number) =>
      insertVersion.run(id, version, def, at),
    definition: (id: string, version: number) => definition.get(id, version) as string | undefined,
    get: (id: string) => get.get(id) as WorkflowRow | undefined,
    inScope: (s: Scope, id: string) =>
      inScope.get(s.workspaceId, s.environment, id) as WorkflowRow | undefined,
    page: (p: { workspaceId: string; environment: string; cursor: string | null; limit: number }) =>
      page.all(p) as WorkflowRow[],
    byEvent: (s: Scope, event: string) =>
      byEvent.all(s.workspaceId, s.environment, event) as WorkflowRow[],
    activeCounts: (ids: string[]) =>
      activeCounts.all(JSON.stringify(ids)) as { workflow_id: string; status: string; n: number }[],

    insertRun: (r: RunRow) => insertRun.run(r),
    saveRun: (r: RunRow) => saveRun.run(r),
    run: (id: string) => run.get(id) as (RunRow & { phone: string }) | undefined,
    /** The run (with its contact's phone) and its contact. */
    runWithContact(id: string) {
      const values = runAndContact.get(id) as unknown[] | undefined;
      if (!values) return undefined;
      const run: Record<string, unknown> = {};
      const contact: Record<string, unknown> = {};
      const n = RUN_FIELDS.length;
      for (let i = 0; i < n; i++) run[RUN_FIELDS[i]!] = values[i];
      for (let i = 0; i < CONTACT_FIELDS.length; i++) contact[CONTACT_FIELDS[i]!] = values[n + i];
      run.phone = contact.phone ?? contact.wa_user_id;
      return {
        run: run as unknown as RunRow & { phone: string },
        contact: contact as unknown as ContactRow,
      };
    },
    runInScope: (s: Scope, id: string) =>
      runInScope.get(s.workspaceId, s.environment, id) as (RunRow & { phone: string }) | undefined,
    activeRun: (workflowId: string, contactId: string) =>
      activeRun.get(workflowId, contactId) as { id: string } | undefined,
    awaitingReply: (contactId: string) =>
      awaitingReply.all(contactId) as (RunRow & { phone: string })[],
    runs: (p: { workflowId: string; status?: string; cursor: string | null; limit: number }) =>
      (p.status ? runsByStatus : runsAll).all({ status: null, ...p }) as (RunRow & {
        phone: string;
      })[],

    insertStep: (r: RunStepRow) => insertStep.run(r),
    endStep: (r: Pick<RunStepRow, 'run_id' | 'seq' | 'status' | 'ended_at' | 'output' | 'error'>) =>
      endStep.run(r),
    steps: (runId: string) => steps.all(runId) as RunStepRow[],
    step: (runId: string, seq: number) => step.get(runId, seq) as RunStepRow | undefined,

    eventByKey: (s: Scope, key: string) =>
      eventByKey.get(s.workspaceId, s.environment, key) as
        { id: string; response: string; created_at: number } | undefined,
    dropEvent: (id: string) => dropEvent.run(id),
    insertEvent: (r: {
      id: string;
      workspace_id: string;
      environment: string;
      event: string;
      phone: string;
      payload: string;
      dedupe_key: string | null;
      response: string;
      created_at: number;
    }) => insertEvent.run(r),
  };
}
export type WorkflowsRepo = ReturnType<typeof workflowsRepo>;
