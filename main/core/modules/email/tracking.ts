import type { CampaignTarget } from '../../../../shared/schemas/campaigns.ts';
import { ApiError } from '../../../../shared/errors.ts';
import type { EmailLinkReport } from '../../../../shared/schemas/email.ts';
import { composeEmail, emailLinks, TRACKING_PATHS, verifyClick } from '../../email/compose.ts';
import type { Scope } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import { composeInputOf } from './delivery.ts';
import type { EmailCampaignsPart } from './campaigns.ts';
import { scopeOf, toEmailMessage } from './records.ts';
import type { EmailMessageRow, EmailRepo } from './repo.ts';
import type { EmailDeps } from './service.ts';
import type { EmailSettingsPart } from './settings.ts';

/**
 * How long after an email's link opted its address out that link may undo it ("Unsubscribed by
 * mistake?"). Later, or through another email's link, a resubscribe is refused: an old or
 * forwarded email must not re-enrol an address that opted out.
 */
export const RESUBSCRIBE_WINDOW_MS = 60 * 60 * 1000;

/**
 * Public tracking (README "Email", Deliverability): opens, clicks and unsubscribes, reached
 * through a recipient's unguessable token without an API key; each moves its campaign's counts.
 */
export function emailTracking(
  d: EmailDeps,
  repo: EmailRepo,
  settings: EmailSettingsPart,
  campaigns: Pick<EmailCampaignsPart, 'progress' | 'find'>,
) {
  const { db, clock, outbox, audit } = d;
  const { progress } = campaigns;

  /**
   * The audience a campaign went to, as its recipient reads it on the unsubscribe page: a list
   * by its name; a filter is "a selection of contacts" (labels are the team's own words for
   * people, never shown to them).
   */
  function audienceWords(scope: Scope, t: CampaignTarget): string {
    if (t.groupId) {
      const name = repo.groupName(scope, t.groupId);
      return name ? `the list “${name}”` : 'a list';
    }
    return 'a selection of contacts';
  }

  /**
   * Whether the email's address is opted out of campaign email now: a contact of the scope with
   * it is (what later launches read); with no such contact, whether this email's link did it.
   */
  function addressOut(m: EmailMessageRow): boolean {
    const a = repo.addressState(scopeOf(m), m.to_address);
    return a.unsubscribed > 0 || (a.contacts === 0 && m.unsubscribed_at !== null);
  }

  /** Whether this email's own unsubscribe is recent enough for its link to undo it. */
  function canUndo(m: EmailMessageRow, now: number): boolean {
    return m.unsubscribed_at !== null && now - m.unsubscribed_at <= RESUBSCRIBE_WINDOW_MS;
  }

  /** The event and the audit entry of an unsubscribe or a resubscribe (the recipient did it). */
  function subscriptionChanged(m: EmailMessageRow, change: 'unsubscribed' | 'resubscribed') {
    const data = {
      address: m.to_address,
      messageId: m.id,
      campaignId: m.campaign_id,
      contactId: m.contact_id,
    };
    outbox.emit(scopeOf(m), `email.${change}`, data);
    audit.append({
      workspaceId: m.workspace_id,
      actor: { kind: 'anonymous', id: null, name: m.to_address },
      action: `email.${change}`,
      target: m.campaign_id
        ? { type: 'email_campaign', id: m.campaign_id, label: null }
        : { type: 'email', id: m.id, label: null },
      details: { environment: m.environment, messageId: m.id, contactId: m.contact_id },
    });
  }

  /** A tracked link was followed: where to send the reader, or null for a forged link. */
  function clicked(token: string, target: string, sig: string, verify: (key: Buffer) => boolean) {
    return db
      .transaction(() => {
        const m = repo.byToken(token);
        if (!m) return null;
        const s = settings.row(scopeOf(m));
        if (!verify(Buffer.from(s.link_key))) return null;
        const now = clock.now();
        if (repo.click(m.id, now) && m.campaign_id) {
          repo.clickLink({ id: m.id, campaignId: m.campaign_id, url: target, at: now });
          progress(repo.campaign(m.campaign_id)!);
        }
        return target;
      })
      .immediate();
  }

  return {
    clicked,

    /** Which links of a campaign were followed, by how many recipients and how often. */
    links(scope: Scope, id: string): EmailLinkReport {
      const c = campaigns.find(scope, id);
      const data = repo.linkReport(c.id).map((r) => ({
        url: r.url,
        recipients: r.recipients,
        clicks: r.clicks,
        firstClickAt: iso(r.first_at),
        lastClickAt: iso(r.last_at),
      }));
      const fresh = repo.campaign(c.id)!;
      return {
        data,
        clickedRecipients: fresh.clicked,
        totalClicks: repo.totalClicks(c.id),
      };
    },

    /**
     * The simulator's "a recipient clicks" (test mode): the email is composed as it went out, and
     * one of its tracked links (the given one, else the first) is followed through the same path
     * a real click takes (signature checked, funnel, per-link report, progress event).
     */
    simulateClick(scope: Scope, messageId: string, url?: string) {
      const m = repo.messageInScope(scope, messageId);
      if (!m) throw new ApiError('not_found', `no email ${messageId}`, { param: 'messageId' });
      const c = m.campaign_id ? repo.campaign(m.campaign_id)! : null;
      if (!c) {
        throw new ApiError(
          'validation_error',
          'only a campaign’s emails carry tracked links; this is a single send',
          { param: 'messageId' },
        );
      }
      if (m.status !== 'sent' && m.status !== 'delivered') {
        throw new ApiError(
          'invalid_state',
          `email ${m.id} is ${m.status}: only a sent or delivered email can be clicked`,
          { param: 'messageId', details: { status: m.status } },
        );
      }
      const { message } = composeEmail(composeInputOf(d, settings, m, c, settings.row(scope)));
      const html = typeof message.html === 'string' ? message.html : '';
      const prefix = settings.publicUrlOf(settings.row(scope)).replace(/\/+$/, '');
      const tracked = emailLinks(html)
        .filter((l) => l.startsWith(prefix + TRACKING_PATHS.click(m.token)))
        .map((l) => new URL(l));
      const pick = url ? tracked.find((l) => l.searchParams.get('u') === url) : tracked[0];
      if (!pick) {
        throw new ApiError(
          'validation_error',
          tracked.length === 0
            ? 'this email has no tracked links (only http and https links are tracked)'
            : `this email has no link to ${url}`,
          { param: url ? 'url' : 'messageId' },
        );
      }
      const u = pick.searchParams.get('u')!;
      const sig = pick.searchParams.get('s')!;
      clicked(m.token, u, sig, (key) => verifyClick(m.token, u, sig, key));
      return toEmailMessage(repo.message(m.id)!);
    },

    /** The open pixel was loaded. */
    opened(token: string) {
      db.transaction(() => {
        const m = repo.byToken(token);
        if (!m || !repo.open(m.id, clock.now()) || !m.campaign_id) return;
        progress(repo.campaign(m.campaign_id)!);
      }).immediate();
    },

    /**
     * Who a token unsubscribes and what from (for the branded page): the address, whether it is
     * unsubscribed now, the sender's name and address, and the campaign's audience in words.
     */
    unsubscribeTarget(token: string) {
      const m = repo.byToken(token);
      if (!m) return null;
      const c = m.campaign_id ? repo.campaign(m.campaign_id) : undefined;
      const scope = scopeOf(m);
      const s = settings.row(scope);
      const done = addressOut(m);
      return {
        address: m.to_address,
        done,
        /** Whether the page offers "Resubscribe": this link opted the address out, recently. */
        canResubscribe: done && canUndo(m, clock.now()),
        senderName: c?.from_name ?? m.from_name ?? s.default_from_name ?? null,
        senderEmail: c?.from_email ?? m.from_email ?? s.default_from_email ?? null,
        audience: c ? audienceWords(scope, JSON.parse(c.audience) as CampaignTarget) : null,
      };
    },

    /**
     * What the unsubscribe page shows a campaign's recipient, for its owner's preview: the
     * campaign's sender and audience, its first recipient's address (a sample one before launch).
     * Reads only: no email, contact or count changes.
     */
    unsubscribePreview(scope: Scope, campaignId: string) {
      const c = campaigns.find(scope, campaignId);
      const s = settings.row(scope);
      const first = repo.recipients({ campaignId: c.id, status: null, cursor: null, limit: 1 })[0];
      return {
        address: first?.to_address ?? 'recipient@example.com',
        done: false,
        canResubscribe: true,
        senderName: c.from_name ?? s.default_from_name ?? null,
        senderEmail: c.from_email ?? s.default_from_email ?? null,
        audience: audienceWords(scope, JSON.parse(c.audience) as CampaignTarget),
      };
    },

    unsubscribe(token: string): boolean {
      return db
        .transaction(() => {
          const m = repo.byToken(token);
          if (!m) return false;
          // Already out (through this email or another): nothing changes, so no event, and this
          // email's record stays as it is (its link cannot undo an opt-out it did not make).
          const was = addressOut(m);
          repo.unsubscribe(m, clock.now(), !was);
          if (!was) {
            if (m.campaign_id) progress(repo.campaign(m.campaign_id)!);
            subscriptionChanged(m, 'unsubscribed');
          }
          return true;
        })
        .immediate();
    },

    /**
     * "Resubscribe" on the unsubscribe page, within RESUBSCRIBE_WINDOW_MS of this email's own
     * unsubscribe: the address gets campaign email again (the contacts with it are recipients of
     * later launches; campaigns that skipped it meanwhile stay as they went), and this email's
     * campaign counts one unsubscribe less. Other emails' unsubscribes stay as history. Evented
     * and audited like the unsubscribe. `subscribed`: nothing to undo (the address is not out);
     * `refused`: out, but not recently through this link; `unknown`: no such token.
     */
    resubscribe(token: string): 'resubscribed' | 'subscribed' | 'refused' | 'unknown' {
      return db
        .transaction(() => {
          const m = repo.byToken(token);
          if (!m) return 'unknown';
          const wasOut = addressOut(m);
          if (!canUndo(m, clock.now())) return wasOut ? 'refused' : 'subscribed';
          if (repo.resubscribe(m, clock.now()) && m.campaign_id) {
            progress(repo.campaign(m.campaign_id)!);
          }
          if (wasOut) subscriptionChanged(m, 'resubscribed');
          return 'resubscribed';
        })
        .immediate();
    },
  };
}
