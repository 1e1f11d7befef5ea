import type { Database as Db } from 'better-sqlite3';
import net from 'node:net';
import { ApiError } from '../../../../shared/errors.ts';
import { renderEmail, renderEmailHtml, renderEmailText } from '../../../../shared/email-rules.ts';
import type { PlaceholderContact } from '../../../../shared/placeholders.ts';
import { parsePlaceholders } from '../../../../shared/placeholders.ts';
import { missingTally } from '../../../../shared/template-strings.ts';
import type { CampaignTarget } from '../../../../shared/schemas/campaigns.ts';
import type {
  CreateEmailCampaignBody,
  EmailAudience,
  EmailAudienceBody,
  EmailCampaign,
  EmailCounts,
  EmailMessage,
  EmailSettings,
  EmailSettingsBody,
  EmailTimeline,
  SendEmailBody,
  SmtpCheck,
  UpdateEmailCampaignBody,
} from '../../../../shared/schemas/email.ts';
import { headerSafe } from '../../../../shared/header-text.ts';
import type { ComposeInput } from '../../email/compose.ts';
import { composeEmail } from '../../email/compose.ts';
import type { SmtpConfig, SmtpConnector, SmtpTransport } from '../../email/smtp.ts';
import { smtpTransport } from '../../email/smtp.ts';
import type { Outbox } from '../../events/outbox.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import { bareHostname, classifyAddress, localNameRefusal } from '../../net/address.ts';
import type { Outbound } from '../../net/outbound.ts';
import type { Governor, PaceKey } from '../../pacing/governor.ts';
import type { Clock, IdGenerator, Random, Scope } from '../../runtime.ts';
import { iso, isoOrNull, randomBase62 } from '../../runtime.ts';
import type { CampaignsService } from '../campaigns/service.ts';
import type { ContactsService } from '../contacts/service.ts';
import type { SimulatorSettingsService } from '../simulator/settings.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { EmailCampaignRow, EmailMessageRow, EmailSettingsRow } from './repo.ts';
import { emailRepo } from './repo.ts';

const CAMPAIGN = 'email.campaign';
const SMTP = 'email.smtp';
const SIM = 'email.sim';
const PROGRESS = 'email.progress';
/** Emails one pass claims at most (the rate's window decides how many it may). */
const PASS_MAX = 500;
/**
 * SMTP jobs running at once. The transport's pool has 5 connections and hands nodemailer no more
 * emails than that; the others wait at its gate, prepared and not marked as in an exchange, so a
 * freed connection takes the next one at once.
 */
const SMTP_CONCURRENCY = 10;
/** A transient SMTP failure is retried after 2, 4, 8, 16 s; the 5th failure fails the email. */
const SMTP_ATTEMPTS = 5;
const PROGRESS_EVERY_MS = 1000;
/** How far ahead a pass gives SMTP exchanges their start times. */
const SMTP_HORIZON_MS = 1000;

export interface EmailDeps {
  db: Db;
  clock: Clock;
  random: Random;
  ids: IdGenerator;
  scheduler: Scheduler;
  outbox: Outbox;
  governor: Governor;
  contacts: ContactsService;
  campaigns: CampaignsService;
  simulator: SimulatorSettingsService;
  workspaces: WorkspacesService;
  /** The one outbound policy: SMTP connections go through it. */
  outbound: Outbound;
  /** Tests point SMTP at a self-signed local peer. */
  smtpOptions?: { allowInvalidCerts?: boolean; timeoutMs?: number };
}

/** What `{{contact.*}}` reads from a contact row. */
const toPlaceholderContact = (c: {
  name: string | null;
  phone: string | null;
  email: string | null;
  attributes: string;
}): PlaceholderContact => ({
  name: c.name,
  phone: c.phone,
  email: c.email,
  attributes: JSON.parse(c.attributes) as PlaceholderContact['attributes'],
});

const scopeOf = (r: { workspace_id: string; environment: 'test' | 'live' }): Scope => ({
  workspaceId: r.workspace_id,
  environment: r.environment,
});

const countsOf = (c: EmailCampaignRow): EmailCounts => ({
  total: c.total,
  pending: c.pending,
  sent: c.sent,
  delivered: c.delivered,
  opened: c.opened,
  clicked: c.clicked,
  bounced: c.bounced,
  failed: c.failed,
  unsubscribed: c.unsubscribed,
  cancelled: c.cancelled,
});

