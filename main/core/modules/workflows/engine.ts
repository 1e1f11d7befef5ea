/**
 * The run engine (README "Workflows"): durable runs on the one scheduler. A run's step and its
 * move to the next commit in one transaction (its effects too: a message, a conversation
 * change), so a crash repeats or loses no step. Timers are scheduler jobs; a reply resumes a
 * waiting run inside the transaction that stores the inbound message; a webhook step is an
 * async job (at least once across a network, like webhooks). Jobs name the run's `seq` (steps
 * started so far): one that a later step, a handoff or a cancel overtook does nothing — so a
 * step due while a person takes over either ran before (its effect committed first) or never.
 */
import { firstNameOf } from '../../../../shared/placeholders.ts';
import type { ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type { WorkflowRun } from '../../../../shared/schemas/workflows.ts';
import type {
  RunContext,
  RunOutcome,
  StepDefinition,
  TriggerType,
  WorkflowDefinition,
} from '../../../../shared/workflow-rules.ts';
import {
  followingStep,
  MAX_RUN_STEPS,
  renderTemplateString,
  WEBHOOK_ATTEMPTS,
} from '../../../../shared/workflow-rules.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import { OutboundError } from '../../net/outbound.ts';
import type { PaceKey } from '../../pacing/governor.ts';
import type { Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import { addressOf } from '../contacts/service.ts';
import type { Sender } from '../messages/service.ts';
import { insideServiceWindow } from '../messages/service.ts';
import { sign, standardSignature } from '../webhooks/service.ts';
import type { RunRow, RunView, WorkflowRow, WorkflowsRepo } from './repo.ts';
import type { HandOver, Outcome } from './steps/index.ts';
import { STEP_EXECUTORS } from './steps/index.ts';
import type { WorkflowsDeps } from './service.ts';

/** What a contact's message brings a run that waits for it (`{{reply.…}}`). */
export type InboundReply = { text: string; listReply?: ListReply };

const STEP = 'workflow.step';
const WEBHOOK = 'workflow.webhook';
/** Steps one job runs in one transaction at most; a longer stretch continues in the next job. */
const STEPS_PER_JOB = 50;
const SEND_ATTEMPTS = 5;
const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_MAX_BYTES = 64 * 1024;
const BOT: Sender = { sentBy: 'bot', agentId: null };

/** Why a run was handed to a person (`workflow.run.handed_off`'s `reason`). */
export type HandOffReason = 'agent_reply' | 'assigned' | 'assign_step';

export interface Stored {
  payload: Record<string, unknown>;
  reply: RunContext['reply'];
  steps: Record<string, unknown>;
  /** Hand-over attempts of the current send step (retryable refusals). */
  attempts: number;
  /**
   * The run's last decision that was not the expected path: a wait for a reply that timed out,
   * a branch that fell to its otherwise. A run that ends after one ends with it as its outcome.
   */
  decision?: 'timed_out' | 'otherwise' | null;
}

export interface RunTrigger {
  type: TriggerType;
  event?: string;
  messageId?: string;
}

export const scopeOf = (r: { workspace_id: string; environment: 'test' | 'live' }): Scope => ({
  workspaceId: r.workspace_id,
  environment: r.environment,
});

/** The step output's `outcome` that moves the run's decision (and which clear it). */
const DECISIONS: Readonly<Record<string, Stored['decision']>> = {
  timed_out: 'timed_out',
  otherwise: 'otherwise',
  replied: null,
  matched: null,
};

export function toRun(r: RunView): WorkflowRun {
  const ctx = JSON.parse(r.context) as Stored;
  const trigger = JSON.parse(r.trigger) as RunTrigger;
  return {
    id: r.id,
    workflowId: r.workflow_id,
    version: r.version,
    contactId: r.contact_id,
    contactName: r.contact_name,
    phone: r.phone,
    status: r.status,
    outcome: r.outcome,
    currentStepId: r.status === 'running' || r.status === 'waiting' ? r.current_step : null,
    trigger: {
      type: trigger.type,
      event: trigger.event ?? null,
      messageId: trigger.messageId ?? r.trigger_message_id ?? null,
    },
    payload: ctx.payload,
    error: r.error,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    endedAt: isoOrNull(r.ended_at),
  };
}

export function workflowEngine(d: WorkflowsDeps, repo: WorkflowsRepo) {
  const { db, clock, ids, scheduler, outbox, governor } = d;
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

  const runEvent = (
    r: RunView,
    type: 'workflow.run.started' | 'workflow.run.completed' | 'workflow.run.failed',
  ) => outbox.emit(scopeOf(r), type, { run: toRun(r) });

  function save(r: RunRow, ctx: Stored) {
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
    status: 'completed' | 'failed' | 'cancelled',
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
    status: 'completed' | 'failed' | 'cancelled',
    output: unknown,
    error: string | null,
  ) {
    outbox.emit(scopeOf(r), 'workflow.run.step', {
      runId: r.id,
      workflowId: r.workflow_id,
      step: { stepId: step.id, type: step.type, status, output: output ?? null, error },
    });
  }

  /** Notes a step's decision (its output's `outcome`): the last one is the run's outcome. */
  function decide(ctx: Stored, output: unknown) {
    const said =
      output && typeof output === 'object' ? (output as { outcome?: unknown }).outcome : undefined;
    if (typeof said === 'string' && Object.hasOwn(DECISIONS, said)) ctx.decision = DECISIONS[said];
  }

  function finish(r: RunView, ctx: Stored, error: string | null) {
    r.status = error ? 'failed' : 'completed';
    r.outcome = error ? 'failed' : (ctx.decision ?? 'completed');
    r.error = error;
    r.waiting_for = null;
    r.ended_at = clock.now();
    save(r, ctx);
    runEvent(r, error ? 'workflow.run.failed' : 'workflow.run.completed');
  }

  /**
   * Ends a running or waiting run before its path's end: a person took over (`handed_off`) or
   * someone cancelled it. The step it was waiting on is `cancelled`; jobs queued for it find a
   * later `seq` and do nothing. The caller emits the run's event.
   */
  function cut(r: RunView, status: 'handed_off' | 'cancelled', outcome: RunOutcome, live?: Stored) {
    const ctx = live ?? (JSON.parse(r.context) as Stored);
    if (r.waiting_for === 'timer' || r.waiting_for === 'reply' || r.waiting_for === 'webhook') {
      const def = definitionOf(r.workflow_id, r.version);
      const s = def.steps[step(def, r.current_step)];
      const open = repo.step(r.id, r.seq - 1);
      if (s && open && open.ended_at === null) {
        const before = open.output ? (JSON.parse(open.output) as Record<string, unknown>) : {};
        endStep(r, r.seq - 1, s, 'cancelled', { ...before, outcome: status }, null);
      }
    }
    ctx.attempts = 0;
    r.status = status;
    r.outcome = outcome;
    r.waiting_for = null;
    r.seq++; // jobs queued for it are stale now
    r.ended_at = clock.now();
    save(r, ctx);
  }

  const step = (def: WorkflowDefinition, id: string | null) =>
    id === null ? -1 : def.steps.findIndex((s) => s.id === id);

  function contactContext(c: ContactRow): RunContext['contact'] {
    return {
      name: c.name,
      firstName: firstNameOf(c.name),
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
      return {
        kind: 'next',
        next: null,
        output: {
          outcome: 'sent',
          messageId: result.messageId,
          text: fields.text,
          ...(fields.template_name ? { templateName: fields.template_name } : {}),
        },
      };
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

  /** The `assign` step's change: the conversation to a member, or the next agent in turn. */
  function assignConversation(scope: Scope, contact: ContactRow, to: string) {
    const assignee = to === 'round_robin' ? d.assignment.nextAgent(scope) : to;
    // The engine's own change (no person asked): the handoff is the engine's, after this.
    const conversationId = d.conversations.applyForRunner(
      scope,
      contact,
      assignee === null ? {} : { assignee },
    );
    return {
      conversationId,
      assignee,
      assigneeName:
        assignee === null
          ? null
          : (d.members.findActive(scope.workspaceId, assignee)?.name ?? null),
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
      openNow: () => d.businessHours.isOpen(scope.workspaceId, now),
      assign: (to) => assignConversation(scope, contact, to),
      messages: d.messages,
      lists: d.lists,
      conversations: d.conversations,
      members: d.members,
    });
  }

  /** Runs the run's steps from its current one until it waits, ends or uses its job's share. */
  function drive(r: RunView, stored?: Stored, known?: ContactRow) {
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
          output:
            outcome.kind === 'wait'
              ? JSON.stringify(
                  outcome.for === 'reply'
                    ? { timesOutAt: iso(outcome.until), timeout: s.timeout }
                    : { resumesAt: iso(outcome.until) },
                )
              : null,
          error: null,
        });
      }
      switch (outcome.kind) {
        case 'fail':
          ranStep(r, seq, s, 'failed', null, outcome.error);
          return finish(r, ctx, `step ${s.id}: ${outcome.error}`);
        case 'end':
          ranStep(r, seq, s, 'completed', outcome.output, null);
          r.current_step = null;
          return finish(r, ctx, null);
        case 'handoff': {
          ranStep(r, seq, s, 'completed', outcome.output, null);
          const { conversationId, assignee } = outcome.output;
          r.current_step = null;
          cut(r, 'handed_off', 'handed_off', ctx);
          handedOffEvent(r, 'assign_step', assignee, conversationId);
          // Handed over on purpose: the contact's other runs stop too, and the bot keeps quiet.
          handOff(scopeOf(r), conversationId, r.contact_id, 'assign_step', assignee);
          return;
        }
        case 'next':
          ranStep(r, seq, s, 'completed', outcome.output, null);
          decide(ctx, outcome.output);
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
  function resume(r: RunView, ctx: Stored, output: Record<string, unknown>, next: string | null) {
    const def = definitionOf(r.workflow_id, r.version);
    const index = step(def, r.current_step);
    const s = def.steps[index]!;
    const open = repo.step(r.id, r.seq - 1);
    const waiting = open?.output ? (JSON.parse(open.output) as Record<string, unknown>) : {};
    const ended = { ...waiting, ...output };
    endStep(r, r.seq - 1, s, 'completed', ended, null);
    decide(ctx, ended);
    // What `{{steps.ID.…}}` reads of a wait for a reply: the reply's own fields (and, timed out, `timedOut`).
    if (s.type === 'wait_for_reply') {
      const { reply, timesOutAt: _at, timeout: _t, ...kept } = ended as Record<string, unknown>;
      ctx.steps[s.id] = { ...kept, ...(reply && typeof reply === 'object' ? reply : {}) };
    }
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
      // A later step, a handoff or a cancel moved `seq` on: this job is stale.
      if (!found || found.run.seq !== seq) return;
      const r = found.run;
      const ctx = JSON.parse(r.context) as Stored;
      if (r.status === 'waiting') {
        const def = definitionOf(r.workflow_id, r.version);
        const s = def.steps[step(def, r.current_step)]!;
        if (r.waiting_for === 'timer') resume(r, ctx, { outcome: 'waited' }, null);
        else if (r.waiting_for === 'reply') {
          // No reply in time: the timeout path, or the end of the run.
          resume(
            r,
            ctx,
            { outcome: 'timed_out', timedOut: true, next: s.onTimeout ?? null },
            s.onTimeout ?? null,
          );
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

  /** A contact's message arrived (in its transaction): runs waiting for their reply resume on it. */
  function resumeOnReply(contactId: string, reply: InboundReply) {
    for (const r of repo.awaitingReply(contactId)) {
      const ctx = JSON.parse(r.context) as Stored;
      ctx.reply = reply;
      resume(r, ctx, { outcome: 'replied', reply }, null);
      save(r, ctx);
      scheduler.enqueue(STEP, { runId: r.id, seq: r.seq });
    }
  }

  /** A run of the workflow's current version, first step queued; call inside a transaction. */
  function startRun(
    w: Pick<WorkflowRow, 'id' | 'version' | 'workspace_id' | 'environment'>,
    contact: ContactRow,
    payload: Record<string, unknown>,
    trigger: RunTrigger,
    reply: InboundReply | null = null,
  ): RunView {
    const def = definitionOf(w.id, w.version);
    const now = clock.now();
    const r: RunView = {
      id: ids('run'),
      workflow_id: w.id,
      version: w.version,
      workspace_id: w.workspace_id,
      environment: w.environment,
      contact_id: contact.id,
      status: 'running',
      outcome: null,
      current_step: def.steps[0]!.id,
      seq: 0,
      waiting_for: null,
      context: JSON.stringify({
        payload,
        reply,
        steps: {},
        attempts: 0,
        decision: null,
      } satisfies Stored),
      trigger: JSON.stringify(trigger),
      trigger_message_id: trigger.messageId ?? null,
      error: null,
      created_at: now,
      updated_at: now,
      ended_at: null,
      phone: addressOf(contact),
      contact_name: contact.name,
    };
    repo.insertRun(r);
    runEvent(r, 'workflow.run.started');
    scheduler.enqueue(STEP, { runId: r.id, seq: 0 });
    return r;
  }

  function handedOffEvent(
    r: RunView,
    reason: HandOffReason,
    by: string | null,
    conversationId: string | null,
  ) {
    outbox.emit(scopeOf(r), 'workflow.run.handed_off', {
      run: toRun(r),
      reason,
      by,
      conversationId,
    });
  }

  /**
   * A person took the conversation over (design.md §7), in the transaction of their reply or
   * assignment: every running or waiting run of the contact, whichever workflow, ends
   * `handed_off`, and the conversation is quiet for automation for 24 h (no
   * `message_received` run starts).
   */
  function handOff(
    scope: Scope,
    conversationId: string,
    contactId: string,
    reason: HandOffReason,
    by: string | null,
  ) {
    repo.setHumanAt(conversationId, clock.now());
    for (const r of repo.contactActive(contactId)) {
      if (r.workspace_id !== scope.workspaceId || r.environment !== scope.environment) continue;
      cut(r, 'handed_off', 'handed_off');
      handedOffEvent(r, reason, by, conversationId);
    }
  }

  /** `POST /workflows/runs/:runId/cancel`'s change: the run ends `cancelled`. */
  function cancel(r: RunView) {
    cut(r, 'cancelled', 'cancelled');
    outbox.emit(scopeOf(r), 'workflow.run.failed', { run: toRun(r), reason: 'cancelled' });
  }

  return { definitionOf, startRun, resumeOnReply, handOff, cancel };
}
export type WorkflowEngine = ReturnType<typeof workflowEngine>;
