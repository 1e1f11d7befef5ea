import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import type {
  DefinitionBody,
  UpdateWorkflowBody,
  Workflow,
  WorkflowBody,
  WorkflowRun,
  WorkflowVersion,
} from '../../../../shared/schemas/workflows.ts';
import type {
  StepDefinition,
  WorkflowDefinition,
  WorkflowStatus,
} from '../../../../shared/workflow-rules.ts';
import { workflowProblems } from '../../../../shared/workflow-rules.ts';
import type { Outbox } from '../../events/outbox.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import type { Outbound } from '../../net/outbound.ts';
import type { Governor } from '../../pacing/governor.ts';
import type { Clock, IdGenerator, Random, Scope } from '../../runtime.ts';
import { iso, isoOrNull, randomBase62 } from '../../runtime.ts';
import type { AssignmentService } from '../assignment/service.ts';
import type { AuditActor, AuditService } from '../audit/service.ts';
import type { BusinessHoursService } from '../business-hours/service.ts';
import type { ContactRow } from '../contacts/repo.ts';
import type { ContactsService } from '../contacts/service.ts';
import { phoneOrThrow } from '../contacts/service.ts';
import type { ConversationsService } from '../conversations/service.ts';
import type { InteractiveListsService } from '../interactive-lists/service.ts';
import type { MembersService } from '../members/service.ts';
import type { InboundFacts } from '../messages/model.ts';
import type { MessagesService } from '../messages/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { HandOffReason, InboundReply } from './engine.ts';
import { toRun, workflowEngine } from './engine.ts';
import { listeningTriggers } from './listening.ts';
import type { WorkflowRow } from './repo.ts';
import { workflowsRepo } from './repo.ts';
import type { ScopeContext } from './steps/index.ts';
import { STEP_EXECUTORS } from './steps/index.ts';

const DEDUPE_MS = 24 * 3600_000;

export interface WorkflowsDeps {
  db: Db;
  clock: Clock;
  random: Random;
  ids: IdGenerator;
  scheduler: Scheduler;
  outbox: Outbox;
  outbound: Outbound;
  governor: Governor;
  contacts: ContactsService;
  messages: MessagesService;
  conversations: ConversationsService;
  /** Who an `update_conversation` or `assign` step may assign to. */
  members: Pick<MembersService, 'findActive'>;
  /** The `assign` step's round-robin. */
  assignment: Pick<AssignmentService, 'nextAgent'>;
  businessHours: Pick<BusinessHoursService, 'isOpen'>;
  audit: Pick<AuditService, 'append'>;
  lists: InteractiveListsService;
  workspaces: WorkspacesService;
}

/** Who changes a workflow (the audit trail's actor, a version's `activatedBy`). */
export interface Changer {
  actor: AuditActor;
  address: string | null;
}
const SYSTEM: Changer = { actor: { kind: 'system', id: null, name: null }, address: null };

/** A pending draft as stored on the workflow row. */
interface StoredDraft {
  name: string;
  trigger: WorkflowDefinition['trigger'];
  steps: StepDefinition[];
  basedOnVersion: number;
  updatedAt: number;
}

/**
 * Workflows (README "Workflows"): definitions saved as drafts and activated into versions,
 * triggers (business events, a hand, and the inbox: messages, list picks, status changes), and
 * their runs — the engine in engine.ts, the inbox's triggers in listening.ts.
 */
