import type { Database as Db } from 'better-sqlite3';
import type { BlockedBy, CampaignStatus, PauseReason } from '../../../../shared/campaign-rules.ts';
import {
  ERROR_PAUSE_THRESHOLD,
  ERROR_WINDOW,
  isFinalCampaign,
  MAX_RECIPIENT_ATTEMPTS,
} from '../../../../shared/campaign-rules.ts';
import { allows, canMove, launchable, reschedulable } from '../../../../shared/campaign-states.ts';
import { ApiError } from '../../../../shared/errors.ts';
import type { MissingPlaceholder, PlaceholderContact } from '../../../../shared/placeholders.ts';
import { missingTally } from '../../../../shared/template-strings.ts';
import {
  parsePlaceholders,
  PLACEHOLDER_HELP,
  renderPlaceholders,
} from '../../../../shared/placeholders.ts';
import type {
  Campaign,
  CampaignAudience,
  CampaignProgress,
  CampaignRecipient,
  CampaignTarget,
  CampaignTimeline,
  CreateCampaignBody,
  UpdateCampaignBody,
} from '../../../../shared/schemas/campaigns.ts';
import type { TemplateComponent } from '../../../../shared/schemas/templates.ts';
import type { Outbox } from '../../events/outbox.ts';
import { decodeCursor, decodeNumericCursor, toPage } from '../../http/pagination.ts';
import { campaignRunner } from '../../jobs/campaign-runner.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import type { Governor, PaceKey, PaceLimits } from '../../pacing/governor.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { ContactsService } from '../contacts/service.ts';
import { phoneOrThrow } from '../contacts/service.ts';
import type { MessagesService, Sender } from '../messages/service.ts';
import { insideServiceWindow, requireVariables } from '../messages/service.ts';
import type { TemplateRow } from '../templates/repo.ts';
import type { TemplatesService } from '../templates/service.ts';
import { renderTemplate } from '../templates/rules.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { AudienceContact, CampaignRow } from './repo.ts';
import { campaignsRepo } from './repo.ts';

/** Recipients handed over in one transaction at most (more at once would hold requests up). */
export const MAX_BATCH = 100;
/**
 * A pass hands over for at most this long (a hand-over is under a millisecond: a message, its
 * conversation, their events), then ends and the next one follows at once, after the
 * requests that came in meanwhile (within the scheduler's 10 ms tick budget).
 */
const PASS_BUDGET_MS = 8;
/** A pass waits for room for this share of a second's messages, so batches stay large. */
const MIN_BATCH_SECONDS = 0.05;
const RATE_WINDOW_S = 10;
const TIMELINE_POINTS = 300;
const CAMPAIGN_SENDER: Sender = { sentBy: 'bot', agentId: null };

export interface CampaignsDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  scheduler: Scheduler;
  outbox: Outbox;
  governor: Governor;
  contacts: ContactsService;
  templates: TemplatesService;
  messages: MessagesService;
  workspaces: WorkspacesService;
  log: (message: string, error?: unknown) => void;
}

const scopeOf = (c: CampaignRow): Scope => ({
  workspaceId: c.workspace_id,
  environment: c.environment,
});

/** Retry pauses after a retryable refusal: 1 s, 2 s, 4 s, 8 s. */
const backoffMs = (attempts: number) => 1000 * 2 ** Math.max(0, attempts - 1);

const toPlaceholderContact = (c: AudienceContact): PlaceholderContact => ({
  name: c.name,
  phone: c.phone ?? '',
  email: c.email,
  attributes: JSON.parse(c.attributes) as PlaceholderContact['attributes'],
});

/**
 * A campaign's variables for one contact: `{{contact.*}}` filled in. A value that reads a field
 * the contact lacks, or renders empty, makes the recipient fail with `variable_missing`.
 */