export const toEmailCampaign = (c: EmailCampaignRow): EmailCampaign => ({
  id: c.id,
  name: c.name,
  status: c.status,
  subject: c.subject,
  fromName: c.from_name,
  fromEmail: c.from_email,
  replyTo: c.reply_to,
  html: c.html,
  text: c.text,
  audience: JSON.parse(c.audience) as CampaignTarget,
  scheduledFor: isoOrNull(c.scheduled_for),
  counts: countsOf(c),
  pauseReason: c.pause_reason as EmailCampaign['pauseReason'],
  pauseMessage: c.pause_message,
  environment: c.environment,
  createdAt: iso(c.created_at),
  updatedAt: iso(c.updated_at),
  launchedAt: isoOrNull(c.launched_at),
  completedAt: isoOrNull(c.completed_at),
});

export const toEmailMessage = (m: EmailMessageRow): EmailMessage => ({
  id: m.id,
  campaignId: m.campaign_id,
  contactId: m.contact_id,
  to: m.to_address,
  subject: m.subject,
  status: m.status,
  attempts: m.attempts,
  error: m.error_code ? { code: m.error_code, message: m.error_message ?? '' } : null,
  smtpResponse: m.smtp_response,
  sentAt: isoOrNull(m.sent_at),
  deliveredAt: isoOrNull(m.delivered_at),
  openedAt: isoOrNull(m.opened_at),
  clickedAt: isoOrNull(m.clicked_at),
  unsubscribedAt: isoOrNull(m.unsubscribed_at),
  createdAt: iso(m.created_at),
  updatedAt: iso(m.updated_at),
});

/**
 * Email (design.md §4 Email campaigns, §5 SMTP): campaigns whose recipients are fixed at launch
 * and worked in passes by one scheduler job per campaign, paced by the governor (its own key per
 * workspace, at the simulator's `emailRatePerSecond` or the SMTP settings' `ratePerSecond`), and
 * single transactional sends. Test keys use the simulated transport: the hand-over commits in
 * the pass's transaction (exactly once). Live keys use SMTP: an email is `sending` before its
 * exchange, and its exchange start is committed when a connected pooled connection takes it,
 * before the first command, so a crash never sends it twice and marks only what a connection
 * had (see `email.smtp`).
 */
