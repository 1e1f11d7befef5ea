import type { Database as Db } from 'better-sqlite3';
import type {
  RunOutcome,
  RunStatus,
  TriggerType,
  WorkflowStatus,
} from '../../../../shared/workflow-rules.ts';
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
  trigger_type: TriggerType;
  version: number;
  secret: string;
  /** Pending edits (JSON StoredDraft) of an active or paused workflow. */
  draft: string | null;
  activated_at: number | null;
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
  outcome: RunOutcome | null;
  current_step: string | null;
  seq: number;
  waiting_for: 'timer' | 'reply' | 'webhook' | 'governor' | null;
  context: string;
  trigger: string;
  trigger_message_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

/** A run as read for the API: with its contact's address and name. */
export type RunView = RunRow & { phone: string; contact_name: string | null };

/** A version as the history lists it. */
export interface VersionRow {
  version: number;
  definition: string;
  activated_at: number;
  activated_by: string | null;
}

/** An active workflow that listens (the trigger cache's row): its current definition. */
export interface ListeningRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  version: number;
  definition: string;
}

export interface RunStepRow {
  run_id: string;
  seq: number;
  step_id: string;
  type: string;
  status: 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
  started_at: number;
  ended_at: number | null;
  output: string | null;
  error: string | null;
}

const RUN_COLUMNS = 'r.*, coalesce(c.phone, c.wa_user_id) AS phone, c.name AS contact_name';
/** A run row's columns, in RunRow's order. */
const RUN_FIELDS = [
  'id',
  'workflow_id',
  'version',
  'workspace_id',
  'environment',
  'contact_id',
  'status',
  'outcome',
  'current_step',
  'seq',
  'waiting_for',
  'context',
  'trigger',
  'trigger_message_id',
  'error',
  'created_at',
  'updated_at',
  'ended_at',
] as const satisfies readonly (keyof RunRow)[];

export function workflowsRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO workflows (id, workspace_id, environment, name, status, trigger_event, trigger_type,
       version, secret, draft, activated_at, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @name, @status, @trigger_event, @trigger_type,
       @version, @secret, @draft, @activated_at, @created_at, @updated_at)`,
  );
  const setSecret = db.prepare('UPDATE workflows SET secret = ?, updated_at = ? WHERE id = ?');
  const update = db.prepare(
    `UPDATE workflows SET name = @name, status = @status, trigger_event = @trigger_event,
       trigger_type = @trigger_type, version = @version, draft = @draft,
       activated_at = @activated_at, updated_at = @updated_at WHERE id = @id`,
  );
  const insertVersion = db.prepare(
    `INSERT INTO workflow_versions (workflow_id, version, definition, created_at, activated_at, activated_by)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const activateVersion = db.prepare(
    `UPDATE workflow_versions SET activated_at = ?, activated_by = ?
     WHERE workflow_id = ? AND version = ? AND activated_at IS NULL`,
  );
  const versions = db.prepare(
    `SELECT version, definition, activated_at, activated_by FROM workflow_versions
     WHERE workflow_id = ? AND activated_at IS NOT NULL ORDER BY version DESC`,
  );
  const listening = db.prepare(
    `SELECT w.id, w.workspace_id, w.environment, w.version, v.definition FROM workflows w
     JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.version
     WHERE w.workspace_id = ? AND w.environment = ? AND w.status = 'active'
       AND w.trigger_type IN ('message_received', 'conversation_status', 'list_reply')
     ORDER BY w.id`,
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
       outcome, current_step, seq, waiting_for, context, trigger, trigger_message_id, error,
       created_at, updated_at, ended_at)
     VALUES (@id, @workflow_id, @version, @workspace_id, @environment, @contact_id, @status,
       @outcome, @current_step, @seq, @waiting_for, @context, @trigger, @trigger_message_id, @error,
       @created_at, @updated_at, @ended_at)`,
  );
  const saveRun = db.prepare(
    `UPDATE workflow_runs SET status = @status, outcome = @outcome, current_step = @current_step,
       seq = @seq, waiting_for = @waiting_for, context = @context, error = @error,
       updated_at = @updated_at, ended_at = @ended_at WHERE id = @id`,
  );
  const contactActive = db.prepare(
    `SELECT ${RUN_COLUMNS} FROM workflow_runs r JOIN contacts c ON c.id = r.contact_id
     WHERE r.contact_id = ? AND r.status IN ('running', 'waiting') ORDER BY r.created_at, r.id`,
  );
  const contactActiveWorkflows = db
    .prepare(
      `SELECT workflow_id FROM workflow_runs WHERE contact_id = ? AND status IN ('running', 'waiting')`,
    )
    .pluck();
  const talking = db.prepare(
    `SELECT r.id AS runId, r.workflow_id AS workflowId, w.name AS workflowName
     FROM workflow_runs r JOIN workflows w ON w.id = r.workflow_id
     WHERE r.contact_id = ? AND r.status IN ('running', 'waiting')
     ORDER BY r.created_at DESC, r.id DESC LIMIT 1`,
  );
  const humanAt = db
    .prepare('SELECT at FROM conversation_human_activity WHERE conversation_id = ?')
    .pluck();
  const setHumanAt = db.prepare(
    `INSERT INTO conversation_human_activity (conversation_id, at) VALUES (?, ?)
     ON CONFLICT (conversation_id) DO UPDATE SET at = max(at, excluded.at)`,
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
    /** A new signing secret (a rotation). */
    setSecret: (id: string, secret: string, at: number) => setSecret.run(secret, at, id),
    /** A version; `activatedAt`/`by` when it goes live as it is saved. */
    insertVersion: (
      id: string,
      version: number,
      def: string,
      at: number,
      activated: { at: number; by: string | null } | null,
    ) => insertVersion.run(id, version, def, at, activated?.at ?? null, activated?.by ?? null),
    /** Marks a version activated (once: the first activation is the one history keeps). */
    activateVersion: (id: string, version: number, at: number, by: string | null) =>
      activateVersion.run(at, by, id, version),
    versions: (id: string) => versions.all(id) as VersionRow[],
    listening: (s: Scope) => listening.all(s.workspaceId, s.environment) as ListeningRow[],
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
    run: (id: string) => run.get(id) as RunView | undefined,
    /** The contact's running and waiting runs, of every workflow, oldest first. */
    contactActive: (contactId: string) => contactActive.all(contactId) as RunView[],
    contactActiveWorkflows: (contactId: string) =>
      contactActiveWorkflows.all(contactId) as string[],
    /** The run talking to the contact now (the newest active one), for the inbox. */
    talking: (contactId: string) =>
      talking.get(contactId) as
        { runId: string; workflowId: string; workflowName: string } | undefined,
    humanAt: (conversationId: string) => humanAt.get(conversationId) as number | undefined,
    setHumanAt: (conversationId: string, at: number) => setHumanAt.run(conversationId, at),
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
      run.contact_name = contact.name;
      return {
        run: run as unknown as RunView,
        contact: contact as unknown as ContactRow,
      };
    },
    runInScope: (s: Scope, id: string) =>
      runInScope.get(s.workspaceId, s.environment, id) as RunView | undefined,
    activeRun: (workflowId: string, contactId: string) =>
      activeRun.get(workflowId, contactId) as { id: string } | undefined,
    awaitingReply: (contactId: string) => awaitingReply.all(contactId) as RunView[],
    runs: (p: { workflowId: string; status?: string; cursor: string | null; limit: number }) =>
      (p.status ? runsByStatus : runsAll).all({ status: null, ...p }) as RunView[],

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