export function workflowsService(d: WorkflowsDeps) {
  const { db, clock, ids } = d;
  const repo = workflowsRepo(db);
  const engine = workflowEngine(d, repo);
  const listening = listeningTriggers({
    db,
    clock,
    repo,
    engine,
    contacts: d.contacts,
    businessHours: d.businessHours,
    conversationContact: (scope, id) => d.conversations.find(scope, id).contact_id,
  });
  const { definitionOf } = engine;

  // ---- records --------------------------------------------------------------------------------

  function toWorkflows(rows: WorkflowRow[]): Workflow[] {
    const counts = new Map<string, { running: number; waiting: number }>();
    for (const r of repo.activeCounts(rows.map((w) => w.id))) {
      const c = counts.get(r.workflow_id) ?? { running: 0, waiting: 0 };
      c[r.status as 'running' | 'waiting'] = r.n;
      counts.set(r.workflow_id, c);
    }
    return rows.map((w) => {
      const def = definitionOf(w.id, w.version);
      const draft = w.draft ? (JSON.parse(w.draft) as StoredDraft) : null;
      return {
        id: w.id,
        name: w.name,
        status: w.status,
        trigger: def.trigger,
        steps: def.steps as unknown as Record<string, unknown>[],
        version: w.version,
        runs: counts.get(w.id) ?? { running: 0, waiting: 0 },
        draft: draft && {
          name: draft.name,
          trigger: draft.trigger,
          steps: draft.steps as unknown as Record<string, unknown>[],
          basedOnVersion: draft.basedOnVersion,
          updatedAt: iso(draft.updatedAt),
        },
        activatedAt: isoOrNull(w.activated_at),
        createdAt: iso(w.created_at),
        updatedAt: iso(w.updated_at),
      } satisfies Workflow;
    });
  }
  const toWorkflow = (w: WorkflowRow) => toWorkflows([w])[0]!;

  function find(scope: Scope, id: string, param = 'id'): WorkflowRow {
    const w = repo.inScope(scope, id);
    if (!w) throw new ApiError('not_found', `no workflow ${id}`, { param });
    return w;
  }

  const definitionFrom = (body: DefinitionBody): WorkflowDefinition => ({
    name: body.name.trim(),
    trigger: body.trigger,
    steps: body.steps as unknown as StepDefinition[],
  });

  /** The definition's problems (400 naming the field), then what it names outside itself. */
  function requireSavable(scope: Scope, def: WorkflowDefinition, checkSteps = true) {
    const problem = workflowProblems(def)[0];
    if (problem) throw new ApiError('validation_error', problem.message, { param: problem.param });
    if (def.trigger.type === 'list_reply' && !listExists(scope, def.trigger.listId)) {
      throw new ApiError(
        'validation_error',
        `Choose one of this workspace's lists ("${def.trigger.listId}" is not one in this environment)`,
        { param: 'trigger.listId' },
      );
    }
    if (checkSteps) requireInScope(scope, def.steps);
  }

  /**
   * What steps name outside the definition, checked against the saving scope so it fails at
   * save and not at run time (each type's `checkScope` in steps/): a list of this workspace and
   * environment, an agent of this workspace, and a webhook URL the workspace may call.
   */
  function requireInScope(scope: Scope, steps: readonly StepDefinition[]) {
    const saving: ScopeContext = {
      scope,
      refuse: (param: string, message: string): never => {
        throw new ApiError('validation_error', message, { param });
      },
      allowPrivate: d.workspaces.settings(scope.workspaceId).allowPrivateWebhooks,
      listExists: (id: string) => listExists(scope, id),
      members: d.members,
    };
    steps.forEach((s, i) => STEP_EXECUTORS[s.type].checkScope?.(s, `steps.${i}`, saving));
  }

  function listExists(scope: Scope, id: string): boolean {
    try {
      d.lists.find(scope, id);
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') return false;
      throw e;
    }
  }

  const triggerColumns = (def: WorkflowDefinition) => ({
    trigger_type: def.trigger.type,
    trigger_event: def.trigger.type === 'event' ? def.trigger.event : null,
  });

  /** Writes the workflow row (and tells the trigger cache). */
  function write(next: WorkflowRow) {
    repo.update(next);
    listening.changed();
  }

  /** A new version of the workflow from `def`; live at once when `live` (who made it live). */
  function newVersion(w: WorkflowRow, def: WorkflowDefinition, live: Changer | null): WorkflowRow {
    const now = clock.now();
    const version = w.version + 1;
    repo.insertVersion(
      w.id,
      version,
      JSON.stringify(def),
      now,
      live ? { at: now, by: JSON.stringify(live.actor) } : null,
    );
    return { ...w, name: def.name, ...triggerColumns(def), version, updated_at: now };
  }

  /** The workflow goes live (status active) on its current version, which history records. */
  function goLive(w: WorkflowRow, who: Changer): WorkflowRow {
    const now = clock.now();
    repo.activateVersion(w.id, w.version, now, JSON.stringify(who.actor));
    return { ...w, status: 'active', activated_at: now, updated_at: now };
  }

  /**
   * Edits that do not change what runs: a draft-status workflow's definition is replaced (a
   * new version, not activated); an active or paused one carries them as its `draft`.
   */
  function putDraft(w: WorkflowRow, def: WorkflowDefinition): WorkflowRow {
    let next: WorkflowRow;
    if (w.status === 'draft') next = newVersion(w, def, null);
    else {
      const now = clock.now();
      const draft: StoredDraft = { ...def, basedOnVersion: w.version, updatedAt: now };
      next = { ...w, draft: JSON.stringify(draft), updated_at: now };
    }
    write(next);
    return next;
  }

  /** A workflow's signing secret (its webhook steps sign with it, like webhooks do). */
  const newSecret = (): string => `whsec_${randomBase62(d.random, 40)}`;

  function audit(w: WorkflowRow, who: Changer, action: string, details: Record<string, unknown>) {
    d.audit.append({
      workspaceId: w.workspace_id,
      actor: who.actor,
      action,
      target: { type: 'workflow', id: w.id, label: w.name },
      address: who.address,
      details: { environment: w.environment, ...details },
    });
  }

  // ---- the inbox's hooks (wired in services.ts) -------------------------------------------------

  /**
   * A contact's message arrived (in its transaction): runs waiting for their reply resume on
   * it, then the listening workflows it matches start (a resumed run keeps its workflow's turn).
   */
  function onInbound(
    scope: Scope,
    contactId: string,
    reply: InboundReply,
    conversationId: string,
    facts?: InboundFacts,
  ) {
    engine.resumeOnReply(contactId, reply);
    if (facts) listening.onMessage(scope, contactId, reply, conversationId, facts);
  }

  // ---- the API ----------------------------------------------------------------------------------

  return {
    repo,
    onInbound,
    /** A conversation's status changed (its transaction): `conversation_status` workflows start. */
    onConversationStatus: listening.onStatus,
    /** A person took the conversation over (their reply or assignment, its transaction). */
    handOff(
      scope: Scope,
      conversationId: string,
      contactId: string,
      reason: Exclude<HandOffReason, 'assign_step'>,
      by: string | null,
    ) {
      engine.handOff(scope, conversationId, contactId, reason, by);
    },
    /** The run talking to the contact now, for the inbox ("Automation: … — Take over"). */
    activeRun: (contactId: string) => repo.talking(contactId) ?? null,

    create(scope: Scope, body: WorkflowBody, who: Changer = SYSTEM) {
      const def = definitionFrom(body);
      requireSavable(scope, def);
      const status = body.status ?? 'active';
      return db
        .transaction(() => {
          const now = clock.now();
          const live = status === 'active';
          const w: WorkflowRow = {
            id: ids('wf'),
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            name: def.name,
            status,
            ...triggerColumns(def),
            version: 1,
            secret: newSecret(),
            draft: null,
            activated_at: live ? now : null,
            created_at: now,
            updated_at: now,
          };
          repo.insert(w);
          repo.insertVersion(
            w.id,
            1,
            JSON.stringify(def),
            now,
            live ? { at: now, by: JSON.stringify(who.actor) } : null,
          );
          listening.changed();
          return { ...toWorkflow(w), secret: w.secret };
        })
        .immediate();
    },

    /** `PUT /workflows`: a new version, live at once; runs in flight finish on theirs. */
    update(scope: Scope, body: UpdateWorkflowBody, who: Changer = SYSTEM): Workflow {
      return db
        .transaction(() => {
          const w = find(scope, body.id);
          const current = definitionOf(w.id, w.version);
          const def: WorkflowDefinition = {
            name: body.name?.trim() ?? current.name,
            trigger: body.trigger ?? current.trigger,
            steps: (body.steps as unknown as StepDefinition[] | undefined) ?? current.steps,
          };
          // Steps given now are checked against the scope; kept ones were when they were saved.
          requireSavable(scope, def, body.steps !== undefined);
          const status = body.status ?? w.status;
          let next = newVersion(w, def, status === 'active' ? who : null);
          next.status = status;
          if (status === 'active' && w.status !== 'active') next = goLive(next, who);
          write(next);
          return toWorkflow(next);
        })
        .immediate();
    },

    /** `PATCH /workflows/:id {status}`: active, paused or archived (a draft is only made). */
    setStatus(scope: Scope, id: string, status: WorkflowStatus, who: Changer = SYSTEM): Workflow {
      if (status === 'draft') {
        throw new ApiError(
          'validation_error',
          'A workflow is a draft until it is first activated: choose active, paused or archived',
          { param: 'status' },
        );
      }
      return db
        .transaction(() => {
          const w = find(scope, id);
          let next: WorkflowRow = { ...w, status, updated_at: clock.now() };
          if (status === 'active' && w.status !== 'active') next = goLive(w, who);
          write(next);
          return toWorkflow(next);
        })
        .immediate();
    },

    /**
     * `PUT /workflows/:id/draft`: saves edits without changing what runs. A draft-status
     * workflow's definition is its draft (a new, not yet activated, version); an active or
     * paused one keeps its version running and the draft beside it until activated.
     */
    saveDraft(scope: Scope, id: string, body: DefinitionBody): Workflow {
      const def = definitionFrom(body);
      return db
        .transaction(() => {
          const w = find(scope, id);
          requireSavable(scope, def);
          return toWorkflow(putDraft(w, def));
        })
        .immediate();
    },

    /** `DELETE /workflows/:id/draft`: the pending edits go; the active version stays. */
    discardDraft(scope: Scope, id: string): Workflow {
      return db
        .transaction(() => {
          const w = find(scope, id);
          if (w.status === 'draft') {
            throw new ApiError(
              'invalid_state',
              `workflow ${w.id} is a draft itself: archive it to put it away`,
              { details: { status: w.status } },
            );
          }
          const next = { ...w, draft: null, updated_at: clock.now() };
          write(next);
          return toWorkflow(next);
        })
        .immediate();
    },

    /**
     * `POST /workflows/:id/activate`: the draft (if any) becomes the new version and the
     * workflow is active; runs in flight finish on the version they started with.
     */
    activate(scope: Scope, id: string, who: Changer = SYSTEM): Workflow {
      return db
        .transaction(() => {
          const w = find(scope, id);
          let next = w;
          if (w.draft) {
            const draft = JSON.parse(w.draft) as StoredDraft;
            const def: WorkflowDefinition = {
              name: draft.name,
              trigger: draft.trigger,
              steps: draft.steps,
            };
            // What the draft names may have gone since it was saved (a list, a member).
            requireSavable(scope, def);
            next = { ...newVersion(w, def, who), draft: null };
          } else if (w.status === 'active') {
            return toWorkflow(w);
          }
          next = goLive(next, who);
          write(next);
          audit(next, who, 'workflow.activated', {
            version: next.version,
            from: w.status,
            ...(w.draft ? { fromDraft: true } : {}),
          });
          return toWorkflow(next);
        })
        .immediate();
    },

    /** `POST /workflows/:id/deactivate`: active → paused (runs in flight go on). */
    deactivate(scope: Scope, id: string, who: Changer = SYSTEM): Workflow {
      return db
        .transaction(() => {
          const w = find(scope, id);
          if (w.status === 'paused') return toWorkflow(w);
          if (w.status !== 'active') {
            throw new ApiError(
              'invalid_state',
              `workflow ${w.id} is ${w.status}: only an active workflow is deactivated`,
              { details: { status: w.status } },
            );
          }
          const next: WorkflowRow = { ...w, status: 'paused', updated_at: clock.now() };
          write(next);
          audit(next, who, 'workflow.paused', { version: w.version });
          return toWorkflow(next);
        })
        .immediate();
    },

    /**
     * `POST /workflows/:id/secret/rotate`: a new signing secret, answered once (it is not shown
     * again). The webhook steps sign with it from their next request on, retries included.
     */
    rotateSecret(scope: Scope, id: string, who: Changer = SYSTEM): Workflow & { secret: string } {
      return db
        .transaction(() => {
          const w = find(scope, id);
          const next: WorkflowRow = { ...w, secret: newSecret(), updated_at: clock.now() };
          repo.setSecret(next.id, next.secret, next.updated_at);
          audit(next, who, 'workflow_secret.rotated', {});
          return { ...toWorkflow(next), secret: next.secret };
        })
        .immediate();
    },

    /** `GET /workflows/:id/versions`: every version that went live, newest first. */
    versions(scope: Scope, id: string): { data: WorkflowVersion[] } {
      const w = find(scope, id);
      return {
        data: repo.versions(w.id).map((v) => {
          const def = JSON.parse(v.definition) as WorkflowDefinition;
          return {
            version: v.version,
            name: def.name,
            trigger: def.trigger,
            steps: def.steps as unknown as Record<string, unknown>[],
            activatedAt: iso(v.activated_at),
            activatedBy: v.activated_by
              ? (JSON.parse(v.activated_by) as WorkflowVersion['activatedBy'])
              : null,
          };
        }),
      };
    },

    /** `POST /workflows/:id/versions/:version/restore`: that version, copied into the draft. */
    restore(scope: Scope, id: string, version: number): Workflow {
      return db
        .transaction(() => {
          const w = find(scope, id);
          const json = repo.definition(w.id, version);
          if (json === undefined) {
            throw new ApiError('not_found', `workflow ${w.id} has no version ${version}`, {
              param: 'version',
            });
          }
          return toWorkflow(putDraft(w, JSON.parse(json) as WorkflowDefinition));
        })
        .immediate();
    },

    get: (scope: Scope, id: string) => toWorkflow(find(scope, id)),

    list(scope: Scope, q: { limit: number; cursor?: string }) {
      const rows = repo.page({
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        cursor: q.cursor ? decodeCursor(q.cursor) : null,
        limit: q.limit + 1,
      });
      const page = toPage(
        rows,
        q.limit,
        (r) => r,
        (r) => r.id,
      );
      return { data: toWorkflows(page.data), nextCursor: page.nextCursor };
    },

    /**
     * `POST /workflows/trigger`: a run for a contact now. An active workflow runs its version;
     * a draft runs its definition too (the builder's test run); paused and archived ones do not.
     */
    trigger(
      scope: Scope,
      body: {
        workflowId: string;
        phone?: string;
        contactId?: string;
        payload?: Record<string, unknown>;
      },
    ): WorkflowRun {
      if ((body.phone === undefined) === (body.contactId === undefined)) {
        throw new ApiError('validation_error', 'give exactly one of phone or contactId', {
          param: body.phone === undefined ? 'phone' : 'contactId',
        });
      }
      const phone = body.phone === undefined ? null : phoneOrThrow(body.phone);
      return db
        .transaction(() => {
          const w = find(scope, body.workflowId, 'workflowId');
          if (w.status !== 'active' && w.status !== 'draft') {
            throw new ApiError(
              'invalid_state',
              `workflow ${w.id} is ${w.status}: only active workflows (and drafts, to test them) start runs`,
              { details: { status: w.status } },
            );
          }
          let contact: ContactRow;
          if (body.contactId !== undefined) {
            const c = d.contacts.find(scope, body.contactId);
            if (!c) {
              throw new ApiError('not_found', `no contact ${body.contactId}`, {
                param: 'contactId',
              });
            }
            contact = c;
          } else contact = d.contacts.ensure(scope, phone!);
          const active = repo.activeRun(w.id, contact.id);
          if (active) {
            throw new ApiError(
              'invalid_state',
              `${contact.phone} is already in run ${active.id} of this workflow`,
              { details: { runId: active.id } },
            );
          }
          return toRun(engine.startRun(w, contact, body.payload ?? {}, { type: 'manual' }));
        })
        .immediate();
    },

    /** `POST /api/events`: starts the active workflows this event triggers, once per dedupeKey a day. */
    ingest(
      scope: Scope,
      body: { event: string; phone: string; payload?: Record<string, unknown>; dedupeKey?: string },
    ) {
      const phone = phoneOrThrow(body.phone);
      return db
        .transaction(() => {
          const now = clock.now();
          if (body.dedupeKey) {
            const seen = repo.eventByKey(scope, body.dedupeKey);
            if (seen && now - seen.created_at < DEDUPE_MS) {
              return { ...(JSON.parse(seen.response) as object), duplicate: true } as {
                id: string;
                runs: string[];
                skipped: { workflowId: string; reason: string }[];
                duplicate: boolean;
              };
            }
            if (seen) repo.dropEvent(seen.id);
          }
          const contact = d.contacts.ensure(scope, phone);
          const runs: string[] = [];
          const skipped: { workflowId: string; reason: string }[] = [];
          for (const w of repo.byEvent(scope, body.event)) {
            if (repo.activeRun(w.id, contact.id)) {
              skipped.push({ workflowId: w.id, reason: 'active_run' });
              continue;
            }
            runs.push(
              engine.startRun(w, contact, body.payload ?? {}, { type: 'event', event: body.event })
                .id,
            );
          }
          const id = ids('bev');
          const response = { id, runs, skipped };
          repo.insertEvent({
            id,
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            event: body.event,
            phone,
            payload: JSON.stringify(body.payload ?? {}),
            dedupe_key: body.dedupeKey ?? null,
            response: JSON.stringify(response),
            created_at: now,
          });
          return { ...response, duplicate: false };
        })
        .immediate();
    },

    runs(scope: Scope, workflowId: string, q: { status?: string; limit: number; cursor?: string }) {
      const w = find(scope, workflowId);
      const rows = repo.runs({
        workflowId: w.id,
        ...(q.status ? { status: q.status } : {}),
        cursor: q.cursor ? decodeCursor(q.cursor) : null,
        limit: q.limit + 1,
      });
      return toPage(rows, q.limit, toRun, (r) => r.id);
    },

    run(scope: Scope, runId: string) {
      const r = repo.runInScope(scope, runId);
      if (!r) throw new ApiError('not_found', `no run ${runId}`, { param: 'runId' });
      return {
        ...toRun(r),
        steps: repo.steps(r.id).map((s) => ({
          stepId: s.step_id,
          type: s.type,
          status: s.status,
          startedAt: iso(s.started_at),
          endedAt: isoOrNull(s.ended_at),
          output: s.output === null ? null : (JSON.parse(s.output) as unknown),
          error: s.error,
        })),
      };
    },

    cancel(scope: Scope, runId: string): WorkflowRun {
      return db
        .transaction(() => {
          const r = repo.runInScope(scope, runId);
          if (!r) throw new ApiError('not_found', `no run ${runId}`, { param: 'runId' });
          if (r.status !== 'running' && r.status !== 'waiting') {
            throw new ApiError(
              'invalid_state',
              `run ${r.id} is ${r.status} and cannot be cancelled`,
              {
                details: { status: r.status },
              },
            );
          }
          engine.cancel(r);
          return toRun(r);
        })
        .immediate();
    },
  };
}
export type WorkflowsService = ReturnType<typeof workflowsService>;