export function emailService(d: EmailDeps) {
  const { db, clock, ids, scheduler, outbox, governor } = d;
  const repo = emailRepo(db);
  let baseUrl = 'http://127.0.0.1:4780';
  const transports = new Map<string, { stamp: string; transport: SmtpTransport }>();
  const lastProgress = new Map<string, { at: number; signature: string }>();

  // ---- settings ---------------------------------------------------------------------------------

  function settingsRow(scope: Scope): EmailSettingsRow {
    let row = repo.settings(scope);
    if (!row) {
      repo.ensureSettings(scope, randomBase62(d.random, 43));
      row = repo.settings(scope)!;
    }
    return row;
  }
  const publicUrlOf = (s: EmailSettingsRow) => (s.public_url ?? baseUrl).replace(/\/+$/, '');

  function smtpConfig(s: EmailSettingsRow): SmtpConfig | null {
    if (!s.smtp_host || !s.smtp_port) return null;
    return {
      host: s.smtp_host,
      port: s.smtp_port,
      secure: s.smtp_secure === 1,
      user: s.smtp_user,
      password: s.smtp_password,
      dkim:
        s.dkim_domain && s.dkim_selector && s.dkim_private_key
          ? {
              domainName: s.dkim_domain,
              keySelector: s.dkim_selector,
              privateKey: s.dkim_private_key,
            }
          : null,
      ...(d.smtpOptions?.allowInvalidCerts ? { allowInvalidCerts: true } : {}),
    };
  }

  /**
   * How the SMTP transport connects: through the one outbound policy (design.md §5), a private
   * or loopback server only where the workspace allows private targets (read at each connect).
   */
  const connector =
    (scope: Scope): SmtpConnector =>
    (host, port, timeoutMs) =>
      d.outbound.connect(host, port, {
        allowPrivate: d.workspaces.settings(scope.workspaceId).allowPrivateWebhooks,
        timeoutMs,
      });

  /** The pooled transport of a workspace's live SMTP settings (rebuilt when they change). */
  function transportFor(s: EmailSettingsRow): SmtpTransport | null {
    const config = smtpConfig(s);
    const key = `${s.workspace_id}/${s.environment}`;
    // Keyed by the settings themselves: two saves within one millisecond still rebuild it.
    const stamp = JSON.stringify(config);
    const cached = transports.get(key);
    if (cached && cached.stamp === stamp) return cached.transport;
    cached?.transport.close();
    transports.delete(key);
    if (!config) return null;
    const transport = smtpTransport(config, {
      connect: connector(scopeOf(s)),
      ...(d.smtpOptions?.timeoutMs ? { timeoutMs: d.smtpOptions.timeoutMs } : {}),
    });
    transports.set(key, { stamp, transport });
    return transport;
  }

  function settingsView(scope: Scope, s: EmailSettingsRow): EmailSettings {
    const publicUrl = publicUrlOf(s);
    return {
      smtp: s.smtp_host
        ? {
            host: s.smtp_host,
            port: s.smtp_port ?? 587,
            secure: s.smtp_secure === 1,
            user: s.smtp_user,
            passwordSet: s.smtp_password !== null,
          }
        : null,
      ratePerSecond: s.rate_per_second,
      publicUrl: s.public_url,
      effectivePublicUrl: publicUrl,
      oneClickUnsubscribe: publicUrl.startsWith('https://'),
      dkim: s.dkim_domain
        ? {
            domainName: s.dkim_domain,
            keySelector: s.dkim_selector ?? '',
            keySet: s.dkim_private_key !== null,
          }
        : null,
      defaultFromEmail: s.default_from_email,
      defaultFromName: s.default_from_name,
      transport: scope.environment === 'test' ? 'simulated' : 'smtp',
      updatedAt: isoOrNull(s.updated_at),
    };
  }

  /** How fast this scope's emails may go: the simulator's rate for test keys, SMTP's for live. */
  const rateOf = (scope: Scope, s: EmailSettingsRow) =>
    scope.environment === 'test'
      ? d.simulator.get(scope.workspaceId).emailRatePerSecond
      : s.rate_per_second;
  /**
   * SMTP exchanges as they really start (a connected pooled connection takes the email), which is
   * what the rate holds to: the planner's slots (`paceKey`) only spread the jobs out, and a job
   * that runs late is admitted only if the last second of real starts has room.
   */
  const exchangeKey = (scope: Scope): PaceKey => ({
    accountId: `email-exchange:${scope.workspaceId}`,
    environment: scope.environment,
  });
  const keyOf = (k: PaceKey) => `${k.accountId}/${k.environment}`;
  /** Exchanges admitted in this process whose connection has not taken them yet, per key. */
  const pending = new Map<string, number>();
  const admitting = (k: PaceKey) => pending.get(keyOf(k)) ?? 0;
  const paceKey = (scope: Scope): PaceKey => ({
    accountId: `email:${scope.workspaceId}`,
    environment: scope.environment,
  });

  // ---- campaigns: records and events ------------------------------------------------------------

  function find(scope: Scope, id: string): EmailCampaignRow {
    const c = repo.campaignInScope(scope, id);
    if (!c) throw new ApiError('not_found', `no email campaign ${id}`, { param: 'id' });
    return c;
  }

  function progress(c: EmailCampaignRow, force = false) {
    const counts = countsOf(c);
    const signature = `${c.status}:${JSON.stringify(counts)}`;
    const last = lastProgress.get(c.id);
    if (last?.signature === signature) return;
    const now = clock.now();
    if (!force && last && now - last.at < PROGRESS_EVERY_MS) {
      // Too soon after the last one: a job sends the latest counts when the second is up.
      scheduler.enqueue(
        PROGRESS,
        { campaignId: c.id },
        { runAt: last.at + PROGRESS_EVERY_MS, dedupeKey: `${PROGRESS}:${c.id}`, sooner: true },
      );
      return;
    }
    lastProgress.set(c.id, { at: now, signature });
    outbox.emit(scopeOf(c), 'email_campaign.progress', {
      campaignId: c.id,
      status: c.status,
      counts,
    });
  }

  function setState(
    c: EmailCampaignRow,
    status: EmailCampaignRow['status'],
    extra: Partial<EmailCampaignRow> = {},
  ) {
    const next: EmailCampaignRow = { ...c, ...extra, status, updated_at: clock.now() };
    repo.saveCampaign(next);
    const fresh = repo.campaign(c.id)!;
    outbox.emit(scopeOf(fresh), 'email_campaign.status_updated', {
      campaign: toEmailCampaign(fresh),
    });
    progress(fresh, true);
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

  const startJob = (c: EmailCampaignRow, runAt: number) =>
    scheduler.enqueue(
      CAMPAIGN,
      { campaignId: c.id },
      { runAt, dedupeKey: `${CAMPAIGN}:${c.id}`, sooner: true },
    );

  /** Fixes a campaign's recipients (once: a resumed or rescheduled one keeps them). */
  function fixRecipients(c: EmailCampaignRow): number {
    if (c.launched_at !== null) return c.total;
    const scope = scopeOf(c);
    const audience = JSON.parse(c.audience) as CampaignTarget;
    const now = clock.now();
    let n = 0;
    // One email per address: two contacts sharing one (in any case) get it once.
    const seen = new Set<string>();
    for (const contact of d.campaigns.repo.emailAudienceRows(scope, audience)) {
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
        subject: c.subject,
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

  /**
   * A live campaign's links (tracking, unsubscribe) must reach its recipients: a loopback or
   * private `publicUrl` (the default is this machine) would send links nobody can open.
   */
  function requireReachable(scope: Scope) {
    if (scope.environment !== 'live') return;
    const url = publicUrlOf(settingsRow(scope));
    // The URL parser has already read every spelling of an address (0x7f000001, 2130706433,
    // 127.1, [::ffff:127.0.0.1]) as the address it means; the classifier webhooks use judges it.
    const host = bareHostname(new URL(url));
    const why = net.isIP(host) ? classifyAddress(host).reason : localNameRefusal(host);
    if (why) {
      throw new ApiError(
        'validation_error',
        `email links would point at ${url} (${why}), which recipients cannot reach: set a public URL in Email settings`,
        { param: 'publicUrl' },
      );
    }
  }

  /** Moves a campaign into sending now: recipients fixed (at the first start), the runner queued. */
  function startSending(c: EmailCampaignRow): EmailCampaignRow {
    requireReachable(scopeOf(c));
    const now = clock.now();
    const first = c.launched_at === null;
    const n = fixRecipients(c);
    if (first && n === 0) {
      const counts = d.campaigns.repo.emailAudienceCounts(scopeOf(c), JSON.parse(c.audience));
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

  function finishIfDone(c: EmailCampaignRow): boolean {
    if (c.status !== 'sending' || c.pending > 0) return false;
    setState(c, 'completed', { completed_at: clock.now() });
    return true;
  }

  // ---- the runner ---------------------------------------------------------------------------

  /** Test keys: the simulated transport takes the email now; receipts follow in batches. */
  function simulatedHandOver(batch: EmailMessageRow[], now: number) {
    const sim = d.simulator.get(batch[0]!.workspace_id);
    for (const m of batch) repo.markSent(m.id, now);
    const ids = batch.map((m) => m.id);
    scheduler.enqueue(SIM, { ids, kind: 'deliver' }, { runAt: now + sim.deliveryLatencyMs });
    const opened = batch
      .filter((m) => !/@(bounce|noopen)\.test$/i.test(m.to_address))
      .map((m) => m.id);
    if (opened.length) {
      scheduler.enqueue(
        SIM,
        { ids: opened, kind: 'open' },
        { runAt: now + sim.deliveryLatencyMs + sim.readLatencyMs },
      );
    }
  }

  scheduler.register(CAMPAIGN, (payload, ctx) => {
    const { campaignId } = payload as { campaignId: string };
    let c = repo.campaign(campaignId);
    if (!c) return;
    if (c.status === 'scheduled') {
      if (c.scheduled_for !== null && c.scheduled_for > clock.now()) {
        ctx.again(c.scheduled_for);
        return;
      }
      try {
        startSending(c);
        // This job is the campaign's runner: it goes on now (the enqueue above is itself).
        ctx.again(clock.now());
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        // Nobody to email any more: the campaign ends as it is.
        setState(c, 'completed', { completed_at: clock.now(), scheduled_for: null });
      }
      return;
    }
    if (c.status !== 'sending') return;
    const scope = scopeOf(c);
    const settings = settingsRow(scope);
    const rate = rateOf(scope, settings);
    const key = paceKey(scope);
    const now = clock.now();
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
        progress(repo.campaign(c.id)!);
        ctx.again(
          batch.length === slots.length
            ? Math.max(now + 1, slots[slots.length - 1]! - SMTP_HORIZON_MS / 2)
            : (repo.nextDue(c.id) ?? now + 1000),
        );
        return;
      }
      if (!slots.length) {
        ctx.again(now + Math.ceil(1000 / rate));
        return;
      }
    } else {
      const room = Math.floor(governor.room(key, rate, now));
      if (room < 1) {
        ctx.again(governor.roomAt(key, rate, 1, now));
        return;
      }
      const batch = repo.due(c.id, now, Math.min(room, PASS_MAX));
      if (batch.length > 0) {
        simulatedHandOver(batch, now);
        governor.spend(key, batch.length, now);
        c = repo.campaign(c.id)!;
        progress(c);
        ctx.again(
          batch.length === Math.min(room, PASS_MAX) ? now : (repo.nextDue(c.id) ?? now + 1000),
        );
        return;
      }
    }
    if (finishIfDone(c)) return;
    // Retries wait for their time; SMTP exchanges in flight poke the runner when they end.
    const next = repo.nextDue(c.id);
    if (next !== null) ctx.again(Math.max(next, now + 1));
    else if (repo.sending(c.id) === 0) finishIfDone(c);
  });

  scheduler.register(SIM, (payload) => {
    const { ids: batch, kind } = payload as { ids: string[]; kind: 'deliver' | 'open' };
    const now = clock.now();
    if (kind === 'deliver') repo.simDeliver(batch, now);
    else repo.simOpen(batch, now);
    const first = repo.message(batch[0]!);
    if (first?.campaign_id) {
      const c = repo.campaign(first.campaign_id)!;
      if (!finishIfDone(c)) progress(c);
    }
  });

  scheduler.register(PROGRESS, (payload) => {
    const c = repo.campaign((payload as { campaignId: string }).campaignId);
    if (c) progress(c, true);
  });

  /** An SMTP exchange's end, committed with the job's end. */
  function settle(m: EmailMessageRow, patch: Partial<EmailMessageRow>) {
    const before = m.campaign_id ? repo.campaign(m.campaign_id)! : null;
    // Cancelled during the exchange: what would wait for another try is cancelled instead.
    if (before?.status === 'cancelled' && patch.status === 'pending')
      patch = { ...patch, status: 'cancelled' };
    repo.saveOutcome({ ...m, ...patch, updated_at: clock.now() });
    if (!before) return;
    // The counters moved with the save (triggers): read them again.
    const c = repo.campaign(before.id)!;
    if (patch.status === 'pending') startJob(c, patch.next_attempt_at ?? clock.now());
    if (!finishIfDone(c)) progress(c);
  }

  function pauseForSettings(m: EmailMessageRow, message: string) {
    if (!m.campaign_id) return;
    const c = repo.campaign(m.campaign_id)!;
    if (c.status === 'sending') {
      setState(c, 'paused', { pause_reason: 'smtp_settings', pause_message: message });
    }
  }

  scheduler.register(
    SMTP,
    async (payload, ctx) => {
      const { id } = payload as { id: string };
      const prepared = db
        .transaction(() => {
          const m = repo.message(id);
          if (!m || m.status !== 'sending') return null;
          if (m.exchange_started_at !== null) {
            // The process stopped during this email's exchange: the server may have it, so it is
            // not sent again (at most once).
            settle(m, {
              status: 'failed',
              failed_at: clock.now(),
              error_code: 'interrupted',
              error_message:
                'Parley stopped during the SMTP exchange; the email was not sent again so nobody gets it twice',
            });
            return null;
          }
          const c = m.campaign_id ? repo.campaign(m.campaign_id)! : null;
          if (c && c.status !== 'sending') {
            // Paused or cancelled since it was claimed: back in line, nothing sent.
            settle(m, {
              status: c.status === 'cancelled' ? 'cancelled' : 'pending',
              next_attempt_at: clock.now(),
            });
            return null;
          }
          const s = settingsRow(scopeOf(m));
          const transport = transportFor(s);
          if (!transport) {
            const message = 'no SMTP server is set up: add one in Email settings';
            if (c) {
              settle(m, { status: 'pending', next_attempt_at: clock.now() });
              pauseForSettings(m, message);
            } else {
              settle(m, {
                status: 'failed',
                failed_at: clock.now(),
                error_code: 'smtp_not_configured',
                error_message: message,
              });
            }
            return null;
          }
          const composed = composeEmail(composeInput(m, c, s));
          return {
            transport,
            message: composed.message,
            scope: scopeOf(m),
            rate: rateOf(scopeOf(m), s),
          };
        })
        .immediate();
      if (!prepared) return;
      const { scope, rate } = prepared;
      const key = exchangeKey(scope);
      // Written by the hooks below (TypeScript does not follow assignments inside callbacks).
      const gate = { deferredTo: null as number | null, admitted: false };
      const outcome = await prepared.transport.send(prepared.message, {
        // A connection of the pool is free for this email: may it go now?
        admit: () =>
          db
            .transaction(() => {
              const m = repo.message(id);
              if (!m || m.status !== 'sending') return false;
              const c = m.campaign_id ? repo.campaign(m.campaign_id)! : null;
              if (c && c.status !== 'sending') {
                // Paused or cancelled while it waited: back in line (or cancelled), nothing sent.
                settle(m, {
                  status: c.status === 'cancelled' ? 'cancelled' : 'pending',
                  next_attempt_at: clock.now(),
                });
                return false;
              }
              const verdict = governor.admit(key, rate, admitting(key), clock.now());
              if (!verdict.ok) {
                gate.deferredTo = verdict.at;
                return false;
              }
              gate.admitted = true;
              pending.set(keyOf(key), admitting(key) + 1);
              return true;
            })
            .immediate(),
        // A connected connection has it: the exchange starts now, and counts for the rate now.
        started: () => {
          gate.admitted = false;
          pending.set(keyOf(key), Math.max(0, admitting(key) - 1));
          return db
            .transaction(() => {
              const now = clock.now();
              if (repo.setExchange(id, now) === 0) return false;
              governor.spend(key, 1, now);
              return true;
            })
            .immediate();
        },
      });
      // Admitted, but no connection took it (it could not connect): it no longer waits.
      if (gate.admitted) pending.set(keyOf(key), Math.max(0, admitting(key) - 1));
      if (outcome.kind === 'withdrawn') {
        if (gate.deferredTo !== null) {
          // Not yet: the last second's exchanges leave no room. The job waits, its attempt uncounted.
          throw new RetryLater('paced', Math.max(1, gate.deferredTo - clock.now()), false);
        }
        return;
      }
      db.transaction(() => {
        const m = repo.message(id);
        if (!m || m.status !== 'sending') return ctx.complete();
        const now = clock.now();
        const answered = { exchange_started_at: null, smtp_response: outcome.response };
        switch (outcome.kind) {
          case 'accepted':
            // An earlier attempt's error (a 451, a dropped connection) is no longer the story.
            settle(m, {
              ...answered,
              status: 'delivered',
              sent_at: now,
              delivered_at: now,
              error_code: null,
              error_message: null,
            });
            break;
          case 'bounced':
            settle(m, {
              ...answered,
              status: 'bounced',
              sent_at: now,
              bounced_at: now,
              error_code: `smtp_${outcome.code ?? 'rejected'}`,
              error_message: outcome.response,
            });
            break;
          case 'retry':
            if (m.attempts >= SMTP_ATTEMPTS) {
              settle(m, {
                ...answered,
                status: 'failed',
                failed_at: now,
                error_code: `smtp_${outcome.code ?? 'unreachable'}`,
                error_message: outcome.response,
              });
            } else {
              settle(m, {
                ...answered,
                status: m.campaign_id ? 'pending' : 'sending',
                next_attempt_at: now + 1000 * 2 ** m.attempts,
                error_code: `smtp_${outcome.code ?? 'unreachable'}`,
                error_message: outcome.response,
              });
              if (!m.campaign_id) {
                scheduler.enqueue(SMTP, { id: m.id }, { runAt: now + 1000 * 2 ** m.attempts });
              }
            }
            break;
          case 'settings':
            if (m.campaign_id) {
              // The settings failed, not this recipient: the try does not count against it.
              settle(m, {
                ...answered,
                status: 'pending',
                attempts: m.attempts - 1,
                next_attempt_at: now,
              });
              pauseForSettings(m, `${outcome.code}: ${outcome.response}`);
            } else {
              settle(m, {
                ...answered,
                status: 'failed',
                failed_at: now,
                error_code: `smtp_${outcome.code}`,
                error_message: outcome.response,
              });
            }
            break;
        }
        ctx.complete();
      }).immediate();
    },
    { sync: false, concurrency: SMTP_CONCURRENCY, maxAttempts: 3 },
  );

  function placeholderContact(m: EmailMessageRow): PlaceholderContact {
    const c = m.contact_id ? d.contacts.repo.get(scopeOf(m), m.contact_id) : undefined;
    return c
      ? toPlaceholderContact(c)
      : { name: null, phone: '', email: m.to_address, attributes: {} };
  }

  function composeInput(
    m: EmailMessageRow,
    c: EmailCampaignRow | null,
    s: EmailSettingsRow,
  ): ComposeInput {
    if (!c) {
      return {
        id: m.id,
        fromName: m.from_name,
        fromEmail: m.from_email!,
        replyTo: null,
        to: m.to_address,
        subject: m.subject,
        html: m.html,
        text: m.text,
        tracking: null,
      };
    }
    const who = placeholderContact(m);
    return {
      id: m.id,
      fromName: c.from_name,
      fromEmail: c.from_email,
      replyTo: c.reply_to,
      to: m.to_address,
      subject: renderEmailText(c.subject, who),
      html: renderEmailHtml(c.html, who),
      text: c.text === null ? null : renderEmailText(c.text, who),
      tracking: {
        publicUrl: publicUrlOf(s),
        token: m.token,
        linkKey: Buffer.from(s.link_key),
      },
    };
  }

  // ---- the API ------------------------------------------------------------------------------------

  return {
    repo,

    /** The core's own URL once it listens: the default for tracking links. */
    setBaseUrl(url: string) {
      baseUrl = url;
    },

    closeTransports() {
      for (const t of transports.values()) t.transport.close();
      transports.clear();
    },

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
            html: body.html,
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
          if (c.status !== 'draft' && c.status !== 'scheduled') {
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
            html: body.html ?? c.html,
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
          if (!['draft', 'paused', 'scheduled'].includes(c.status)) {
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
          if (c.status !== 'sending') {
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
          if (c.status === 'completed' || c.status === 'cancelled') {
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
        for (const contact of d.campaigns.repo.emailAudienceRows(scope, target)) {
          const address = contact.email!.trim().toLowerCase();
          if (seen.has(address)) continue;
          seen.add(address);
          const who = toPlaceholderContact(contact);
          tally.add(texts.flatMap((t) => renderEmail(t, who).missing));
        }
      }
      return {
        ...d.campaigns.repo.emailAudienceCounts(scope, target),
        missingPlaceholders: tally.list(),
      };
    },

    /** `POST /v1/email/send` and a campaign's "send a test email": one email, no tracking. */
    send(scope: Scope, body: SendEmailBody, from?: { campaign: EmailCampaignRow }): EmailMessage {
      return db
        .transaction(() => {
          const s = settingsRow(scope);
          const fromEmail = from?.campaign.from_email ?? body.fromEmail ?? s.default_from_email;
          if (!fromEmail) {
            throw new ApiError(
              'validation_error',
              'fromEmail is required (or set a default sender in Email settings)',
              { param: 'fromEmail' },
            );
          }
          const now = clock.now();
          const m: EmailMessageRow = {
            id: ids('em'),
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            campaign_id: null,
            contact_id: null,
            to_address: body.to,
            from_name: from?.campaign.from_name ?? body.fromName ?? s.default_from_name,
            from_email: fromEmail,
            subject: body.subject,
            html: body.html ?? null,
            text: body.text ?? null,
            status: scope.environment === 'test' ? 'sent' : 'sending',
            token: randomBase62(d.random, 27),
            attempts: scope.environment === 'test' ? 1 : 0,
            next_attempt_at: now,
            exchange_started_at: null,
            sent_at: scope.environment === 'test' ? now : null,
            delivered_at: null,
            opened_at: null,
            clicked_at: null,
            bounced_at: null,
            failed_at: null,
            unsubscribed_at: null,
            opens: 0,
            clicks: 0,
            error_code: null,
            error_message: null,
            smtp_response: null,
            created_at: now,
            updated_at: now,
          };
          repo.insertMessage(m);
          if (scope.environment === 'test') {
            const sim = d.simulator.get(scope.workspaceId);
            scheduler.enqueue(
              SIM,
              { ids: [m.id], kind: 'deliver' },
              { runAt: now + sim.deliveryLatencyMs },
            );
          } else {
            // One governor paces campaign and single sends alike.
            const key = paceKey(scope);
            const at = governor.paced(key, s.rate_per_second, 1, now, Infinity)[0]!;
            governor.spend(key, 1, at);
            scheduler.enqueue(SMTP, { id: m.id }, { runAt: at });
          }
          return toEmailMessage(m);
        })
        .immediate();
    },

    sendTest(scope: Scope, id: string, to: string): EmailMessage {
      const c = find(scope, id);
      const sample: PlaceholderContact = { name: null, phone: '', email: to, attributes: {} };
      return this.send(
        scope,
        {
          to,
          subject: `[Test] ${renderEmailText(c.subject, sample)}`,
          html: renderEmailHtml(c.html, sample),
          ...(c.text ? { text: renderEmailText(c.text, sample) } : {}),
        },
        { campaign: c },
      );
    },

    message(scope: Scope, id: string): EmailMessage {
      const m = repo.messageInScope(scope, id);
      if (!m) throw new ApiError('not_found', `no email ${id}`, { param: 'id' });
      return toEmailMessage(m);
    },

    settings: (scope: Scope) => settingsView(scope, settingsRow(scope)),

    saveSettings(scope: Scope, body: EmailSettingsBody): EmailSettings {
      return db
        .transaction(() => {
          const s = settingsRow(scope);
          const next: EmailSettingsRow = { ...s, updated_at: clock.now() };
          if (body.smtp === null) {
            Object.assign(next, {
              smtp_host: null,
              smtp_port: null,
              smtp_secure: 0,
              smtp_user: null,
              smtp_password: null,
            });
          } else if (body.smtp) {
            // The password is write-only: it goes only to the server it was given for.
            const moved =
              body.smtp.host !== s.smtp_host ||
              body.smtp.port !== s.smtp_port ||
              (body.smtp.user ?? null) !== s.smtp_user;
            if (moved && s.smtp_password !== null && body.smtp.password === undefined) {
              throw new ApiError(
                'validation_error',
                'give the password again when changing the SMTP host, port or user',
                { param: 'smtp.password' },
              );
            }
            Object.assign(next, {
              smtp_host: body.smtp.host,
              smtp_port: body.smtp.port,
              smtp_secure: body.smtp.secure ? 1 : 0,
              smtp_user: body.smtp.user,
              // Write-only: left out, the stored password stays.
              smtp_password:
                body.smtp.password === undefined ? s.smtp_password : body.smtp.password,
            });
          }
          if (body.ratePerSecond !== undefined) next.rate_per_second = body.ratePerSecond;
          if (body.publicUrl !== undefined)
            next.public_url = body.publicUrl?.replace(/\/+$/, '') ?? null;
          if (body.dkim === null) {
            Object.assign(next, { dkim_domain: null, dkim_selector: null, dkim_private_key: null });
          } else if (body.dkim) {
            if (body.dkim.privateKey === undefined && s.dkim_private_key === null) {
              throw new ApiError('validation_error', 'DKIM needs a private key', {
                param: 'dkim.privateKey',
              });
            }
            Object.assign(next, {
              dkim_domain: body.dkim.domainName,
              dkim_selector: body.dkim.keySelector,
              dkim_private_key: body.dkim.privateKey ?? s.dkim_private_key,
            });
          }
          if (body.defaultFromEmail !== undefined) next.default_from_email = body.defaultFromEmail;
          if (body.defaultFromName !== undefined) next.default_from_name = body.defaultFromName;
          repo.saveSettings(next);
          return settingsView(scope, next);
        })
        .immediate();
    },

    /**
     * Connects and logs in to the SMTP server (and with `to`, sends a message), through the
     * outbound policy: a classified outcome, never what a non-SMTP peer sent (design.md §5).
     */
    async checkSmtp(scope: Scope, to?: string): Promise<SmtpCheck> {
      const s = settingsRow(scope);
      const config = smtpConfig(s);
      if (!config) {
        return {
          ok: false,
          outcome: null,
          code: 'smtp_not_configured',
          response: 'No SMTP server is set up yet.',
        };
      }
      const transport = smtpTransport(config, {
        maxConnections: 1,
        connect: connector(scope),
        ...(d.smtpOptions?.timeoutMs ? { timeoutMs: d.smtpOptions.timeoutMs } : {}),
      });
      try {
        const verified = await transport.verify();
        if (verified.outcome !== 'connected' || !to) {
          return { ok: verified.outcome === 'connected', ...verified };
        }
        const fromEmail = s.default_from_email ?? config.user ?? to;
        const composed = composeEmail({
          id: ids('em'),
          fromName: s.default_from_name,
          fromEmail,
          replyTo: null,
          to,
          subject: 'Parley: SMTP test message',
          html: null,
          text: 'This is a test message from Parley. Your SMTP settings work.',
          tracking: null,
        });
        const sent = await transport.send(composed.message);
        if (sent.kind === 'accepted') {
          return {
            ok: true,
            outcome: 'connected',
            code: null,
            response: `${verified.response} The test message to ${to} was accepted.`,
          };
        }
        // The server proved itself an SMTP server (it took our login): its answer is quoted.
        return {
          ok: false,
          outcome: 'connected',
          code: sent.kind === 'withdrawn' ? sent.kind : String(sent.code ?? sent.kind),
          response:
            sent.kind === 'withdrawn'
              ? 'The test message was not sent.'
              : `The server did not take the test message to ${to}: ${headerSafe(sent.response).slice(0, 300)}`,
        };
      } finally {
        transport.close();
      }
    },

    // ---- public tracking (no API key) -------------------------------------------------------

    /** The open pixel was loaded. */
    opened(token: string) {
      db.transaction(() => {
        const m = repo.byToken(token);
        if (!m || !repo.open(m.id, clock.now()) || !m.campaign_id) return;
        progress(repo.campaign(m.campaign_id)!);
      }).immediate();
    },

    /** A tracked link was followed: where to send the reader, or null for a forged link. */
    clicked(token: string, target: string, sig: string, verify: (key: Buffer) => boolean) {
      return db
        .transaction(() => {
          const m = repo.byToken(token);
          if (!m) return null;
          const s = settingsRow(scopeOf(m));
          if (!verify(Buffer.from(s.link_key))) return null;
          if (repo.click(m.id, clock.now()) && m.campaign_id) {
            progress(repo.campaign(m.campaign_id)!);
          }
          return target;
        })
        .immediate();
    },

    /** Who a token unsubscribes (for the confirmation page), or null. */
    unsubscribeTarget(token: string) {
      const m = repo.byToken(token);
      return m ? { address: m.to_address, done: m.unsubscribed_at !== null } : null;
    },

    unsubscribe(token: string): boolean {
      return db
        .transaction(() => {
          const m = repo.byToken(token);
          if (!m) return false;
          repo.unsubscribe(m, clock.now());
          if (m.campaign_id) progress(repo.campaign(m.campaign_id)!);
          return true;
        })
        .immediate();
    },
  };
}
export type EmailService = ReturnType<typeof emailService>;
