import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import type { ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type {
  UpdateWorkflowBody,
  Workflow,
  WorkflowBody,
  WorkflowRun,
} from '../../../../shared/schemas/workflows.ts';
import type {
  RunContext,
  StepDefinition,
  WorkflowDefinition,
  WorkflowStatus,
} from '../../../../shared/workflow-rules.ts';
import {
  followingStep,
  MAX_RUN_STEPS,
  renderTemplateString,
  WEBHOOK_ATTEMPTS,
  workflowProblems,
} from '../../../../shared/workflow-rules.ts';
import type { Outbox } from '../../events/outbox.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import type { Outbound } from '../../net/outbound.ts';
import { OutboundError } from '../../net/outbound.ts';
import type { Governor, PaceKey } from '../../pacing/governor.ts';
import type { Clock, IdGenerator, Random, Scope } from '../../runtime.ts';
import { iso, isoOrNull, randomBase62 } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import type { ContactsService } from '../contacts/service.ts';
import { addressOf, phoneOrThrow } from '../contacts/service.ts';
import type { ConversationsService } from '../conversations/service.ts';
import type { MembersService } from '../members/service.ts';
import type { InteractiveListsService } from '../interactive-lists/service.ts';
import type { MessagesService, Sender } from '../messages/service.ts';
import { insideServiceWindow } from '../messages/service.ts';
import { sign, standardSignature } from '../webhooks/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { RunRow, WorkflowRow } from './repo.ts';
import { workflowsRepo } from './repo.ts';
import type { HandOver, Outcome, ScopeContext } from './steps/index.ts';
import { STEP_EXECUTORS } from './steps/index.ts';

/** What a contact's message brings a run that waits for it (`{{reply.…}}`). */
type InboundReply = { text: string; listReply?: ListReply };

const STEP = 'workflow.step';
const WEBHOOK = 'workflow.webhook';
/** Steps one job runs in one transaction at most; a longer stretch continues in the next job. */
const STEPS_PER_JOB = 50;
const SEND_ATTEMPTS = 5;
const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_MAX_BYTES = 64 * 1024;
const DEDUPE_MS = 24 * 3600_000;
const BOT: Sender = { sentBy: 'bot', agentId: null };

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
  /** Who an `update_conversation` step may assign to. */
  members: Pick<MembersService, 'findActive'>;
  lists: InteractiveListsService;
  workspaces: WorkspacesService;
}

interface Stored {
  payload: Record<string, unknown>;
  reply: RunContext['reply'];
  steps: Record<string, unknown>;
  /** Hand-over attempts of the current send step (retryable refusals). */
  attempts: number;
}

const scopeOf = (r: { workspace_id: string; environment: 'test' | 'live' }): Scope => ({
  workspaceId: r.workspace_id,
  environment: r.environment,
});

/**
 * Workflows (README "API"): versioned definitions and durable runs on the one scheduler. A run's
 * step and its move to the next commit in one transaction (its effects too: a message, a
 * conversation change), so a crash repeats or loses no step. Timers are scheduler jobs; a reply
 * resumes a waiting run inside the transaction that stores the inbound message; a webhook step
 * is an async job (at least once across a network, like webhooks). Jobs name the run's `seq`
 * (steps started so far): one that a later step overtook does nothing.
 */
