import { ApiError } from '../../../../shared/errors.ts';
import { markdownToEmailHtml } from '../../../../shared/email-markdown.ts';
import { EMAIL_LIMITS, renderEmail, renderEmailText } from '../../../../shared/email-rules.ts';
import { parsePlaceholders } from '../../../../shared/placeholders.ts';
import { missingTally } from '../../../../shared/template-strings.ts';
import type { CampaignTarget } from '../../../../shared/schemas/campaigns.ts';
import type {
  CreateEmailCampaignBody,
  EmailAudience,
  EmailAudienceBody,
  EmailCampaign,
  EmailTimeline,
  UpdateEmailCampaignBody,
} from '../../../../shared/schemas/email.ts';
import { allows, canMove, launchable } from '../../../../shared/campaign-states.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import { campaignRunner } from '../../jobs/campaign-runner.ts';
import type { Scope } from '../../runtime.ts';
import { iso, randomBase62 } from '../../runtime.ts';
import { handOverSimulated, SMTP } from './delivery.ts';
import {
  countsOf,
  paceKey,
  scopeOf,
  toEmailCampaign,
  toEmailMessage,
  toPlaceholderContact,
} from './records.ts';
import type { EmailCampaignRow, EmailRepo } from './repo.ts';
import type { EmailDeps } from './service.ts';
import type { EmailSettingsPart } from './settings.ts';

/** Emails one pass claims at most (the rate's window decides how many it may). */
const PASS_MAX = 500;
/** How far ahead a pass gives SMTP exchanges their start times. */
const SMTP_HORIZON_MS = 1000;

/**
 * Email campaigns (README "Email"): recipients fixed at launch and worked in passes by one
 * scheduler job per campaign, paced by the governor (its own key per workspace, at the
 * simulator's `emailRatePerSecond` or the SMTP settings' `ratePerSecond`); drafts, launch, pause,
 * cancel, and what a campaign's page reads (recipients, timeline, audience).
 */
