import type { Database as Db } from 'better-sqlite3';
import type { Scope } from '../../runtime.ts';
import type { Sealer } from '../../secrets.ts';
import { noSealer, openSealed } from '../../secrets.ts';

export interface EmailSettingsRow {
  workspace_id: string;
  environment: 'test' | 'live';
  smtp_host: string | null;
  smtp_port: number | null;
  smtp_secure: number;
  smtp_user: string | null;
  smtp_password: string | null;
  rate_per_second: number;
  public_url: string | null;
  dkim_domain: string | null;
  dkim_selector: string | null;
  dkim_private_key: string | null;
  default_from_email: string | null;
  default_from_name: string | null;
  link_key: string;
  updated_at: number | null;
  /**
   * Not a column: the sealed secrets this machine's data key could not open (read as null; a
   * backup restored elsewhere). Settings ask for them again.
   */
  unsealable?: string[];
}

const SECRETS = ['smtp_password', 'dkim_private_key', 'link_key'] as const;

export interface EmailCampaignRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  name: string;
  status: 'draft' | 'scheduled' | 'sending' | 'paused' | 'completed' | 'cancelled';
  subject: string;
  from_name: string | null;
  from_email: string;
  reply_to: string | null;
  html: string;
  /** The Markdown the html was rendered from (NULL: written as HTML). */
  markdown: string | null;
  text: string | null;
  audience: string;
  scheduled_for: number | null;
  pause_reason: string | null;
  pause_message: string | null;
  total: number;
  pending: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  failed: number;
  unsubscribed: number;
  cancelled: number;
  created_at: number;
  updated_at: number;
  launched_at: number | null;
  completed_at: number | null;
}

export interface EmailMessageRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  campaign_id: string | null;
  contact_id: string | null;
  to_address: string;
  from_name: string | null;
  from_email: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  status: 'pending' | 'sending' | 'sent' | 'delivered' | 'bounced' | 'failed' | 'cancelled';
  token: string;
  attempts: number;
  next_attempt_at: number;
  exchange_started_at: number | null;
  sent_at: number | null;
  delivered_at: number | null;
  opened_at: number | null;
  clicked_at: number | null;
  bounced_at: number | null;
  failed_at: number | null;
  unsubscribed_at: number | null;
  opens: number;
  clicks: number;
  error_code: string | null;
  error_message: string | null;
  smtp_response: string | null;
  created_at: number;
  updated_at: number;
}

export type NewEmailMessage = Pick<
  EmailMessageRow,
  | 'id'
  | 'workspace_id'
  | 'environment'
  | 'campaign_id'
  | 'contact_id'
  | 'to_address'
  | 'from_name'
  | 'from_email'
  | 'subject'
  | 'html'
  | 'text'
  | 'status'
  | 'token'
  | 'next_attempt_at'
  | 'sent_at'
  | 'created_at'
  | 'updated_at'
>;