export function workflowsService(d: WorkflowsDeps) {
  const { db, clock, ids, scheduler, outbox, governor } = d;
  const repo = workflowsRepo(db);
  const definitions = new Map<string, WorkflowDefinition>();

  function definitionOf(workflowId: string, version: number): WorkflowDefinition {
    const key = `${workflowId}@${version}`;
    let def = definitions.get(key);
    if (!def) {
      def = JSON.parse(repo.definition(workflowId, version)!) as WorkflowDefinition;
      definitions.set(key, def);
    }
    return def;
  }

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
      return {
        id: w.id,
        name: w.name,
        status: w.status,
        trigger: def.trigger,
        steps: def.steps as unknown as Record<string, unknown>[],
        version: w.version,
        runs: counts.get(w.id) ?? { running: 0, waiting: 0 },
        createdAt: iso(w.created_at),
        updatedAt: iso(w.updated_at),
      };
    });
  }
  const toWorkflow = (w: WorkflowRow) => toWorkflows([w])[0]!;

  function toRun(r: RunRow & { phone: string }): WorkflowRun {
    const ctx = JSON.parse(r.context) as Stored;
    const trigger = JSON.parse(r.trigger) as { type: 'event' | 'manual'; event?: string };
    return {
      id: r.id,
      workflowId: r.workflow_id,
      version: r.version,
      contactId: r.contact_id,
      phone: r.phone,
      status: r.status,
      currentStepId: r.status === 'running' || r.status === 'waiting' ? r.current_step : null,
      trigger: { type: trigger.type, event: trigger.event ?? null },
      payload: ctx.payload,
      error: r.error,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
      endedAt: isoOrNull(r.ended_at),
    };
  }

  function find(scope: Scope, id: string, param = 'id'): WorkflowRow {
    const w = repo.inScope(scope, id);
    if (!w) throw new ApiError('not_found', `no workflow ${id}`, { param });
    return w;
  }

  function requireValid(def: WorkflowDefinition) {
    const problem = workflowProblems(def)[0];
    if (problem) throw new ApiError('validation_error', problem.message, { param: problem.param });
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

  // ---- the engine -----------------------------------------------------------------------------

  const runEvent = (
    r: RunRow & { phone: string },
    type: 'workflow.run.started' | 'workflow.run.completed' | 'workflow.run.failed',
  ) => outbox.emit(scopeOf(r), type, { run: toRun(r) });

  function save(r: RunRow & { phone: string }, ctx: Stored) {
    r.context = JSON.stringify(ctx);
    r.updated_at = clock.now();
    repo.saveRun(r);
  }

  const outputJson = (output: unknown) =>
    output === undefined || output === null ? null : JSON.stringify(output);

  /** A step that was waiting (a timer, a reply, a webhook) ended. */
  function endStep(
    r: RunRow,
    seq: number,
    step: StepDefinition,
    status: 'completed' | 'failed',
    output: unknown,
    error: string | null,
  ) {
    repo.endStep({
      run_id: r.id,
      seq,
      status,
      ended_at: clock.now(),
      output: outputJson(output),
      error,
    });
    stepEvent(r, step, status, output, error);
  }

  /** A step that ended as it ran: its history row is written once, already ended. */
  function ranStep(
    r: RunRow,
    seq: number,
    step: StepDefinition,
    status: 'completed' | 'failed',
    output: unknown,
    error: string | null,
  ) {
    const now = clock.now();
    repo.insertStep({
      run_id: r.id,
      seq,
      step_id: step.id,
      type: step.type,
      status,
      started_at: now,
      ended_at: now,
      output: outputJson(output),
      error,
    });
    stepEvent(r, step, status, output, error);
  }

  function stepEvent(
    r: RunRow,
    step: StepDefinition,
    status: 'completed' | 'failed',
    output: unknown,
    error: string | null,
  ) {
    outbox.emit(scopeOf(r), 'workflow.run.step', {
      runId: r.id,
      workflowId: r.workflow_id,
      step: { stepId: step.id, type: step.type, status, output: output ?? null, error },
    });
  }

  function finish(r: RunRow & { phone: string }, ctx: Stored, error: string | null) {
    r.status = error ? 'failed' : 'completed';
    r.error = error;
    r.waiting_for = null;
    r.ended_at = clock.now();
    save(r, ctx);
    runEvent(r, error ? 'workflow.run.failed' : 'workflow.run.completed');
  }

  const step = (def: WorkflowDefinition, id: string | null) =>
    id === null ? -1 : def.steps.findIndex((s) => s.id === id);

  function contactContext(c: ContactRow): RunContext['contact'] {
    return {
      name: c.name,
      phone: c.phone ?? '',
      email: c.email,
      attributes: JSON.parse(c.attributes) as Record<string, unknown>,
    };
  }

  /** Renders every string inside a webhook body (objects and arrays kept). */
  function renderDeep(value: unknown, ctx: RunContext): unknown {
    if (typeof value === 'string') return renderTemplateString(value, ctx);
    if (Array.isArray(value)) return value.map((v) => renderDeep(v, ctx));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, renderDeep(v, ctx)]),
      );
    }
    return value;
  }

  /** A send step's hand-over through the governor, like a campaign's. */
  function send(r: RunRow, ctx: Stored, contact: ContactRow, fields: HandOver): Outcome {
    const scope = scopeOf(r);
    const now = clock.now();
    const { account, ...limits } = d.workspaces.limitsFor(r.workspace_id, r.environment);
    const key: PaceKey = { accountId: account.id, environment: r.environment };
    if (governor.room(key, limits.throughputMps, now) < 1) {
      return { kind: 'hold', until: governor.roomAt(key, limits.throughputMps, 1, now) };
    }
    const inside = insideServiceWindow(contact.last_inbound_at, now);
    const used = limits.messagingTier === null ? 0 : governor.tierUsed(key, now);
    const verdict = governor.check(key, limits, addressOf(contact), inside, used, now);
    if (!verdict.ok) return { kind: 'hold', until: verdict.until };
    const attempt = ctx.attempts + 1;
    const result = d.messages.handOverForRunner(scope, contact, fields, BOT, {
      attempt,
      campaignId: null,
      takesTierSlot: verdict.takesTierSlot,
      at: now,
    });
    if (!result.ok && result.kind === 'insufficient_balance') {
      return { kind: 'fail', error: 'insufficient_balance: the wallet cannot pay for the message' };
    }
    governor.spend(key, 1, now);
    if (result.ok) {
      ctx.attempts = 0;
      return { kind: 'next', next: null, output: { messageId: result.messageId } };
    }
    if (result.retryable && attempt < SEND_ATTEMPTS) {
      ctx.attempts = attempt;
      return { kind: 'hold', until: now + 1000 * 2 ** (attempt - 1) };
    }
    ctx.attempts = 0;
    return { kind: 'fail', error: `${result.code}: ${result.message}` };
  }

  function outsideWindow(contact: ContactRow): Outcome | null {
    if (insideServiceWindow(contact.last_inbound_at, clock.now())) return null;
    return {
      kind: 'fail',
      error:
        'outside_service_window: the contact has not written in the last 24 hours (channel code 131047)',
    };
  }

  function execute(
    r: RunRow,
    s: StepDefinition,
    ctx: Stored,
    contact: ContactRow,
    rc: RunContext,
  ): Outcome {
    const scope = scopeOf(r);
    const now = clock.now();
    const render = (text: string) => renderTemplateString(text, rc);
    return STEP_EXECUTORS[s.type].execute(s, {
      scope,
      now,
      contact,
      render,
      send: (fields) => send(r, ctx, contact, fields),
      outsideWindow: () => outsideWindow(contact),
      messages: d.messages,
      lists: d.lists,
      conversations: d.conversations,
    });
  }

  /** Runs the run's steps from its current one until it waits, ends or uses its job's share. */
  function drive(r: RunRow & { phone: string }, stored?: Stored, known?: ContactRow) {
    const def = definitionOf(r.workflow_id, r.version);
    const ctx = stored ?? (JSON.parse(r.context) as Stored);
    const contact = known ?? d.contacts.find(scopeOf(r), r.contact_id)!;
    const rc: RunContext = {
      payload: ctx.payload,
      contact: contactContext(contact),
      reply: ctx.reply,
      steps: ctx.steps,
    };
    r.waiting_for = null;
    for (let n = 0; n < STEPS_PER_JOB; n++) {
      if (r.current_step === null) return finish(r, ctx, null);
      if (r.seq >= MAX_RUN_STEPS) {
        return finish(r, ctx, `the run reached ${MAX_RUN_STEPS} steps (a loop without a wait?)`);
      }
      const index = step(def, r.current_step);
      const s = def.steps[index]!;
      const outcome = execute(r, s, ctx, contact, rc);
      if (outcome.kind === 'hold') {
        // The governor (or a retry's pause) holds the step: the same step, later.
        r.waiting_for = 'governor';
        save(r, ctx);
        scheduler.enqueue(STEP, { runId: r.id, seq: r.seq }, { runAt: outcome.until });
        return;
      }
      const seq = r.seq++;
      if (outcome.kind === 'wait' || outcome.kind === 'webhook') {
        repo.insertStep({
          run_id: r.id,
          seq,
          step_id: s.id,
          type: s.type,
          status: outcome.kind === 'wait' ? 'waiting' : 'running',
          started_at: clock.now(),
          ended_at: null,
          output: null,
          error: null,
        });
      }
      switch (outcome.kind) {
        case 'fail':
          ranStep(r, seq, s, 'failed', null, outcome.error);
          return finish(r, ctx, `step ${s.id}: ${outcome.error}`);
        case 'end':
          ranStep(r, seq, s, 'completed', null, null);
          r.current_step = null;
          return finish(r, ctx, null);
        case 'next':
          ranStep(r, seq, s, 'completed', outcome.output, null);
          if (outcome.output !== null && STEP_EXECUTORS[s.type].keepsOutput !== false) {
            ctx.steps[s.id] = outcome.output;
          }
          r.current_step = outcome.next ?? followingStep(def.steps, index);
          continue;
        case 'wait':
          r.status = 'waiting';
          r.waiting_for = outcome.for;
          save(r, ctx);
          scheduler.enqueue(STEP, { runId: r.id, seq: r.seq }, { runAt: outcome.until });
          return;
        case 'webhook':
          r.waiting_for = 'webhook';
          save(r, ctx);
          scheduler.enqueue(WEBHOOK, { runId: r.id, seq: r.seq });
          return;
      }
    }
    save(r, ctx);
    scheduler.enqueue(STEP, { runId: r.id, seq: r.seq });
  }

  /**
   * The wait step a waiting run is on ended (its time came, a reply, a timeout): move on. The
   * caller saves the run (drive() does, as it always ends by saving).
   */
  function resume(
    r: RunRow & { phone: string },
    ctx: Stored,
    output: unknown,
    next: string | null,
  ) {
    const def = definitionOf(r.workflow_id, r.version);
    const index = step(def, r.current_step);
    const s = def.steps[index]!;
    endStep(r, r.seq - 1, s, 'completed', output, null);
    if (output !== null) ctx.steps[s.id] = output;
    r.status = 'running';
    r.waiting_for = null;
    r.current_step = next ?? followingStep(def.steps, index);
  }

  // Chunked (a burst of timers runs a claim in one savepoint): a step's effects are all in the
  // store; of memory, only the definitions cache (immutable versions) and the simulated channel's
  // view of hand-overs (like a provider's of a call whose answer was lost) see a replay.
  scheduler.register(
    STEP,
    (payload) => {
      const { runId, seq } = payload;
      const found = repo.runWithContact(runId);
      if (!found || found.run.seq !== seq) return;
      const r = found.run;
      const ctx = JSON.parse(r.context) as Stored;
      if (r.status === 'waiting') {
        const def = definitionOf(r.workflow_id, r.version);
        const s = def.steps[step(def, r.current_step)]!;
        if (r.waiting_for === 'timer') resume(r, ctx, null, null);
        else if (r.waiting_for === 'reply') {
          // No reply in time: the timeout path, or the end of the run.
          resume(r, ctx, { timedOut: true }, s.onTimeout ?? null);
          if (!s.onTimeout) r.current_step = null;
        } else return;
      } else if (r.status !== 'running') return;
      drive(r, ctx, found.contact);
    },
    { chunked: true },
  );

  /** Counts a call of a run's webhook step before it goes; null when the run moved on. */
  function webhookAttempt(runId: string, seq: number): number | null {
    return db
      .transaction(() => {
        const r = repo.run(runId);
        if (!r || r.seq !== seq || r.waiting_for !== 'webhook' || r.status !== 'running') {
          return null;
        }
        const c = JSON.parse(r.context) as Stored;
        c.attempts = (c.attempts ?? 0) + 1;
        save(r, c);
        return c.attempts;
      })
      .immediate();
  }

  scheduler.register(
    WEBHOOK,
    async (payload, ctx) => {
      const { runId, seq } = payload;
      const found = repo.runWithContact(runId);
      if (!found) return;
      const { run: r, contact } = found;
      if (r.seq !== seq || r.waiting_for !== 'webhook' || r.status !== 'running') return;
      const def = definitionOf(r.workflow_id, r.version);
      const index = step(def, r.current_step);
      const s = def.steps[index]!;
      const w = repo.get(r.workflow_id)!;
      const stored = JSON.parse(r.context) as Stored;
      const rc: RunContext = {
        payload: stored.payload,
        contact: contactContext(contact),
        reply: stored.reply,
        steps: stored.steps,
      };
      const body = JSON.stringify(
        s.body === undefined ? { runId: r.id, payload: stored.payload } : renderDeep(s.body, rc),
      );
      // Every call of this step is counted before it goes (committed), so a call a crash cut
      // short still counts: the receiver sees attempt 1, 2, … under one webhook-id.
      const attempt = webhookAttempt(runId, seq);
      if (attempt === null) return;
      const messageId = `${r.id}.${seq - 1}`;
      const timestamp = Math.floor(clock.now() / 1000);
      let error: string;
      try {
        const res = await d.outbound.send({
          url: renderTemplateString(s.url!, rc),
          method: (s.method as 'POST' | 'PUT' | 'PATCH' | undefined) ?? 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Parley-Workflows/1.0',
            'x-parley-signature': sign(w.secret, timestamp, body),
            'x-parley-run-id': r.id,
            // Standard Webhooks: one id for every attempt of this step of this run (receivers
            // dedupe by it), and the attempt number, as its retries carry.
            'webhook-id': messageId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': standardSignature(w.secret, messageId, timestamp, body),
            'webhook-attempt': String(attempt),
          },
          body,
          allowPrivate: d.workspaces.settings(r.workspace_id).allowPrivateWebhooks,
          timeoutMs: WEBHOOK_TIMEOUT_MS,
          maxResponseBytes: WEBHOOK_MAX_BYTES,
          signal: ctx.signal,
        });
        if (res.status >= 200 && res.status < 300) {
          let output: unknown = { status: res.status };
          if (!res.truncated && res.body.length > 0) {
            try {
              output = JSON.parse(res.body.toString('utf8'));
            } catch {
              output = { status: res.status, text: res.body.toString('utf8') };
            }
          }
          db.transaction(() => {
            const now = repo.run(runId);
            if (
              now &&
              now.seq === seq &&
              now.waiting_for === 'webhook' &&
              now.status === 'running'
            ) {
              endStep(now, seq - 1, s, 'completed', output, null);
              const c = JSON.parse(now.context) as Stored;
              c.steps[s.id] = output;
              c.attempts = 0;
              now.waiting_for = null;
              now.current_step = followingStep(def.steps, index);
              save(now, c);
              scheduler.enqueue(STEP, { runId, seq });
            }
            ctx.complete();
          }).immediate();
          return;
        }
        error = `the endpoint answered HTTP ${res.status}`;
      } catch (e) {
        if (!(e instanceof OutboundError) || ctx.signal.aborted) throw e;
        error = e.message;
      }
      throw new RetryLater(error);
    },
    {
      sync: false,
      concurrency: 8,
      maxAttempts: WEBHOOK_ATTEMPTS,
      baseDelayMs: 2000,
      onDead: (payload, error) => {
        const { runId, seq } = payload;
        const r = repo.run(runId);
        if (!r || r.seq !== seq || r.waiting_for !== 'webhook' || r.status !== 'running') return;
        const def = definitionOf(r.workflow_id, r.version);
        const s = def.steps[step(def, r.current_step)]!;
        const ctx = JSON.parse(r.context) as Stored;
        ctx.attempts = 0;
        endStep(r, seq - 1, s, 'failed', null, error);
        if (!s.onError) return finish(r, ctx, `step ${s.id}: ${error}`);
        r.waiting_for = null;
        r.current_step = s.onError;
        save(r, ctx);
        scheduler.enqueue(STEP, { runId, seq });
      },
    },
  );

  /**
   * A contact's message arrived (in its transaction): runs waiting for their reply resume on it.
   * Wired to the messages service in services.ts.
   */
  function resumeOnReply(_scope: Scope, contactId: string, reply: InboundReply) {
    for (const r of repo.awaitingReply(contactId)) {
      const ctx = JSON.parse(r.context) as Stored;
      ctx.reply = reply;
      resume(r, ctx, reply, null);
      save(r, ctx);
      scheduler.enqueue(STEP, { runId: r.id, seq: r.seq });
    }
  }

  function startRun(
    w: WorkflowRow,
    contact: ContactRow,
    payload: Record<string, unknown>,
    trigger: { type: 'event' | 'manual'; event?: string },
  ): RunRow & { phone: string } {
    const def = definitionOf(w.id, w.version);
    const now = clock.now();
    const r: RunRow & { phone: string } = {
      id: ids('run'),
      workflow_id: w.id,
      version: w.version,
      workspace_id: w.workspace_id,
      environment: w.environment,
      contact_id: contact.id,
      status: 'running',
      current_step: def.steps[0]!.id,
      seq: 0,
      waiting_for: null,
      context: JSON.stringify({ payload, reply: null, steps: {}, attempts: 0 } satisfies Stored),
      trigger: JSON.stringify(trigger),
      error: null,
      created_at: now,
      updated_at: now,
      ended_at: null,
      phone: addressOf(contact),
    };
    repo.insertRun(r);
    runEvent(r, 'workflow.run.started');
    scheduler.enqueue(STEP, { runId: r.id, seq: 0 });
    return r;
  }

  const contactFor = (scope: Scope, phone: string): ContactRow => d.contacts.ensure(scope, phone);

  // ---- the API ----------------------------------------------------------------------------------

  return {
    resumeOnReply,
    repo,

    create(scope: Scope, body: WorkflowBody) {
      const def: WorkflowDefinition = {
        name: body.name.trim(),
        trigger: body.trigger,
        steps: body.steps as unknown as StepDefinition[],
      };
      requireValid(def);
      requireInScope(scope, def.steps);
      return db
        .transaction(() => {
          const now = clock.now();
          const w: WorkflowRow = {
            id: ids('wf'),
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            name: def.name,
            status: body.status ?? 'active',
            trigger_event: def.trigger.type === 'event' ? def.trigger.event : null,
            version: 1,
            secret: `whsec_${randomBase62(d.random, 40)}`,
            created_at: now,
            updated_at: now,
          };
          repo.insert(w);
          repo.insertVersion(w.id, 1, JSON.stringify(def), now);
          return { ...toWorkflow(w), secret: w.secret };
        })
        .immediate();
    },

    /** A new version; runs in flight finish on the version they started with. */
    update(scope: Scope, body: UpdateWorkflowBody): Workflow {
      return db
        .transaction(() => {
          const w = find(scope, body.id);
          const current = definitionOf(w.id, w.version);
          const def: WorkflowDefinition = {
            name: body.name?.trim() ?? current.name,
            trigger: body.trigger ?? current.trigger,
            steps: (body.steps as unknown as StepDefinition[] | undefined) ?? current.steps,
          };
          requireValid(def);
          // Steps given now are checked against the scope; kept ones were when they were saved.
          if (body.steps) requireInScope(scope, def.steps);
          const now = clock.now();
          const next: WorkflowRow = {
            ...w,
            name: def.name,
            status: body.status ?? w.status,
            trigger_event: def.trigger.type === 'event' ? def.trigger.event : null,
            version: w.version + 1,
            updated_at: now,
          };
          repo.insertVersion(w.id, next.version, JSON.stringify(def), now);
          repo.update(next);
          return toWorkflow(next);
        })
        .immediate();
    },

    setStatus(scope: Scope, id: string, status: WorkflowStatus): Workflow {
      const w = find(scope, id);
      const next = { ...w, status, updated_at: clock.now() };
      repo.update(next);
      return toWorkflow(next);
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
          if (w.status !== 'active') {
            throw new ApiError(
              'invalid_state',
              `workflow ${w.id} is ${w.status}: only active ones start runs`,
              {
                details: { status: w.status },
              },
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
          } else contact = contactFor(scope, phone!);
          const active = repo.activeRun(w.id, contact.id);
          if (active) {
            throw new ApiError(
              'invalid_state',
              `${contact.phone} is already in run ${active.id} of this workflow`,
              { details: { runId: active.id } },
            );
          }
          return toRun(startRun(w, contact, body.payload ?? {}, { type: 'manual' }));
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
          const contact = contactFor(scope, phone);
          const runs: string[] = [];
          const skipped: { workflowId: string; reason: string }[] = [];
          for (const w of repo.byEvent(scope, body.event)) {
            if (repo.activeRun(w.id, contact.id)) {
              skipped.push({ workflowId: w.id, reason: 'active_run' });
              continue;
            }
            runs.push(
              startRun(w, contact, body.payload ?? {}, { type: 'event', event: body.event }).id,
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
          const ctx = JSON.parse(r.context) as Stored;
          r.status = 'cancelled';
          r.waiting_for = null;
          r.seq++; // jobs queued for it are stale now
          r.ended_at = clock.now();
          save(r, ctx);
          outbox.emit(scopeOf(r), 'workflow.run.failed', { run: toRun(r), reason: 'cancelled' });
          return toRun(r);
        })
        .immediate();
    },
  };
}
export type WorkflowsService = ReturnType<typeof workflowsService>;