export function emailCampaigns(d: EmailDeps, repo: EmailRepo, settings: EmailSettingsPart) {
  const { db, clock, ids, scheduler, outbox, governor } = d;

  function find(scope: Scope, id: string): EmailCampaignRow {
    const c = repo.campaignInScope(scope, id);
    if (!c) throw new ApiError('not_found', `no email campaign ${id}`, { param: 'id' });
    return c;
  }

  function setState(
    c: EmailCampaignRow,
    status: EmailCampaignRow['status'],
    extra: Partial<EmailCampaignRow> = {},
  ) {
    if (!canMove('email', c.status, status)) {
      throw new Error(`email campaign ${c.id}: no move from ${c.status} to ${status}`);
    }
    const next: EmailCampaignRow = { ...c, ...extra, status, updated_at: clock.now() };
    repo.saveCampaign(next);
    const fresh = repo.campaign(c.id)!;
    outbox.emit(scopeOf(fresh), 'email_campaign.status_updated', {
      campaign: toEmailCampaign(fresh),
    });
    // A state change's progress goes out at once (unless it says what the last one did).
    runner.reportNow(fresh);
    return fresh;
  }

  function checkSchedule(at: string | null | undefined): number | null {
    if (at === undefined || at === null) return null;
    const ms = Date.parse(at);
    if (Number.isNaN(ms)) {
      throw new ApiError('validation_error', 'scheduledFor is not a date', {
        param: 'scheduledFor',
      });
    }
    if (ms <= clock.now()) {
      throw new ApiError('validation_error', `scheduledFor ${at} is in the past`, {
        param: 'scheduledFor',
      });
    }
    return ms;
  }

  /**
   * The html a body given as Markdown renders to (README "Email", Markdown bodies); it must fit
   * the html's own limit.
   */
  function renderedHtml(markdown: string): string {
    const html = markdownToEmailHtml(markdown);
    if (html.length > EMAIL_LIMITS.html) {
      throw new ApiError(
        'validation_error',
        `the Markdown renders to ${html.length} characters of HTML; at most ${EMAIL_LIMITS.html}`,
        { param: 'markdown' },
      );
    }
    return html;
  }

  /** The campaign's one job (its start and its passes) at `runAt`, or sooner if queued later. */
  const startJob = (c: EmailCampaignRow, runAt: number) => runner.queueRun(c.id, runAt);

  /** Fixes a campaign's recipients (once: a resumed or rescheduled one keeps them). */
  function fixRecipients(c: EmailCampaignRow): number {
    if (c.launched_at !== null) return c.total;
    const scope = scopeOf(c);
    const audience = JSON.parse(c.audience) as CampaignTarget;
    const now = clock.now();
    let n = 0;
    // One email per address: two contacts sharing one (in any case) get it once.
    const seen = new Set<string>();
    const personal = parsePlaceholders(c.subject).placeholders.length > 0;
    for (const contact of d.campaigns.emailAudienceRows(scope, audience)) {
      const address = contact.email!.trim().toLowerCase();
      if (seen.has(address)) continue;
      seen.add(address);
      repo.insertMessage({
        id: ids('em'),
        workspace_id: c.workspace_id,
        environment: c.environment,
        campaign_id: c.id,
        contact_id: contact.id,
        to_address: contact.email!,
        from_name: null,
        from_email: null,
        // Filled for this contact as the send fills it (an SMTP send writes it again as it goes).
        subject: personal ? renderEmailText(c.subject, toPlaceholderContact(contact)) : c.subject,
        html: null,
        text: null,
        status: 'pending',
        token: randomBase62(d.random, 27),
        next_attempt_at: now,
        sent_at: null,
        created_at: now,
        updated_at: now,
      });
      n++;
    }
    return n;
  }

  /** Moves a campaign into sending now: recipients fixed (at the first start), the runner queued. */
  function startSending(c: EmailCampaignRow): EmailCampaignRow {
    settings.requireReachable(scopeOf(c));
    const now = clock.now();
    const first = c.launched_at === null;
    const n = fixRecipients(c);
    if (first && n === 0) {
      const counts = d.campaigns.emailAudienceCounts(scopeOf(c), JSON.parse(c.audience));
      throw new ApiError(
        'validation_error',
        `the audience has no one to email: ${counts.withoutEmail} without an email address, ${counts.unsubscribed} unsubscribed`,
        { param: 'audience' },
      );
    }
    const fresh = repo.campaign(c.id)!;
    const next = setState(fresh, 'sending', {
      launched_at: fresh.launched_at ?? now,
      scheduled_for: null,
      pause_reason: null,
      pause_message: null,
    });
    startJob(next, now);
    return next;
  }

  /**
   * A scheduled campaign whose time has come starts; when nobody is left to email any more it
   * ends as it is.
   */
  function startScheduled(c: EmailCampaignRow): boolean {
    try {
      startSending(c);
      return true;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      setState(c, 'completed', { completed_at: clock.now(), scheduled_for: null });
      return false;
    }
  }
  // ---- the runner ---------------------------------------------------------------------------

  /**
   * One pass, the hand-over the runner skeleton calls: claims as many due emails as the rate has
   * room for and hands them to the transport (test keys: the simulated one, in this
   * transaction; live keys: an SMTP job each, with its own start a second ahead at most).
   */
  function pass(c: EmailCampaignRow, now: number): number | null {
    const scope = scopeOf(c);
    const rate = settings.rateOf(scope, settings.row(scope));
    const key = paceKey(scope);
    if (scope.environment === 'live') {
      // SMTP exchanges take time: each gets its own start, paced evenly, up to a second ahead.
      const slots = governor.paced(key, rate, PASS_MAX, now, SMTP_HORIZON_MS);
      const batch = slots.length ? repo.due(c.id, now, slots.length) : [];
      batch.forEach((m, i) => {
        repo.markSending(m.id, now);
        scheduler.enqueue(SMTP, { id: m.id }, { runAt: slots[i]! });
        governor.spend(key, 1, slots[i]!);
      });
      if (batch.length > 0) {
        runner.report(c.id, repo.campaign(c.id)!);
        return batch.length === slots.length
          ? Math.max(now + 1, slots[slots.length - 1]! - SMTP_HORIZON_MS / 2)
          : (repo.nextDue(c.id) ?? now + 1000);
      }
      if (!slots.length) return now + Math.ceil(1000 / rate);
    } else {
      const room = Math.floor(governor.room(key, rate, now));
      if (room < 1) return governor.roomAt(key, rate, 1, now);
      const batch = repo.due(c.id, now, Math.min(room, PASS_MAX));
      if (batch.length > 0) {
        handOverSimulated(d, repo, batch, now);
        governor.spend(key, batch.length, now);
        runner.report(c.id, repo.campaign(c.id)!);
        return batch.length === Math.min(room, PASS_MAX) ? now : (repo.nextDue(c.id) ?? now + 1000);
      }
    }
    if (runner.finishIfDone(c)) return null;
    // Retries wait for their time; SMTP exchanges in flight poke the runner when they end.
    const next = repo.nextDue(c.id);
    if (next !== null) return Math.max(next, now + 1);
    return null;
  }

  /** The runner skeleton (jobs/campaign-runner.ts) with email's hand-over and progress. */
  const runner = campaignRunner(scheduler, clock, {
    // One job a campaign: its scheduled start, then its passes.
    jobs: { run: 'email.campaign', start: 'email.campaign', progress: 'email.progress' },
    load: (id) => repo.campaign(id),
    start: startScheduled,
    pass,
    remaining: (c) => c.pending,
    complete: (c) => setState(c, 'completed', { completed_at: clock.now() }),
    progress: {
      read: (c) => ({ status: c.status, counts: countsOf(c) }),
      signature: (p) => `${p.status}:${JSON.stringify(p.counts)}`,
      emit: (c, p) =>
        outbox.emit(scopeOf(c), 'email_campaign.progress', { campaignId: c.id, ...p }),
    },
  });

  /** A campaign's counts moved (a receipt, an open, an exchange's end): progress, ≤ 1/s. */
  const progress = (c: EmailCampaignRow) => runner.report(c.id, c);

  // ---- the API ------------------------------------------------------------------------------

  return {
    /** What delivery and tracking move: the campaign's counts, state and runner. */
    find,
    progress,
    setState,
    finishIfDone: (c: EmailCampaignRow) => runner.finishIfDone(c),
    startJob,

    api: {
      list(scope: Scope, q: { status?: string; limit: number; cursor?: string }) {
        const rows = repo.page({
          workspaceId: scope.workspaceId,
          environment: scope.environment,
          status: q.status ?? null,
          cursor: q.cursor ? decodeCursor(q.cursor) : null,
          limit: q.limit + 1,
        });
        return toPage(rows, q.limit, toEmailCampaign, (r) => r.id);
      },

      get: (scope: Scope, id: string) => toEmailCampaign(find(scope, id)),

      create(scope: Scope, body: CreateEmailCampaignBody): EmailCampaign {
        return db
          .transaction(() => {
            const audience = d.campaigns.checkTarget(scope, body.audience, 'audience');
            const at = checkSchedule(body.scheduledFor);
            const now = clock.now();
            const row: EmailCampaignRow = {
              id: ids('ecmp'),
              workspace_id: scope.workspaceId,
              environment: scope.environment,
              name: body.name,
              status: at === null ? 'draft' : 'scheduled',
              subject: body.subject,
              from_name: body.fromName ?? null,
              from_email: body.fromEmail,
              reply_to: body.replyTo ?? null,
              html: typeof body.markdown === 'string' ? renderedHtml(body.markdown) : body.html!,
              markdown: body.markdown ?? null,
              text: body.text ?? null,
              audience: JSON.stringify(audience),
              scheduled_for: at,
              pause_reason: null,
              pause_message: null,
              total: 0,
              pending: 0,
              sent: 0,
              delivered: 0,
              opened: 0,
              clicked: 0,
              bounced: 0,
              failed: 0,
              unsubscribed: 0,
              cancelled: 0,
              created_at: now,
              updated_at: now,
              launched_at: null,
              completed_at: null,
            };
            repo.insertCampaign(row);
            if (at !== null) startJob(row, at);
            return toEmailCampaign(row);
          })
          .immediate();
      },

      update(scope: Scope, id: string, body: UpdateEmailCampaignBody): EmailCampaign {
        return db
          .transaction(() => {
            const c = find(scope, id);
            if (!allows('email', 'edit', c.status)) {
              throw new ApiError(
                'invalid_state',
                `email campaign ${id} is ${c.status}: only drafts and scheduled ones can be edited`,
                { details: { status: c.status } },
              );
            }
            if (c.launched_at !== null) {
              // A campaign that has sent (paused, then scheduled to resume) keeps its content and
              // recipients: only when it resumes can change.
              const others = Object.keys(body).filter((k) => k !== 'scheduledFor');
              if (others.length > 0 || !body.scheduledFor) {
                throw new ApiError(
                  'invalid_state',
                  `email campaign ${id} has started sending: only its scheduledFor can change`,
                  { param: others[0] ?? 'scheduledFor', details: { status: c.status } },
                );
              }
            }
            const at =
              body.scheduledFor === undefined ? c.scheduled_for : checkSchedule(body.scheduledFor);
            const next: EmailCampaignRow = {
              ...c,
              name: body.name ?? c.name,
              subject: body.subject ?? c.subject,
              from_name: body.fromName === undefined ? c.from_name : body.fromName,
              from_email: body.fromEmail ?? c.from_email,
              reply_to: body.replyTo === undefined ? c.reply_to : body.replyTo,
              // Markdown renders the html; html given as such drops the Markdown; `markdown: null`
              // keeps the rendered html, to be edited as HTML.
              html:
                typeof body.markdown === 'string'
                  ? renderedHtml(body.markdown)
                  : (body.html ?? c.html),
              markdown:
                body.markdown !== undefined
                  ? body.markdown
                  : body.html !== undefined
                    ? null
                    : c.markdown,
              text: body.text === undefined ? c.text : body.text,
              audience: body.audience
                ? JSON.stringify(d.campaigns.checkTarget(scope, body.audience, 'audience'))
                : c.audience,
              scheduled_for: at,
              status: at === null ? 'draft' : 'scheduled',
              updated_at: clock.now(),
            };
            repo.saveCampaign(next);
            if (at !== null) startJob(next, at);
            if (next.status !== c.status) {
              outbox.emit(scope, 'email_campaign.status_updated', {
                campaign: toEmailCampaign(next),
              });
            }
            return toEmailCampaign(next);
          })
          .immediate();
      },

      launch(scope: Scope, id: string, body: { scheduledFor?: string }): EmailCampaign {
        return db
          .transaction(() => {
            const c = find(scope, id);
            if (!launchable('email', c.status)) {
              throw new ApiError(
                'invalid_state',
                `email campaign ${id} is ${c.status}: only drafts and paused ones launch`,
                { details: { status: c.status } },
              );
            }
            const at = checkSchedule(body.scheduledFor);
            if (at !== null) {
              const next = setState(c, 'scheduled', { scheduled_for: at });
              startJob(next, at);
              return toEmailCampaign(next);
            }
            return toEmailCampaign(startSending(c));
          })
          .immediate();
      },

      pause(scope: Scope, id: string): EmailCampaign {
        return db
          .transaction(() => {
            const c = find(scope, id);
            if (!allows('email', 'pause', c.status)) {
              throw new ApiError(
                'invalid_state',
                `email campaign ${id} is ${c.status}: only a sending one pauses`,
                { details: { status: c.status } },
              );
            }
            return toEmailCampaign(setState(c, 'paused'));
          })
          .immediate();
      },

      cancel(scope: Scope, id: string): EmailCampaign {
        return db
          .transaction(() => {
            const c = find(scope, id);
            if (!allows('email', 'cancel', c.status)) {
              throw new ApiError('invalid_state', `email campaign ${id} is ${c.status} already`, {
                details: { status: c.status },
              });
            }
            repo.cancelPending(c.id, clock.now());
            return toEmailCampaign(
              setState(repo.campaign(c.id)!, 'cancelled', {
                completed_at: clock.now(),
                scheduled_for: null,
              }),
            );
          })
          .immediate();
      },

      recipients(scope: Scope, id: string, q: { status?: string; limit: number; cursor?: string }) {
        const c = find(scope, id);
        const rows = repo.recipients({
          campaignId: c.id,
          status: q.status ?? null,
          cursor: q.cursor ? decodeCursor(q.cursor) : null,
          limit: q.limit + 1,
        });
        return toPage(rows, q.limit, toEmailMessage, (r) => r.id);
      },

      timeline(scope: Scope, id: string): EmailTimeline {
        const c = find(scope, id);
        const { first, last } = repo.span(c.id);
        // About 60 buckets over the campaign's life, in whole seconds, minutes or hours.
        const spanMs = first === null || last === null ? 0 : last - first;
        const steps = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 21_600, 86_400];
        const bucketSeconds = steps.find((s) => spanMs / (s * 1000) <= 60) ?? 86_400;
        return {
          bucketSeconds,
          data: repo.timeline(c.id, bucketSeconds * 1000).map((r) => ({
            at: iso(r.b),
            sent: r.sent,
            opened: r.opened,
            clicked: r.clicked,
          })),
        };
      },

      audience(scope: Scope, body: EmailAudienceBody): EmailAudience {
        const target = d.campaigns.checkTarget(scope, body.audience, 'audience');
        const tally = missingTally();
        const texts = [body.subject, body.html, body.text].filter(
          (t): t is string => typeof t === 'string' && parsePlaceholders(t).placeholders.length > 0,
        );
        if (texts.length > 0) {
          // One per address, as recipients are fixed at launch.
          const seen = new Set<string>();
          for (const contact of d.campaigns.emailAudienceRows(scope, target)) {
            const address = contact.email!.trim().toLowerCase();
            if (seen.has(address)) continue;
            seen.add(address);
            const who = toPlaceholderContact(contact);
            tally.add(texts.flatMap((t) => renderEmail(t, who).missing));
          }
        }
        return {
          ...d.campaigns.emailAudienceCounts(scope, target),
          missingPlaceholders: tally.list(),
        };
      },
    },
  };
}
export type EmailCampaignsPart = ReturnType<typeof emailCampaigns>;