export function renderVariables(
  variables: Record<string, string>,
  contact: PlaceholderContact,
):
  | { ok: true; values: Record<string, string> }
  | { ok: false; message: string; missing: MissingPlaceholder[] } {
  const values: Record<string, string> = {};
  // Every variable is rendered, so the audience check can name each missing placeholder.
  const missing: MissingPlaceholder[] = [];
  let message: string | null = null;
  for (const [k, v] of Object.entries(variables)) {
    const rendered = renderPlaceholders(v, contact);
    if (rendered.missing.length > 0) {
      missing.push(...rendered.missing);
      message ??= `variable {{${k}}} uses ${rendered.missing.map((m) => m.raw).join(', ')}, which this contact does not have`;
    } else if (rendered.text.trim() === '') {
      message ??= `variable {{${k}}} renders empty`;
    }
    values[k] = rendered.text;
  }
  return message === null ? { ok: true, values } : { ok: false, message, missing };
}

const usesPlaceholders = (variables: Record<string, string>) =>
  Object.values(variables).some((v) => parsePlaceholders(v).placeholders.length > 0);

/**
 * Messaging campaigns (README "Campaigns"): drafts, launch (recipients fixed then), the
 * runner and its progress. The runner works in passes, each one transaction that claims due
 * recipients, asks the governor, hands their messages over and settles them: a recipient's
 * message row commits with its move to `sent`, so a SIGKILL loses or repeats nothing.
 */