/** Settings' secrets are sealed on write and opened on read (README "Data, backups and security"). */
export function emailRepo(db: Db, sealer: Sealer = noSealer) {
  const settings = db.prepare(
    'SELECT * FROM email_settings WHERE workspace_id = ? AND environment = ?',
  );
  const replaceLinkKey = db.prepare(
    'UPDATE email_settings SET link_key = ? WHERE workspace_id = ? AND environment = ?',
  );
  // A secret that did not open stays as stored until it is given again: the settings keep
  // saying so (and the original machine's key would still open it).
  const sealed = (r: EmailSettingsRow): EmailSettingsRow => {
    const stored = r.unsealable?.length
      ? (settings.get(r.workspace_id, r.environment) as EmailSettingsRow | undefined)
      : undefined;
    const seal = (c: 'smtp_password' | 'dkim_private_key') =>
      r[c] === null && stored && r.unsealable?.includes(c)
        ? stored[c]
        : sealer.sealOrNull(`email_settings.${c}`, r[c]);
    return {
      ...r,
      smtp_password: seal('smtp_password'),
      dkim_private_key: seal('dkim_private_key'),
    };
  };
  const insertSettings = db.prepare(
    `INSERT INTO email_settings (workspace_id, environment, link_key) VALUES (?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  const saveSettings = db.prepare(
    `UPDATE email_settings SET smtp_host = @smtp_host, smtp_port = @smtp_port,
       smtp_secure = @smtp_secure, smtp_user = @smtp_user, smtp_password = @smtp_password,
       rate_per_second = @rate_per_second, public_url = @public_url, dkim_domain = @dkim_domain,
       dkim_selector = @dkim_selector, dkim_private_key = @dkim_private_key,
       default_from_email = @default_from_email, default_from_name = @default_from_name,
       updated_at = @updated_at
     WHERE workspace_id = @workspace_id AND environment = @environment`,
  );

  const insertCampaign = db.prepare(
    `INSERT INTO email_campaigns (id, workspace_id, environment, name, status, subject, from_name,
       from_email, reply_to, html, markdown, text, audience, scheduled_for, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @name, @status, @subject, @from_name, @from_email,
       @reply_to, @html, @markdown, @text, @audience, @scheduled_for, @created_at, @updated_at)`,
  );
  const saveCampaign = db.prepare(
    `UPDATE email_campaigns SET name = @name, status = @status, subject = @subject,
       from_name = @from_name, from_email = @from_email, reply_to = @reply_to, html = @html,
       markdown = @markdown, text = @text, audience = @audience, scheduled_for = @scheduled_for,
       pause_reason = @pause_reason, pause_message = @pause_message, updated_at = @updated_at,
       launched_at = @launched_at, completed_at = @completed_at
     WHERE id = @id`,
  );
  const campaign = db.prepare('SELECT * FROM email_campaigns WHERE id = ?');
  const campaignInScope = db.prepare(
    'SELECT * FROM email_campaigns WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const page = db.prepare(
    `SELECT * FROM email_campaigns WHERE workspace_id = @workspaceId AND environment = @environment
       AND (@status IS NULL OR status = @status) AND (@cursor IS NULL OR id < @cursor)
     ORDER BY id DESC LIMIT @limit`,
  );

  const insertMessage = db.prepare(
    `INSERT INTO email_messages (id, workspace_id, environment, campaign_id, contact_id, to_address,
       from_name, from_email, subject, html, text, status, token, next_attempt_at, sent_at,
       created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @campaign_id, @contact_id, @to_address, @from_name,
       @from_email, @subject, @html, @text, @status, @token, @next_attempt_at, @sent_at,
       @created_at, @updated_at)`,
  );
  const message = db.prepare('SELECT * FROM email_messages WHERE id = ?');
  const messageInScope = db.prepare(
    'SELECT * FROM email_messages WHERE workspace_id = ? AND environment = ? AND id = ?',
  );
  const byToken = db.prepare('SELECT * FROM email_messages WHERE token = ?');
  const due = db.prepare(
    `SELECT * FROM email_messages WHERE campaign_id = ? AND status = 'pending' AND next_attempt_at <= ?
     ORDER BY next_attempt_at, id LIMIT ?`,
  );
  const nextDue = db
    .prepare(
      `SELECT min(next_attempt_at) FROM email_messages WHERE campaign_id = ? AND status = 'pending'`,
    )
    .pluck();
  const sending = db
    .prepare(`SELECT count(*) FROM email_messages WHERE campaign_id = ? AND status = 'sending'`)
    .pluck();
  const markSent = db.prepare(
    `UPDATE email_messages SET status = 'sent', attempts = attempts + 1, sent_at = @at,
       updated_at = @at WHERE id = @id`,
  );
  const setSubject = db.prepare(`UPDATE email_messages SET subject = ? WHERE id = ?`);
  const markSending = db.prepare(
    `UPDATE email_messages SET status = 'sending', updated_at = @at WHERE id = @id`,
  );
  const setExchange = db.prepare(
    `UPDATE email_messages SET exchange_started_at = ?, attempts = attempts + 1, updated_at = ?
     WHERE id = ? AND status = 'sending'`,
  );
  const saveOutcome = db.prepare(
    `UPDATE email_messages SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at,
       exchange_started_at = @exchange_started_at, sent_at = @sent_at, delivered_at = @delivered_at,
       bounced_at = @bounced_at, failed_at = @failed_at, error_code = @error_code,
       error_message = @error_message, smtp_response = @smtp_response, updated_at = @updated_at
     WHERE id = @id`,
  );
  // Simulated receipts, one statement per batch.
  const simDeliver = db.prepare(
    `UPDATE email_messages SET status = CASE WHEN to_address LIKE '%@bounce.test' THEN 'bounced' ELSE 'delivered' END,
       delivered_at = CASE WHEN to_address LIKE '%@bounce.test' THEN NULL ELSE @at END,
       bounced_at = CASE WHEN to_address LIKE '%@bounce.test' THEN @at ELSE NULL END,
       error_code = CASE WHEN to_address LIKE '%@bounce.test' THEN 'hard_bounce' ELSE NULL END,
       error_message = CASE WHEN to_address LIKE '%@bounce.test'
         THEN '550 5.1.1 the mailbox does not exist (simulated hard bounce)' ELSE NULL END,
       updated_at = @at
     WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'sent'`,
  );
  const simOpen = db.prepare(
    `UPDATE email_messages SET opened_at = @at, opens = opens + 1, updated_at = @at
     WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'delivered' AND opened_at IS NULL`,
  );
  const open = db.prepare(
    `UPDATE email_messages SET opens = opens + 1, opened_at = coalesce(opened_at, @at),
       status = CASE WHEN status = 'sent' THEN 'delivered' ELSE status END,
       delivered_at = CASE WHEN status = 'sent' THEN @at ELSE delivered_at END, updated_at = @at
     WHERE id = @id AND status IN ('sent', 'delivered')`,
  );
  const click = db.prepare(
    `UPDATE email_messages SET clicks = clicks + 1, clicked_at = coalesce(clicked_at, @at),
       opens = CASE WHEN opened_at IS NULL THEN opens + 1 ELSE opens END,
       opened_at = coalesce(opened_at, @at),
       status = CASE WHEN status = 'sent' THEN 'delivered' ELSE status END,
       delivered_at = CASE WHEN status = 'sent' THEN @at ELSE delivered_at END, updated_at = @at
     WHERE id = @id AND status IN ('sent', 'delivered')`,
  );
  // Which link a counted click followed (migration 0025).
  const clickLink = db.prepare(
    `INSERT INTO email_link_clicks (message_id, campaign_id, url, clicks, first_at, last_at)
     VALUES (@id, @campaignId, @url, 1, @at, @at)
     ON CONFLICT (message_id, url) DO UPDATE SET clicks = clicks + 1, last_at = @at`,
  );
  const linkReport = db.prepare(
    `SELECT url, count(*) AS recipients, sum(clicks) AS clicks, min(first_at) AS first_at,
       max(last_at) AS last_at
     FROM email_link_clicks WHERE campaign_id = ? GROUP BY url
     ORDER BY recipients DESC, clicks DESC, url LIMIT 500`,
  );
  // Every click of the campaign, not just the listed rows' (personalised links make many rows).
  const totalClicks = db
    .prepare('SELECT coalesce(sum(clicks), 0) FROM email_link_clicks WHERE campaign_id = ?')
    .pluck();
  // When this email's link opted the address out (a later opt-out through it after a
  // resubscribe is the new time: the undo window runs from it).
  const unsubscribe = db.prepare(
    `UPDATE email_messages SET unsubscribed_at = @at, updated_at = @at WHERE id = @id`,
  );
  // An unsubscribe is for the address: every contact of the scope with it stops getting email.
  const unsubscribeContact = db.prepare(
    `UPDATE contacts SET email_unsubscribed_at = coalesce(email_unsubscribed_at, @at)
     WHERE workspace_id = @workspaceId AND environment = @environment
       AND lower(trim(email)) = lower(trim(@address))`,
  );
  // …and campaigns still on their way to the address skip it.
  const cancelUnsubscribed = db.prepare(
    `UPDATE email_messages SET status = 'cancelled', error_code = 'unsubscribed',
       error_message = 'unsubscribed before this campaign reached them', updated_at = @at
     WHERE status = 'pending' AND campaign_id IS NOT NULL AND contact_id IN (
       SELECT id FROM contacts WHERE workspace_id = @workspaceId AND environment = @environment
         AND lower(trim(email)) = lower(trim(@address)))`,
  );
  // A resubscribe undoes this email's unsubscribe (its campaign's count goes back down); other
  // emails' unsubscribes stay as history, their campaigns' counts with them.
  const resubscribe = db.prepare(
    `UPDATE email_messages SET unsubscribed_at = NULL, updated_at = @at
     WHERE id = @id AND unsubscribed_at IS NOT NULL`,
  );
  const resubscribeContact = db.prepare(
    `UPDATE contacts SET email_unsubscribed_at = NULL
     WHERE workspace_id = @workspaceId AND environment = @environment
       AND lower(trim(email)) = lower(trim(@address))`,
  );
  const addressState = db.prepare(
    `SELECT count(*) AS contacts, count(email_unsubscribed_at) AS unsubscribed FROM contacts
     WHERE workspace_id = ? AND environment = ? AND lower(trim(email)) = lower(trim(?))`,
  );
  const groupName = db
    .prepare(
      'SELECT name FROM contact_groups WHERE workspace_id = ? AND environment = ? AND id = ?',
    )
    .pluck();
  const cancelPending = db.prepare(
    `UPDATE email_messages SET status = 'cancelled', updated_at = ?
     WHERE campaign_id = ? AND status = 'pending'`,
  );
  const recipients = db.prepare(
    `SELECT * FROM email_messages WHERE campaign_id = @campaignId
       AND (@status IS NULL OR status = @status) AND (@cursor IS NULL OR id > @cursor)
     ORDER BY id LIMIT @limit`,
  );
  const timeline = db.prepare(
    `SELECT b, sum(s) AS sent, sum(o) AS opened, sum(k) AS clicked FROM (
       SELECT (sent_at / @ms) * @ms AS b, 1 AS s, 0 AS o, 0 AS k FROM email_messages
         WHERE campaign_id = @id AND sent_at IS NOT NULL
       UNION ALL SELECT (opened_at / @ms) * @ms, 0, 1, 0 FROM email_messages
         WHERE campaign_id = @id AND opened_at IS NOT NULL
       UNION ALL SELECT (clicked_at / @ms) * @ms, 0, 0, 1 FROM email_messages
         WHERE campaign_id = @id AND clicked_at IS NOT NULL)
     GROUP BY b ORDER BY b`,
  );
  const span = db.prepare(
    `SELECT min(sent_at) AS first, max(max(coalesce(sent_at, 0), coalesce(opened_at, 0),
       coalesce(clicked_at, 0))) AS last FROM email_messages WHERE campaign_id = ?`,
  );

  return {
    settings: (scope: Scope) => {
      const r = settings.get(scope.workspaceId, scope.environment) as EmailSettingsRow | undefined;
      return r && openSealed(sealer, 'email_settings', r, SECRETS);
    },
    ensureSettings: (scope: Scope, linkKey: string) =>
      insertSettings.run(
        scope.workspaceId,
        scope.environment,
        sealer.seal('email_settings.link_key', linkKey),
      ),
    /** A new link key, when the stored one does not open here (links signed before fail). */
    replaceLinkKey: (scope: Scope, linkKey: string) =>
      replaceLinkKey.run(
        sealer.seal('email_settings.link_key', linkKey),
        scope.workspaceId,
        scope.environment,
      ),
    saveSettings: (r: EmailSettingsRow) => saveSettings.run(sealed(r)),

    insertCampaign: (r: EmailCampaignRow) => insertCampaign.run(r),
    saveCampaign: (r: EmailCampaignRow) => saveCampaign.run(r),
    campaign: (id: string) => campaign.get(id) as EmailCampaignRow | undefined,
    campaignInScope: (scope: Scope, id: string) =>
      campaignInScope.get(scope.workspaceId, scope.environment, id) as EmailCampaignRow | undefined,
    page: (q: {
      workspaceId: string;
      environment: string;
      status: string | null;
      cursor: string | null;
      limit: number;
    }) => page.all(q) as EmailCampaignRow[],

    insertMessage: (r: NewEmailMessage) => insertMessage.run(r),
    message: (id: string) => message.get(id) as EmailMessageRow | undefined,
    messageInScope: (scope: Scope, id: string) =>
      messageInScope.get(scope.workspaceId, scope.environment, id) as EmailMessageRow | undefined,
    byToken: (token: string) => byToken.get(token) as EmailMessageRow | undefined,
    due: (campaignId: string, at: number, limit: number) =>
      due.all(campaignId, at, limit) as EmailMessageRow[],
    nextDue: (campaignId: string) => nextDue.get(campaignId) as number | null,
    sending: (campaignId: string) => sending.get(campaignId) as number,
    markSent: (id: string, at: number) => markSent.run({ id, at }),
    /** The subject as it goes out to this recipient (a campaign's, its placeholders filled). */
    setSubject: (id: string, subject: string) => setSubject.run(subject, id),
    markSending: (id: string, at: number) => markSending.run({ id, at }),
    setExchange: (id: string, at: number) => setExchange.run(at, at, id).changes,
    saveOutcome: (r: EmailMessageRow) => saveOutcome.run(r),
    simDeliver: (ids: string[], at: number) => simDeliver.run({ ids: JSON.stringify(ids), at }),
    simOpen: (ids: string[], at: number) => simOpen.run({ ids: JSON.stringify(ids), at }),
    open: (id: string, at: number) => open.run({ id, at }).changes,
    click: (id: string, at: number) => click.run({ id, at }).changes,
    clickLink: (m: { id: string; campaignId: string; url: string; at: number }) => clickLink.run(m),
    linkReport: (campaignId: string) =>
      linkReport.all(campaignId) as {
        url: string;
        recipients: number;
        clicks: number;
        first_at: number;
        last_at: number;
      }[],
    totalClicks: (campaignId: string) => totalClicks.get(campaignId) as number,
    /**
     * Opts the address out (every contact with it; campaigns on their way skip it). `own`: this
     * email's link did it (the address was not out yet), so the email records when.
     */
    unsubscribe(m: EmailMessageRow, at: number, own: boolean) {
      if (own) unsubscribe.run({ id: m.id, at });
      const who = {
        workspaceId: m.workspace_id,
        environment: m.environment,
        address: m.to_address,
        at,
      };
      unsubscribeContact.run(who);
      cancelUnsubscribed.run(who);
    },
    /**
     * Undoes this email's unsubscribe: the address's contacts get email again; other emails'
     * unsubscribes stay as they were. Whether this email's own record changed.
     */
    resubscribe(m: EmailMessageRow, at: number): boolean {
      resubscribeContact.run({
        workspaceId: m.workspace_id,
        environment: m.environment,
        address: m.to_address,
      });
      return resubscribe.run({ id: m.id, at }).changes > 0;
    },
    /** How many contacts of the scope have this address, and how many of them are opted out. */
    addressState: (scope: Scope, address: string) =>
      addressState.get(scope.workspaceId, scope.environment, address) as {
        contacts: number;
        unsubscribed: number;
      },
    groupName: (scope: Scope, id: string) =>
      (groupName.get(scope.workspaceId, scope.environment, id) as string | undefined) ?? null,
    cancelPending: (campaignId: string, at: number) => cancelPending.run(at, campaignId).changes,
    recipients: (q: {
      campaignId: string;
      status: string | null;
      cursor: string | null;
      limit: number;
    }) => recipients.all(q) as EmailMessageRow[],
    timeline: (id: string, ms: number) =>
      timeline.all({ id, ms }) as { b: number; sent: number; opened: number; clicked: number }[],
    span: (id: string) => span.get(id) as { first: number | null; last: number | null },
  };
}
export type EmailRepo = ReturnType<typeof emailRepo>;
