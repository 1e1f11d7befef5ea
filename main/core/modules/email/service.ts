import type { Database as Db } from 'better-sqlite3';
import type { Outbox } from '../../events/outbox.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import type { Outbound } from '../../net/outbound.ts';
import type { AuditService } from '../audit/service.ts';
import type { Governor } from '../../pacing/governor.ts';
import type { Clock, IdGenerator, Random } from '../../runtime.ts';
import type { CampaignsService } from '../campaigns/service.ts';
import type { ContactsService } from '../contacts/service.ts';
import type { SimulatorSettingsService } from '../simulator/settings.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import { emailCampaigns } from './campaigns.ts';
import { emailDelivery } from './delivery.ts';
import type { Sealer } from '../../secrets.ts';
import { emailRepo } from './repo.ts';
import { emailSettings } from './settings.ts';
import { emailTracking } from './tracking.ts';
import { emailTransactional } from './transactional.ts';

export { toEmailCampaign, toEmailMessage } from './records.ts';

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
  /** Unsubscribes and resubscribes through a recipient's link are audited. */
  audit: AuditService;
  /** Tests point SMTP at a self-signed local peer. */
  smtpOptions?: { allowInvalidCerts?: boolean; timeoutMs?: number };
  /** Seals the SMTP password, DKIM key and link key in the repo (README "Data, backups and security"). */
  sealer: Sealer;
}

/**
 * Email (README "Email"), composed of its use cases: settings (SMTP, rate, public URL, DKIM, the
 * check), campaigns (drafts, launch, the runner), delivery (the simulated transport and SMTP
 * exchanges), transactional sends and public tracking (opens, clicks, unsubscribes). Test keys
 * use the simulated transport: the hand-over commits in the pass's transaction (exactly once).
 * Live keys use SMTP, at most once (see `delivery.ts`).
 */
export function emailService(d: EmailDeps) {
  const repo = emailRepo(d.db, d.sealer);
  const settings = emailSettings(d, repo);
  const campaigns = emailCampaigns(d, repo, settings);
  emailDelivery(d, repo, settings, campaigns);
  const transactional = emailTransactional(d, repo, settings, campaigns);
  const tracking = emailTracking(d, repo, settings, campaigns);
  return {
    repo,
    ...settings.api,
    ...campaigns.api,
    ...transactional,
    ...tracking,
  };
}
export type EmailService = ReturnType<typeof emailService>;
