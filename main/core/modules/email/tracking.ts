import type { EmailCampaignsPart } from './campaigns.ts';
import { scopeOf } from './records.ts';
import type { EmailRepo } from './repo.ts';
import type { EmailDeps } from './service.ts';
import type { EmailSettingsPart } from './settings.ts';

/**
 * Public tracking (README "Email", Deliverability): opens, clicks and unsubscribes, reached
 * through a recipient's unguessable token without an API key; each moves its campaign's counts.
 */
export function emailTracking(
  d: EmailDeps,
  repo: EmailRepo,
  settings: EmailSettingsPart,
  campaigns: Pick<EmailCampaignsPart, 'progress'>,
) {
  const { db, clock } = d;
  const { progress } = campaigns;

  return {
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
          const s = settings.row(scopeOf(m));
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
