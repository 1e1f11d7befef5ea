import { renderEmailHtml, renderEmailText } from '../../../../shared/email-rules.ts';
import type { ComposeInput } from '../../email/compose.ts';
import { composeEmail } from '../../email/compose.ts';
import { RetryLater } from '../../jobs/scheduler.ts';
import type { PaceKey } from '../../pacing/governor.ts';
import type { Scope } from '../../runtime.ts';
import type { EmailCampaignsPart } from './campaigns.ts';
import { placeholderContactOf, scopeOf } from './records.ts';
import type { EmailCampaignRow, EmailMessageRow, EmailRepo, EmailSettingsRow } from './repo.ts';
import type { EmailDeps } from './service.ts';
import type { EmailSettingsPart } from './settings.ts';

export const SMTP = 'email.smtp';
export const SIM = 'email.sim';
/**
 * SMTP jobs running at once. The transport's pool has 5 connections and hands nodemailer no more
 * emails than that; the others wait at its gate, prepared and not marked as in an exchange, so a
 * freed connection takes the next one at once.
 */
const SMTP_CONCURRENCY = 10;
/** A transient SMTP failure is retried after 2, 4, 8, 16 s; the 5th failure fails the email. */
const SMTP_ATTEMPTS = 5;

/** Test keys: the simulated transport takes the email now; receipts follow in batches. */
export function handOverSimulated(
  d: Pick<EmailDeps, 'simulator' | 'scheduler'>,
  repo: EmailRepo,
  batch: EmailMessageRow[],
  now: number,
) {
  const { scheduler } = d;
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

/**
 * Delivery (README "Email", Transports): the simulated transport's receipts for test keys, and
 * for live keys one SMTP exchange a job. An email is `sending` before its exchange, and its
 * exchange start is committed when a connected pooled connection takes it, before the first
 * command, so a crash never sends it twice and marks only what a connection had.
 */
export function emailDelivery(
  d: EmailDeps,
  repo: EmailRepo,
  settings: EmailSettingsPart,
  campaigns: Pick<EmailCampaignsPart, 'progress' | 'setState' | 'finishIfDone' | 'startJob'>,
) {
  const { db, clock, scheduler, governor } = d;
  const { progress, setState, finishIfDone, startJob } = campaigns;

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

  scheduler.register(SIM, (payload) => {
    const { ids: batch, kind } = payload;
    const now = clock.now();
    if (kind === 'deliver') repo.simDeliver(batch, now);
    else repo.simOpen(batch, now);
    const first = repo.message(batch[0]!);
    if (first?.campaign_id) {
      const c = repo.campaign(first.campaign_id)!;
      if (!finishIfDone(c)) progress(c);
    }
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
      const { id } = payload;
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
          const s = settings.row(scopeOf(m));
          const transport = settings.transportFor(s);
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
          const input = composeInputOf(d, settings, m, c, s);
          // What this recipient gets is what the recipients list and its export show.
          if (c) repo.setSubject(m.id, input.subject);
          const composed = composeEmail(input);
          return {
            transport,
            message: composed.message,
            scope: scopeOf(m),
            rate: settings.rateOf(scopeOf(m), s),
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
}

/**
 * One email as composeEmail takes it: a campaign's filled for its contact, with tracking; a single
 * send as written. The simulator's "click" composes it too, to follow a link the recipient got.
 */
export function composeInputOf(
  d: Pick<EmailDeps, 'contacts'>,
  settings: Pick<EmailSettingsPart, 'publicUrlOf'>,
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
  const who = placeholderContactOf(d.contacts, m);
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
      publicUrl: settings.publicUrlOf(s),
      token: m.token,
      linkKey: Buffer.from(s.link_key),
    },
  };
}