export function campaignsService(d: CampaignsDeps) {
  const { db, clock, ids, scheduler, outbox, governor } = d;
  const repo = campaignsRepo(db);

  // ---- records ------------------------------------------------------------------------------

  function progressOf(c: CampaignRow, now = clock.now()): CampaignProgress {
    const sending = c.status === 'sending';
    let rate = 0;
    if (sending && c.launched_at !== null) {
      // Whole seconds only (the current one is still filling): the last up to 10 since launch.
      const current = Math.floor(now / 1000);
      const whole = Math.min(RATE_WINDOW_S, current - Math.floor(c.launched_at / 1000));
      const sent =
        whole >= 1
          ? repo.sentBetween(c.id, current - whole, current - 1)
          : repo.sentBetween(c.id, current, current);
      rate = Math.round((sent / Math.max(1, whole)) * 10) / 10;
    }
    const left = c.n_pending + c.n_retrying;
    let eta: number | null = null;
    if (sending && left > 0) {
      const { throughputMps } = d.workspaces.limitsFor(c.workspace_id, c.environment);
      const perSecond = rate > 0 ? rate : throughputMps;
      eta = Math.ceil(left / perSecond);
      if (c.blocked_by === 'tier' && c.blocked_until !== null) {
        eta = Math.max(eta, Math.ceil((c.blocked_until - now) / 1000));
      }
    }
    const blocked = sending && c.blocked_by !== null && c.blocked_until !== null;
    return {
      status: c.status,
      total: c.total,
      pending: c.n_pending,
      retrying: c.n_retrying,
      sent: c.n_sent,
      delivered: c.n_delivered,
      read: c.n_read,
      failed: c.n_failed,
      skipped: c.n_skipped,
      ratePerSecond: rate,
      etaSeconds: eta,
      blockedUntil: blocked ? iso(c.blocked_until!) : null,
      blockedBy: blocked ? c.blocked_by : null,
    };
  }

  function toCampaign(c: CampaignRow): Campaign {
    return {
      id: c.id,
      name: c.name,
      status: c.status,
      templateName: c.template_name,
      variables: JSON.parse(c.variables) as Record<string, string>,
      target: JSON.parse(c.target) as CampaignTarget,
      scheduledFor: isoOrNull(c.scheduled_for),
      metrics: progressOf(c),
      pauseReason: c.pause_reason,
      failureReason: c.failure_reason,
      environment: c.environment,
      createdAt: iso(c.created_at),
      updatedAt: iso(c.updated_at),
      launchedAt: isoOrNull(c.launched_at),
      completedAt: isoOrNull(c.completed_at),
    };
  }

  function find(scope: Scope, id: string): CampaignRow {
    const c = repo.inScope(scope, id);
    if (!c) throw new ApiError('not_found', `no campaign ${id}`, { param: 'id' });
    return c;
  }

  /** The state machine's word (launch: a launch or a resume, as the API's call is both). */
  function requireAllowed(c: CampaignRow, action: 'edit' | 'launch' | 'pause' | 'cancel') {
    if (
      action === 'launch'
        ? launchable('messaging', c.status)
        : allows('messaging', action, c.status)
    )
      return;
    const verb = { edit: 'edited', launch: 'launched', pause: 'paused', cancel: 'cancelled' }[
      action
    ];
    throw new ApiError(
      'invalid_state',
      action === 'edit'
        ? `campaign ${c.id} is ${c.status}: only drafts can be edited`
        : `campaign ${c.id} is ${c.status} and cannot be ${verb}`,
      { details: { status: c.status } },
    );
  }

  // ---- events -------------------------------------------------------------------------------

  function emitStatus(c: CampaignRow, previous: CampaignStatus) {
    outbox.emit(scopeOf(c), 'campaign.status_updated', {
      campaign: toCampaign(c),
      previousStatus: previous,
    });
  }

  /** Moves a campaign to a new state and says so (status event; a final progress when it ends). */
  function transition(
    c: CampaignRow,
    status: CampaignStatus,
    changes: Partial<CampaignRow> = {},
  ): CampaignRow {
    if (!canMove('messaging', c.status, status)) {
      throw new Error(`campaign ${c.id}: no move from ${c.status} to ${status}`);
    }
    const now = clock.now();
    const next: CampaignRow = {
      ...c,
      status,
      pause_reason: null,
      failure_reason: null,
      blocked_by: null,
      blocked_until: null,
      ...changes,
      updated_at: now,
    };
    if (isFinalCampaign(status)) next.completed_at ??= now;
    repo.setState(next);
    const fresh = repo.get(c.id)!;
    emitStatus(fresh, c.status);
    if (isFinalCampaign(status) || status === 'paused') runner.reportNow(fresh, true);
    return fresh;
  }

  // ---- validation ---------------------------------------------------------------------------

  function templateFor(scope: Scope, name: string): TemplateRow {
    const tpl = d.templates.findByName(scope, name);
    if (!tpl) {
      throw new ApiError(
        'template_not_found',
        `no template named "${name}" (names are case-sensitive)`,
        { param: 'templateName' },
      );
    }
    return tpl;
  }

  function checkVariables(tpl: TemplateRow, variables: Record<string, string>) {
    for (const [k, v] of Object.entries(variables)) {
      if (v.trim() === '') {
        throw new ApiError('validation_error', `variable {{${k}}} is empty`, {
          param: `variables.${k}`,
        });
      }
      const { unknown } = parsePlaceholders(v);
      if (unknown.length > 0) {
        throw new ApiError(
          'validation_error',
          `${unknown[0]} is not a placeholder: use ${PLACEHOLDER_HELP}`,
          { param: `variables.${k}` },
        );
      }
    }
    requireVariables(tpl, variables);
  }

  /** The target with its phones normalised; an unknown group answers 404 naming it. */
  function checkTarget(scope: Scope, target: CampaignTarget, param = 'target'): CampaignTarget {
    if (target.groupId) {
      d.contacts.requireGroup(scope, target.groupId, `${param}.groupId`);
      return { groupId: target.groupId };
    }
    const filter = { ...target.filter };
    if (filter.phones) {
      filter.phones = [
        ...new Set(filter.phones.map((p, i) => phoneOrThrow(p, `${param}.filter.phones.${i}`))),
      ];
    }
    return { filter };
  }

  function checkSchedule(at: string | null | undefined, param = 'scheduledFor'): number | null {
    if (at === undefined || at === null) return null;
    const t = Date.parse(at);
    if (t <= clock.now()) {
      throw new ApiError('validation_error', 'scheduledFor must be in the future', { param });
    }
    return t;
  }

  // ---- launch -------------------------------------------------------------------------------

  /** Fixes the recipients: one per contact the target matches, variables rendered for each. */
  function materialize(c: CampaignRow): number {
    const scope = scopeOf(c);
    const target = JSON.parse(c.target) as CampaignTarget;
    const variables = JSON.parse(c.variables) as Record<string, string>;
    const contacts = repo.audienceRows(scope, target);
    if (contacts.length === 0) {
      throw new ApiError('validation_error', 'the target matches no contacts', {
        param: 'target',
      });
    }
    const now = clock.now();
    const perContact = usesPlaceholders(variables);
    const shared = JSON.stringify(variables);
    const rows = contacts.map((contact): [string, string, string, string | null] => {
      const rendered = perContact
        ? renderVariables(variables, toPlaceholderContact(contact))
        : ({ ok: true, values: null } as const);
      return [
        contact.id,
        // The address it goes to: the phone, or the BSUID of a contact without one.
        contact.phone ?? contact.wa_user_id ?? '',
        rendered.ok ? (rendered.values ? JSON.stringify(rendered.values) : shared) : '{}',
        rendered.ok ? null : rendered.message,
      ];
    });
    repo.insertRecipients(c.id, rows, now);
    return contacts.length;
  }

  /** Starts sending now: the runner's job, or the end at once when nobody is left to send to. */
  function startSending(c: CampaignRow): CampaignRow {
    const now = clock.now();
    const next = transition(c, 'sending', { launched_at: c.launched_at ?? now });
    runner.queueRun(c.id);
    runner.reportNow(next);
    return next;
  }

  // ---- the runner ---------------------------------------------------------------------------

  /**
   * One pass, the hand-over the runner skeleton calls: one transaction's worth of recipients
   * claimed, checked by the governor and handed to messages.handOverForRunner (see the service's
   * comment); when to look again, or null.
   */
  function pass(c: CampaignRow, now: number): number | null {
    const scope = scopeOf(c);
    const variables = JSON.parse(c.variables) as Record<string, string>;

    let tpl: TemplateRow;
    try {
      tpl = d.messages.sendableTemplate(scope, c.template_name, variables);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const reason = `template "${c.template_name}" can no longer be sent: ${e.message}`;
      repo.skipRest(c.id, 'template_not_sendable', reason, now);
      transition(repo.get(c.id)!, 'failed', { failure_reason: reason });
      return null;
    }

    const { account, ...provider } = d.workspaces.limitsFor(c.workspace_id, c.environment);
    const key: PaceKey = { accountId: account.id, environment: c.environment };
    const limits: PaceLimits = {
      throughputMps: provider.throughputMps,
      messagingTier: provider.messagingTier,
    };
    // Campaigns sending on one account share its window: each pass takes its part of the room.
    const sharing = Math.max(1, repo.sendingInScope(c.workspace_id, c.environment));
    // Every governor read uses the pass's one time: the time its hand-overs are stamped with.
    const room = governor.room(key, limits.throughputMps, now);
    const cap = Math.min(MAX_BATCH, Math.ceil(room / sharing));
    const rows = cap >= 1 ? repo.due(c.id, now, cap) : [];

    const components = JSON.parse(tpl.components) as TemplateComponent[];
    let used = limits.messagingTier === null ? 0 : governor.tierUsed(key, now);
    let spent = 0;
    let sent = 0;
    let refused = 0;
    let outcomes = c.recent_outcomes;
    // hold, paused and outOfTime are set inside the hand-overs' callback (gatherReceipts):
    // typed as they may end up, not as their first value.
    let hold = null as { by: Exclude<BlockedBy, 'throughput'>; until: number } | null;
    let paused = null as PauseReason | null;
    let tierEnds: number[] | undefined;
    let tierRefused = 0;

    const started = performance.now();
    let outOfTime = false as boolean;
    // The receipts the channel promises for the pass's messages: one job per status.
    d.messages.gatherReceipts(() => {
      for (const r of rows) {
        if (spent + refused > 0 && performance.now() - started >= PASS_BUDGET_MS) {
          outOfTime = true;
          break;
        }
        const inside = insideServiceWindow(r.last_inbound_at, now);
        const verdict = governor.check(key, limits, r.phone, inside, used, now);
        if (!verdict.ok) {
          let until = verdict.until;
          if (verdict.by === 'tier') {
            // The k-th refused waits for the k-th slot to end (the slots still running are
            // this pass's at most: one lookup for the pass).
            tierEnds ??= governor.tierSlotEnds(key, rows.length, now);
            until = tierEnds[Math.min(tierRefused, tierEnds.length - 1)] ?? until;
            tierRefused++;
          }
          repo.hold(r.id, until);
          if (!hold || (verdict.by === 'tier' && hold.by !== 'tier') || until < hold.until) {
            hold = { by: verdict.by, until };
          }
          continue;
        }
        const values = JSON.parse(r.variables) as Record<string, string>;
        const attempt = r.attempts + 1;
        const result = d.messages.handOverForRunner(
          scope,
          { id: r.contact_id, phone: r.phone, last_inbound_at: r.last_inbound_at },
          {
            type: 'template',
            template_name: tpl.name,
            text: renderTemplate(components, values),
            variables: r.variables,
            category: tpl.category,
          },
          CAMPAIGN_SENDER,
          { attempt, campaignId: c.id, takesTierSlot: verdict.takesTierSlot, at: now },
        );
        if (!result.ok && result.kind === 'insufficient_balance') {
          paused = 'insufficient_balance';
          break;
        }
        spent++;
        if (result.ok) {
          if (verdict.takesTierSlot) used++;
          sent++;
          outcomes += '0';
          repo.settle({
            id: r.id,
            status: 'sent',
            attempts: attempt,
            due_at: now,
            message_id: result.messageId,
            error_code: null,
            error_message: null,
            updated_at: now,
          });
        } else {
          refused++;
          outcomes += '1';
          const again = result.retryable && attempt < MAX_RECIPIENT_ATTEMPTS;
          repo.settle({
            id: r.id,
            status: again ? 'retrying' : 'failed',
            attempts: attempt,
            due_at: again ? now + backoffMs(attempt) : now,
            message_id: null,
            error_code: result.code,
            error_message: result.message,
            updated_at: now,
          });
        }
        outcomes = outcomes.slice(-ERROR_WINDOW);
        if ([...outcomes].filter((o) => o === '1').length > ERROR_PAUSE_THRESHOLD) {
          paused = 'error_rate';
          break;
        }
      }
    });

    governor.spend(key, spent, now);
    if (sent + refused > 0) repo.addSecond(c.id, Math.floor(now / 1000), sent, refused);

    // What next: the end, a pause, another pass now, or one when tokens or recipients are due.
    const after = repo.get(c.id)!;
    if (paused) {
      repo.setPass({ id: c.id, blocked_until: null, blocked_by: null, recent_outcomes: outcomes });
      transition(repo.get(c.id)!, 'paused', { pause_reason: paused });
      return null;
    }
    if (remaining(after) === 0) {
      repo.setPass({ id: c.id, blocked_until: null, blocked_by: null, recent_outcomes: outcomes });
      runner.finishIfDone(repo.get(c.id)!);
      return null;
    }
    let again: number;
    let blockedBy: BlockedBy | null = null;
    let blockedUntil: number | null = null;
    if (repo.anyDue(c.id, now)) {
      const left = governor.room(key, limits.throughputMps, now);
      if (outOfTime || (left >= 1 && rows.length === cap)) again = now;
      else {
        const want = Math.max(1, Math.ceil(limits.throughputMps * MIN_BATCH_SECONDS));
        again = governor.roomAt(key, limits.throughputMps, want, now);
        if (again > now) {
          blockedBy = 'throughput';
          blockedUntil = again;
        }
      }
    } else {
      again = repo.nextDue(c.id) ?? now;
      // Waiting for what the governor held (not for a retry's backoff): say what and until when.
      if (hold && again >= hold.until) {
        blockedBy = hold.by;
        blockedUntil = hold.until;
      } else if (
        !hold &&
        sent + refused === 0 &&
        c.blocked_by &&
        c.blocked_by !== 'throughput' &&
        c.blocked_until !== null &&
        again >= c.blocked_until
      ) {
        blockedBy = c.blocked_by;
        blockedUntil = c.blocked_until;
      }
    }
    repo.setPass({
      id: c.id,
      blocked_until: blockedUntil,
      blocked_by: blockedBy,
      recent_outcomes: outcomes,
    });
    if (sent + refused > 0 || blockedBy !== c.blocked_by) runner.report(c.id);
    return again;
  }

  const remaining = (c: CampaignRow) => c.n_pending + c.n_retrying;

  /** The runner skeleton (jobs/campaign-runner.ts) with messaging's hand-over and progress. */
  const runner = campaignRunner(scheduler, clock, {
    jobs: { run: 'campaign.run', start: 'campaign.start', progress: 'campaign.progress' },
    load: (id) => repo.get(id),
    start: (c) => {
      startSending(c);
      return true;
    },
    pass,
    remaining,
    complete: (c) => transition(c, 'completed'),
    maxAttempts: 10,
    onDead: (c, job, error) => {
      if (c.status !== (job === 'run' ? 'sending' : 'scheduled')) return;
      const reason =
        job === 'run'
          ? `the runner kept failing: ${error}`
          : `the scheduled start kept failing: ${error}`;
      repo.skipRest(c.id, 'dispatch_failed', reason, clock.now());
      transition(repo.get(c.id)!, 'failed', { failure_reason: reason });
    },
    progress: {
      read: (c, now) => progressOf(c, now),
      signature: ({ ratePerSecond: _rate, etaSeconds: _eta, ...counts }) => JSON.stringify(counts),
      emit: (c, progress) =>
        outbox.emit(scopeOf(c), 'campaign.progress', { campaignId: c.id, name: c.name, progress }),
      // Kept in the store: the app and `parley campaigns launch --wait` share it.
      lastAt: (c) => c.progress_at,
      recordAt: (c, now) => repo.setProgressAt(c.id, now),
    },
  });

  // Delivery and read receipts move the funnel (triggers); progress events follow, ≤ 1/s.

  // ---- the API ------------------------------------------------------------------------------

  const service = {
    /**
     * One of a campaign's messages changed status (in its transaction): its progress event is
     * due. Wired to the messages service in services.ts.
     */
    noteProgress: (id: string) => runner.report(id),
    repo,
    /** A campaign's row by id, whatever its scope (the CLI finds the scope from it). */
    byId: (id: string) => repo.get(id),
    /** The target with its phones normalised (404 for an unknown group); email audiences too. */
    checkTarget,
    /** The contacts of a target that have an email address and have not unsubscribed. */
    emailAudienceRows: (scope: Scope, target: CampaignTarget) =>
      repo.emailAudienceRows(scope, target),
    /** How many a target matches, and how many of them have no address or unsubscribed. */
    emailAudienceCounts: (scope: Scope, target: CampaignTarget) =>
      repo.emailAudienceCounts(scope, target),
    toCampaign,
    progressOf,

    create(scope: Scope, body: CreateCampaignBody): Campaign {
      return db
        .transaction(() => {
          const tpl = templateFor(scope, body.templateName);
          const variables = body.variables ?? {};
          checkVariables(tpl, variables);
          const target = checkTarget(scope, body.target);
          const scheduledFor = checkSchedule(body.scheduledFor);
          const now = clock.now();
          const id = ids('cmp');
          repo.insert({
            id,
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            name: body.name,
            template_name: tpl.name,
            variables: JSON.stringify(variables),
            target: JSON.stringify(target),
            scheduled_for: scheduledFor,
            created_at: now,
            updated_at: now,
          });
          return toCampaign(repo.get(id)!);
        })
        .immediate();
    },

    update(scope: Scope, body: UpdateCampaignBody): Campaign {
      return db
        .transaction(() => {
          const c = find(scope, body.id);
          requireAllowed(c, 'edit');
          const tpl = templateFor(scope, body.templateName ?? c.template_name);
          const variables = body.variables ?? (JSON.parse(c.variables) as Record<string, string>);
          checkVariables(tpl, variables);
          const target = body.target
            ? checkTarget(scope, body.target)
            : (JSON.parse(c.target) as CampaignTarget);
          const scheduledFor =
            body.scheduledFor === undefined ? c.scheduled_for : checkSchedule(body.scheduledFor);
          repo.updateDraft({
            ...c,
            name: body.name ?? c.name,
            template_name: tpl.name,
            variables: JSON.stringify(variables),
            target: JSON.stringify(target),
            scheduled_for: scheduledFor,
            updated_at: clock.now(),
          });
          return toCampaign(repo.get(c.id)!);
        })
        .immediate();
    },

    /**
     * The account's tier or throughput changed: recipients the governor held wait for the old
     * limits no longer, so the workspace's sending campaigns look again now.
     */
    limitsChanged(workspaceId: string) {
      db.transaction(() => {
        const now = clock.now();
        for (const id of repo.sendingIds(workspaceId)) {
          repo.unhold(id, now);
          runner.queueRun(id);
        }
      }).immediate();
    },

    get: (scope: Scope, id: string): Campaign => toCampaign(find(scope, id)),

    progress: (scope: Scope, id: string): CampaignProgress => progressOf(find(scope, id)),

    list(
      scope: Scope,
      q: { status?: CampaignStatus; contactId?: string; limit: number; cursor?: string },
    ) {
      const p = {
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        status: q.status ?? null,
        cursor: q.cursor ? decodeCursor(q.cursor) : null,
        limit: q.limit + 1,
      };
      if (q.contactId) {
        return toPage(
          repo.listForContact({ ...p, contactId: q.contactId }),
          q.limit,
          (r) => ({
            ...toCampaign(r),
            recipient: {
              status: r.r_status,
              messageId: r.r_message_id,
              error: r.r_error_code
                ? { code: r.r_error_code, message: r.r_error_message ?? '' }
                : null,
              updatedAt: iso(r.r_updated_at),
            },
          }),
          (r) => r.id,
        );
      }
      return toPage(repo.list(p), q.limit, toCampaign, (r) => r.id);
    },

    launch(scope: Scope, body: { id: string; scheduledFor?: string }): Campaign {
      return db
        .transaction(() => {
          const c = find(scope, body.id);
          requireAllowed(c, 'launch');
          const now = clock.now();
          const at =
            body.scheduledFor !== undefined ? checkSchedule(body.scheduledFor) : c.scheduled_for;
          const started = c.launched_at !== null;
          if (
            c.status === 'paused' &&
            body.scheduledFor !== undefined &&
            !reschedulable('messaging', c.status, started)
          ) {
            throw new ApiError(
              'validation_error',
              'this campaign has started sending: launching it again resumes it now (scheduledFor applies before the start)',
              { param: 'scheduledFor' },
            );
          }
          if (c.status === 'paused') {
            // Resume now (README "Campaigns"): a campaign paused before its scheduled start does
            // not go back to that time by itself; `scheduledFor` reschedules it instead.
            if (!started && body.scheduledFor !== undefined && at !== null) {
              const next = transition(c, 'scheduled', { scheduled_for: at });
              runner.queueStart(c.id, at);
              return toCampaign(next);
            }
            // A fresh error window: the failures that paused it were looked at.
            repo.setPass({ id: c.id, blocked_until: null, blocked_by: null, recent_outcomes: '' });
            const fresh = repo.get(c.id)!;
            // Never started: it starts now, so its old schedule no longer applies.
            return toCampaign(
              startSending(c.launched_at === null ? { ...fresh, scheduled_for: null } : fresh),
            );
          }
          d.messages.sendableTemplate(scope, c.template_name, JSON.parse(c.variables));
          materialize(c);
          const fresh = repo.get(c.id)!;
          if (at !== null && at > now) {
            const next = transition(fresh, 'scheduled', { scheduled_for: at });
            runner.queueStart(c.id, at, false);
            return toCampaign(next);
          }
          return toCampaign(startSending(fresh));
        })
        .immediate();
    },

    pause(scope: Scope, id: string): Campaign {
      return db
        .transaction(() => {
          const c = find(scope, id);
          requireAllowed(c, 'pause');
          return toCampaign(transition(c, 'paused'));
        })
        .immediate();
    },

    cancel(scope: Scope, id: string): Campaign {
      return db
        .transaction(() => {
          const c = find(scope, id);
          requireAllowed(c, 'cancel');
          repo.skipRest(
            c.id,
            'cancelled',
            'the campaign was cancelled before this recipient’s turn',
            clock.now(),
          );
          return toCampaign(transition(repo.get(c.id)!, 'cancelled'));
        })
        .immediate();
    },

    recipients(
      scope: Scope,
      id: string,
      q: { status?: string; limit: number; cursor?: string },
    ): { data: CampaignRecipient[]; nextCursor: string | null } {
      const c = find(scope, id);
      const rows = repo.recipients({
        campaignId: c.id,
        ...(q.status ? { status: q.status } : {}),
        cursor: q.cursor ? decodeNumericCursor(q.cursor) : null,
        limit: q.limit + 1,
      });
      return toPage(
        rows,
        q.limit,
        (r) => ({
          contactId: r.contact_id,
          phone: r.phone,
          name: r.name,
          status: r.status,
          attempts: r.attempts,
          messageId: r.message_id,
          error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
          nextAttemptAt: r.status === 'retrying' ? iso(r.due_at) : null,
          updatedAt: iso(r.updated_at),
        }),
        (r) => r.id,
      );
    },

    timeline(scope: Scope, id: string): CampaignTimeline {
      const c = find(scope, id);
      const { size, rows } = repo.timeline(c.id, TIMELINE_POINTS);
      if (rows.length === 0) return { bucketSeconds: size, data: [] };
      // Buckets without hand-overs are zeros, so the chart shows the pauses.
      const byAt = new Map(rows.map((r) => [r.at, r]));
      const data: CampaignTimeline['data'] = [];
      for (let at = rows[0]!.at; at <= rows[rows.length - 1]!.at; at += size) {
        const r = byAt.get(at);
        data.push({ at: iso(at * 1000), sent: r?.sent ?? 0, failed: r?.failed ?? 0 });
      }
      return { bucketSeconds: size, data };
    },

    audience(
      scope: Scope,
      body: { target: CampaignTarget; templateName?: string; variables?: Record<string, string> },
    ): CampaignAudience {
      const target = checkTarget(scope, body.target);
      const variables = body.variables ?? {};
      const total = repo.audienceCount(scope, target);
      const tpl = body.templateName ? d.templates.findByName(scope, body.templateName) : null;
      let missing = 0;
      const tally = missingTally();
      if (usesPlaceholders(variables)) {
        for (const contact of repo.audienceRows(scope, target)) {
          const rendered = renderVariables(variables, toPlaceholderContact(contact));
          if (rendered.ok) continue;
          missing++;
          tally.add(rendered.missing);
        }
      }
      const first = total > 0 ? repo.audienceRows(scope, target, 1)[0] : undefined;
      let sample: CampaignAudience['sample'] = null;
      if (first) {
        const values: Record<string, string> = {};
        for (const [k, v] of Object.entries(variables)) {
          values[k] = renderPlaceholders(v, toPlaceholderContact(first)).text;
        }
        sample = {
          contactId: first.id,
          phone: first.phone ?? first.wa_user_id ?? '',
          name: first.name,
          variables: values,
          text: tpl
            ? renderTemplate(JSON.parse(tpl.components) as TemplateComponent[], values)
            : null,
        };
      }
      return { total, missingVariables: missing, missingPlaceholders: tally.list(), sample };
    },
  };
  return service;
}
export type CampaignsService = ReturnType<typeof campaignsService>;
