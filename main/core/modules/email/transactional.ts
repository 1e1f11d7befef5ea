import { ApiError } from '../../../../shared/errors.ts';
import { renderEmailHtml, renderEmailText } from '../../../../shared/email-rules.ts';
import type { PlaceholderContact } from '../../../../shared/placeholders.ts';
import type {
  EmailMessage,
  SendEmailBody,
  TestEmailBody,
} from '../../../../shared/schemas/email.ts';
import type { Scope } from '../../runtime.ts';
import { randomBase62 } from '../../runtime.ts';
import type { EmailCampaignsPart } from './campaigns.ts';
import { SIM, SMTP } from './delivery.ts';
import { paceKey, toEmailMessage, toPlaceholderContact } from './records.ts';
import type { EmailCampaignRow, EmailMessageRow, EmailRepo } from './repo.ts';
import type { EmailDeps } from './service.ts';
import type { EmailSettingsPart } from './settings.ts';

/**
 * Single emails (README "Email"): `POST /v1/email/send` and a campaign's "send a test email",
 * paced by the same governor key as the workspace's campaigns; no tracking.
 */
export function emailTransactional(
  d: EmailDeps,
  repo: EmailRepo,
  settings: EmailSettingsPart,
  campaigns: Pick<EmailCampaignsPart, 'find'>,
) {
  const { db, clock, ids, scheduler, governor } = d;

  /** `POST /v1/email/send` and a campaign's "send a test email": one email, no tracking. */
  function send(
    scope: Scope,
    body: SendEmailBody,
    from?: { campaign: EmailCampaignRow },
  ): EmailMessage {
    return db
      .transaction(() => {
        const s = settings.row(scope);
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
  }

  return {
    send,

    /**
     * A message of the desk's own to a person (an invite): sent through the workspace's live
     * SMTP when it is set up with a default sender; false when it is not (nothing is queued).
     */
    sendNotice(workspaceId: string, to: string, subject: string, text: string): boolean {
      const scope: Scope = { workspaceId, environment: 'live' };
      const s = repo.settings(scope);
      if (!s?.smtp_host || !s.default_from_email) return false;
      send(scope, { to, subject, text });
      return true;
    },

    /**
     * A campaign's test email to `to`, filled from the chosen contact (of the scope) when one is
     * given, else with the address as `{{contact.email}}` and other fields empty.
     */
    sendTest(scope: Scope, id: string, body: TestEmailBody): EmailMessage {
      const { to, contactId } = body;
      const c = campaigns.find(scope, id);
      let sample: PlaceholderContact = { name: null, phone: '', email: to, attributes: {} };
      if (contactId !== undefined) {
        const contact = d.contacts.find(scope, contactId);
        if (!contact) {
          throw new ApiError('not_found', `no contact ${contactId}`, { param: 'contactId' });
        }
        sample = toPlaceholderContact(contact);
      }
      return send(
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
  };
}
