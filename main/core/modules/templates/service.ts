import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import { sameLanguage } from '../../../../shared/template-rules.ts';
import type {
  CreateTemplateBody,
  EditTemplateBody,
  Template,
  TemplateComponent,
  TemplateStatus,
} from '../../../../shared/schemas/templates.ts';
import type { Outbox } from '../../events/outbox.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { SimulatorSettingsService } from '../simulator/settings.ts';
import type { TemplateRow } from './repo.ts';
import { templatesRepo } from './repo.ts';
import { checkTemplate, policyViolation } from './rules.ts';
import type { CloudApiClient, ProviderTemplate } from '../../channel/cloud-api.ts';
import { GraphError, GraphUnreachable } from '../../channel/cloud-api.ts';

export const toTemplate = (r: TemplateRow): Template => ({
  id: r.id,
  name: r.name,
  category: r.category,
  language: r.language,
  status: r.status,
  components: JSON.parse(r.components) as TemplateComponent[],
  variableCount: r.variable_count,
  rejectionReason: r.rejection_reason,
  approvedAt: isoOrNull(r.approved_at),
  usableAt: isoOrNull(r.usable_at),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const scopeOf = (r: TemplateRow): Scope => ({
  workspaceId: r.workspace_id,
  environment: r.environment as Scope['environment'],
});

export type ReviewDecision = 'approve' | 'reject' | 'pause' | 'disable';

const TRANSITIONS: Record<ReviewDecision, { from: TemplateStatus[]; to: TemplateStatus }> = {
  approve: { from: ['PENDING', 'PAUSED'], to: 'APPROVED' },
  reject: { from: ['PENDING'], to: 'REJECTED' },
  pause: { from: ['APPROVED'], to: 'PAUSED' },
  disable: { from: ['APPROVED', 'PAUSED'], to: 'DISABLED' },
};

/** Meta's template statuses and events, as ours. */
const PROVIDER_STATUS: Record<string, TemplateStatus | undefined> = {
  APPROVED: 'APPROVED',
  REINSTATED: 'APPROVED',
  REJECTED: 'REJECTED',
  PENDING: 'PENDING',
  IN_APPEAL: 'PENDING',
  PAUSED: 'PAUSED',
  DISABLED: 'DISABLED',
  PENDING_DELETION: 'DISABLED',
  DELETED: 'DISABLED',
};

/**
 * Templates and their lifecycle (README "API"): PENDING → APPROVED | REJECTED; APPROVED →
 * PAUSED → APPROVED, or DISABLED; an edit returns it to PENDING. The simulated provider reviews
 * pending templates through a durable job, so a restart does not lose a review. A live account
 * connected to the Cloud API submits them to Meta instead (a durable job too), deletes them there,
 * and sync reads Meta's list back.
 */
export function templatesService(
  db: Db,
  clock: Clock,
  ids: IdGenerator,
  scheduler: Scheduler,
  outbox: Outbox,
  simulator: SimulatorSettingsService,
  /** The Cloud API of a live account connected to it; null: the simulated review. */
  provider: (scope: Scope) => CloudApiClient | null = () => null,
) {
  const repo = templatesRepo(db);

  function require(scope: Scope, id: string): TemplateRow {
    const row = repo.get(scope, id);
    if (!row) throw new ApiError('not_found', `no template ${id}`);
    return row;
  }

  function scheduleReview(row: TemplateRow) {
    if (provider(scopeOf(row))) {
      scheduler.enqueue(
        'template.submit',
        { templateId: row.id, stamp: row.updated_at },
        { dedupeKey: `template.submit:${row.id}:${row.updated_at}` },
      );
      return;
    }
    const delay = simulator.get(row.workspace_id).reviewDelayMs;
    scheduler.enqueue(
      'template.review',
      { templateId: row.id, stamp: row.updated_at },
      { delayMs: delay, dedupeKey: `template.review:${row.id}:${row.updated_at}` },
    );
  }

  /** Moves a template to a new status and writes its event; inside a transaction. */
  function transition(
    row: TemplateRow,
    to: TemplateStatus,
    reason: string | null,
    /** A real provider's approval: usable at once (the wait is the simulator's). */
    byProvider = false,
  ): TemplateRow {
    const now = clock.now();
    const previous = row.status;
    const next: TemplateRow = { ...row, status: to, updated_at: Math.max(now, row.updated_at + 1) };
    if (to === 'APPROVED') {
      next.rejection_reason = null;
      if (previous === 'PENDING') {
        next.approved_at = now;
        next.usable_at = byProvider
          ? now
          : now + simulator.approvalWait(row.workspace_id, scopeOf(row).environment);
      }
    }
    if (to === 'REJECTED') next.rejection_reason = reason ?? 'Rejected by the channel provider';
    repo.update(next);
    outbox.emit(scopeOf(next), 'template.status_updated', {
      template: toTemplate(next),
      previousStatus: previous,
      ...(next.rejection_reason && to === 'REJECTED' ? { reason: next.rejection_reason } : {}),
    });
    return next;
  }

  /** The simulated provider's review of one pending template version. */
  function review(row: TemplateRow): TemplateRow {
    const violation = policyViolation(JSON.parse(row.components) as TemplateComponent[]);
    return violation ? transition(row, 'REJECTED', violation) : transition(row, 'APPROVED', null);
  }

  // A live template goes to Meta (create, or edit once it has Meta's id); Meta's verdict comes
  // back by webhook or sync. A refusal of the submission itself rejects it with Meta's words.
  scheduler.register(
    'template.submit',
    async (payload) => {
      const { templateId, stamp } = payload;
      const row = repo.byId(templateId);
      if (!row || row.status !== 'PENDING' || row.updated_at !== stamp) return;
      const client = provider(scopeOf(row));
      if (!client) {
        // Disconnected since: the simulated provider reviews it, as for any unconnected account.
        db.transaction(() => {
          const now = repo.byId(templateId);
          if (now && now.status === 'PENDING' && now.updated_at === stamp) review(now);
        }).immediate();
        return;
      }
      const components = JSON.parse(row.components) as TemplateComponent[];
      const providerId = repo.providerIdOf(row.id);
      let created: { id: string; status?: string } | null = null;
      try {
        if (providerId) await client.editTemplate(providerId, components);
        else {
          created = await client.createTemplate({
            name: row.name,
            language: row.language,
            category: row.category,
            components,
          });
        }
      } catch (e) {
        if (e instanceof GraphError && e.httpStatus < 500 && e.httpStatus !== 429) {
          db.transaction(() => {
            const now = repo.byId(templateId);
            if (now && now.status === 'PENDING' && now.updated_at === stamp) {
              transition(now, 'REJECTED', `Meta refused the submission: ${e.details ?? e.message}`);
            }
          }).immediate();
          return;
        }
        throw e instanceof GraphError || e instanceof GraphUnreachable
          ? new RetryLater(e.message)
          : e;
      }
      db.transaction(() => {
        if (created) repo.setProviderId(templateId, created.id);
        const now = repo.byId(templateId);
        const to = created?.status ? PROVIDER_STATUS[created.status] : undefined;
        if (now && to && to !== 'PENDING' && now.status === 'PENDING')
          transition(now, to, null, true);
      }).immediate();
    },
    {
      sync: false,
      concurrency: 2,
      maxAttempts: 6,
      baseDelayMs: 5000,
      // Meta could not be reached for all its tries: say so rather than stay PENDING for ever.
      onDead: (payload, error) => {
        const { templateId, stamp } = payload;
        const row = repo.byId(templateId);
        if (row && row.status === 'PENDING' && row.updated_at === stamp) {
          transition(row, 'REJECTED', `could not submit the template to Meta: ${error}`);
        }
      },
    },
  );

  scheduler.register(
    'template.delete',
    async (payload) => {
      const { workspaceId, name } = payload;
      const client = provider({ workspaceId, environment: 'live' });
      if (!client) return;
      try {
        await client.deleteTemplate(name);
      } catch (e) {
        // Gone there already (or never submitted): nothing to delete.
        if (e instanceof GraphError && e.httpStatus < 500 && e.httpStatus !== 429) return;
        throw e instanceof GraphError || e instanceof GraphUnreachable
          ? new RetryLater(e.message)
          : e;
      }
    },
    { sync: false, concurrency: 2, maxAttempts: 6, baseDelayMs: 5000 },
  );

  scheduler.register('template.review', (payload) => {
    const { templateId, stamp } = payload;
    const row = repo.byId(templateId);
    // Edited, reviewed by sync, or deleted since: this review is void.
    if (!row || row.status !== 'PENDING' || row.updated_at !== stamp) return;
    review(row);
  });

  return {
    repo,
    require,
    /** A template's row by its exact name (names are case-sensitive), or undefined. */
    findByName: (scope: Scope, name: string): TemplateRow | undefined => repo.byName(scope, name),
    create(scope: Scope, body: CreateTemplateBody): Template {
      const variableCount = checkTemplate(body.name, body.category, body.components);
      return db
        .transaction(() => {
          if (repo.byName(scope, body.name)) {
            throw new ApiError(
              'validation_error',
              `a template named "${body.name}" exists already`,
              { param: 'name' },
            );
          }
          const now = clock.now();
          const row: TemplateRow = {
            id: ids('tpl'),
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            name: body.name,
            category: body.category,
            language: body.language,
            components: JSON.stringify(body.components),
            variable_count: variableCount,
            status: 'PENDING',
            rejection_reason: null,
            approved_at: null,
            usable_at: null,
            created_at: now,
            updated_at: now,
          };
          repo.insert(row);
          outbox.emit(scope, 'template.status_updated', {
            template: toTemplate(row),
            previousStatus: null,
          });
          scheduleReview(row);
          return toTemplate(row);
        })
        .immediate();
    },

    list(scope: Scope, q: { limit: number; cursor?: string; status?: string; name?: string }) {
      const after = q.cursor ? decodeCursor(q.cursor) : null;
      const rows = repo.list(
        scope,
        { status: q.status ?? null, name: q.name ?? null },
        after,
        q.limit + 1,
      );
      return toPage(rows, q.limit, toTemplate, (r) => r.id);
    },

    get: (scope: Scope, id: string): Template => toTemplate(require(scope, id)),

    edit(scope: Scope, id: string, body: EditTemplateBody): Template {
      return db
        .transaction(() => {
          const row = require(scope, id);
          if (!['APPROVED', 'REJECTED', 'PAUSED'].includes(row.status)) {
            throw new ApiError(
              'invalid_state',
              `a ${row.status} template cannot be edited (only APPROVED, REJECTED or PAUSED ones)`,
            );
          }
          const category = body.category ?? row.category;
          const components = body.components ?? (JSON.parse(row.components) as TemplateComponent[]);
          const variableCount = checkTemplate(null, category, components);
          const now = clock.now();
          const next: TemplateRow = {
            ...row,
            category,
            language: body.language ?? row.language,
            components: JSON.stringify(components),
            variable_count: variableCount,
            status: 'PENDING',
            rejection_reason: null,
            approved_at: null,
            usable_at: null,
            updated_at: Math.max(now, row.updated_at + 1),
          };
          repo.update(next);
          outbox.emit(scope, 'template.status_updated', {
            template: toTemplate(next),
            previousStatus: row.status,
          });
          scheduleReview(next);
          return toTemplate(next);
        })
        .immediate();
    },

    remove(scope: Scope, id: string) {
      return db
        .transaction(() => {
          const row = require(scope, id);
          repo.remove(id);
          if (provider(scope)) {
            scheduler.enqueue('template.delete', {
              workspaceId: scope.workspaceId,
              name: row.name,
            });
          }
          return { success: true as const, id };
        })
        .immediate();
    },

    /**
     * A status the live provider reported (a `message_template_status_update` webhook or a
     * sync), for the template of that name and language. Meta's other events map onto ours:
     * a reinstated or appealed one is APPROVED or PENDING, a flagged one keeps its status.
     */
    applyProviderStatus(
      scope: Scope,
      match: { name: string; language?: string | null },
      event: string,
      reason: string | null,
    ): Template | null {
      const row = repo.byName(scope, match.name);
      if (!row || (match.language && !sameLanguage(row.language, match.language))) return null;
      const to = PROVIDER_STATUS[event.toUpperCase()];
      if (!to || to === row.status) return null;
      const why = reason && reason !== 'NONE' ? reason : null;
      return toTemplate(transition(row, to, why, true));
    },

    /** A decision forced through the simulator (test keys only). */
    decide(scope: Scope, id: string, decision: ReviewDecision, reason?: string): Template {
      return db
        .transaction(() => {
          const row = require(scope, id);
          const t = TRANSITIONS[decision];
          if (!t.from.includes(row.status)) {
            throw new ApiError('invalid_state', `cannot ${decision} a ${row.status} template`);
          }
          return toTemplate(transition(row, t.to, reason ?? null));
        })
        .immediate();
    },

    /** A connected live account's templates as Meta has them (null: the simulated provider). */
    async pull(scope: Scope): Promise<ProviderTemplate[] | null> {
      const client = provider(scope);
      if (!client) return null;
      try {
        return await client.templates();
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        throw new ApiError('channel_error', `could not read the templates from Meta: ${message}`, {
          details: e instanceof GraphError && e.code !== null ? { channelCode: e.code } : {},
        });
      }
    },

    /**
     * Reconciles with the provider: the simulator completes pending reviews that are due; Meta's
     * list (`pulled`) sets each live template's status and rejection reason.
     */
    sync(scope: Scope, pulled: ProviderTemplate[] | null = null) {
      return db
        .transaction(() => {
          if (pulled) {
            let reviewed = 0;
            // Live templates Meta does not have (made before connecting): submitted now, PENDING
            // until Meta decides, instead of looking usable while every send would fail (132001).
            const known = new Set(pulled.map((p) => `${p.name}\n${p.language}`));
            for (const row of repo.list(scope, { status: null, name: null }, null, 1000)) {
              if (known.has(`${row.name}\n${row.language}`)) continue;
              if (row.status === 'REJECTED' || row.status === 'DISABLED') continue;
              const next = row.status === 'PENDING' ? row : transition(row, 'PENDING', null, true);
              scheduleReview(next);
            }
            for (const p of pulled) {
              const row = repo.byName(scope, p.name);
              if (!row || !sameLanguage(row.language, p.language)) continue;
              repo.setProviderId(row.id, p.id);
              const to = PROVIDER_STATUS[p.status.toUpperCase()];
              if (to && to !== row.status) {
                const wasPending = row.status === 'PENDING';
                transition(row, to, p.rejectedReason, true);
                if (wasPending) reviewed++;
              }
            }
            const templates = repo
              .list(scope, { status: null, name: null }, null, 1000)
              .map(toTemplate);
            return { success: true as const, reviewed, templates };
          }
          const delay = simulator.get(scope.workspaceId).reviewDelayMs;
          let reviewed = 0;
          for (const row of repo.pending(scope)) {
            if (row.updated_at + delay <= clock.now()) {
              review(row);
              reviewed++;
            }
          }
          const templates = repo
            .list(scope, { status: null, name: null }, null, 1000)
            .map(toTemplate);
          return { success: true as const, reviewed, templates };
        })
        .immediate();
    },
  };
}
export type TemplatesService = ReturnType<typeof templatesService>;
