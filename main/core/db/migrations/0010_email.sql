-- Email campaigns and transactional email (design.md §4 Email campaigns, §5 SMTP).

-- A contact that unsubscribed from email (through a campaign's link or header) is never a
-- recipient again.
ALTER TABLE contacts ADD COLUMN email_unsubscribed_at INTEGER;

-- Per workspace and environment. Test keys always use the simulated transport; the SMTP fields
-- serve live keys (and the settings screen's check). Password and DKIM key are write-only.
CREATE TABLE email_settings (
  workspace_id      TEXT NOT NULL REFERENCES workspaces(id),
  environment       TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  smtp_host         TEXT,
  smtp_port         INTEGER,
  smtp_secure       INTEGER NOT NULL DEFAULT 0,
  smtp_user         TEXT,
  smtp_password     TEXT,
  rate_per_second   INTEGER NOT NULL DEFAULT 10,
  public_url        TEXT,
  dkim_domain       TEXT,
  dkim_selector     TEXT,
  dkim_private_key  TEXT,
  default_from_email TEXT,
  default_from_name TEXT,
  -- Signs click-redirect targets (HMAC), so a tracking link cannot be turned into an open redirect.
  link_key          TEXT NOT NULL,
  updated_at        INTEGER,
  PRIMARY KEY (workspace_id, environment)
) WITHOUT ROWID;

CREATE TABLE email_campaigns (
  id              TEXT PRIMARY KEY,
  workspace_id    TEXT NOT NULL REFERENCES workspaces(id),
  environment     TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name            TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled')),
  subject         TEXT NOT NULL,
  from_name       TEXT,
  from_email      TEXT NOT NULL,
  reply_to        TEXT,
  html            TEXT NOT NULL,
  text            TEXT,
  audience        TEXT NOT NULL,
  scheduled_for   INTEGER,
  pause_reason    TEXT,
  pause_message   TEXT,
  -- The funnel, kept by the triggers below as recipients move.
  total           INTEGER NOT NULL DEFAULT 0,
  pending         INTEGER NOT NULL DEFAULT 0,
  sent            INTEGER NOT NULL DEFAULT 0,
  delivered       INTEGER NOT NULL DEFAULT 0,
  opened          INTEGER NOT NULL DEFAULT 0,
  clicked         INTEGER NOT NULL DEFAULT 0,
  bounced         INTEGER NOT NULL DEFAULT 0,
  failed          INTEGER NOT NULL DEFAULT 0,
  unsubscribed    INTEGER NOT NULL DEFAULT 0,
  cancelled       INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  launched_at     INTEGER,
  completed_at    INTEGER
);
CREATE INDEX email_campaigns_list ON email_campaigns(workspace_id, environment, id DESC);
CREATE INDEX email_campaigns_status ON email_campaigns(workspace_id, environment, status, id DESC);

-- One row per email: a campaign's recipients (fixed at launch) and single transactional sends.
-- Campaign emails are rendered from their campaign when sent; transactional ones keep their own
-- content.
CREATE TABLE email_messages (
  id               TEXT PRIMARY KEY,
  workspace_id     TEXT NOT NULL REFERENCES workspaces(id),
  environment      TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  campaign_id      TEXT REFERENCES email_campaigns(id),
  contact_id       TEXT REFERENCES contacts(id),
  to_address       TEXT NOT NULL,
  from_name        TEXT,
  from_email       TEXT,
  subject          TEXT NOT NULL,
  html             TEXT,
  text             TEXT,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'delivered', 'bounced', 'failed', 'cancelled')),
  -- Unguessable: names the email in its open pixel, click redirects and unsubscribe link.
  token            TEXT NOT NULL UNIQUE,
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER NOT NULL,
  -- Set (and committed) right before an SMTP exchange starts: an email found `sending` with it
  -- after a crash may have reached the server, so it is never sent again (at most once).
  exchange_started_at INTEGER,
  sent_at          INTEGER,
  delivered_at     INTEGER,
  opened_at        INTEGER,
  clicked_at       INTEGER,
  bounced_at       INTEGER,
  failed_at        INTEGER,
  unsubscribed_at  INTEGER,
  opens            INTEGER NOT NULL DEFAULT 0,
  clicks           INTEGER NOT NULL DEFAULT 0,
  error_code       TEXT,
  error_message    TEXT,
  smtp_response    TEXT,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);
CREATE INDEX email_messages_due ON email_messages(campaign_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX email_messages_campaign ON email_messages(campaign_id, status, id);
CREATE UNIQUE INDEX email_messages_once ON email_messages(campaign_id, contact_id)
  WHERE campaign_id IS NOT NULL;
CREATE INDEX email_messages_scope ON email_messages(workspace_id, environment, id);
CREATE INDEX email_messages_contact ON email_messages(contact_id) WHERE contact_id IS NOT NULL;

-- The funnel follows the recipients: sent ⊇ delivered ⊇ opened, sent ⊇ bounced.
CREATE TRIGGER email_counts_insert AFTER INSERT ON email_messages WHEN new.campaign_id IS NOT NULL
BEGIN
  UPDATE email_campaigns SET total = total + 1,
    pending = pending + (new.status IN ('pending', 'sending')),
    failed = failed + (new.status = 'failed')
  WHERE id = new.campaign_id;
END;

CREATE TRIGGER email_counts_update AFTER UPDATE OF status, opened_at, clicked_at, unsubscribed_at
  ON email_messages WHEN new.campaign_id IS NOT NULL
BEGIN
  UPDATE email_campaigns SET
    pending = pending + (new.status IN ('pending', 'sending')) - (old.status IN ('pending', 'sending')),
    sent = sent + (new.status IN ('sent', 'delivered', 'bounced')) - (old.status IN ('sent', 'delivered', 'bounced')),
    delivered = delivered + (new.status = 'delivered') - (old.status = 'delivered'),
    bounced = bounced + (new.status = 'bounced') - (old.status = 'bounced'),
    failed = failed + (new.status = 'failed') - (old.status = 'failed'),
    cancelled = cancelled + (new.status = 'cancelled') - (old.status = 'cancelled'),
    opened = opened + (new.opened_at IS NOT NULL) - (old.opened_at IS NOT NULL),
    clicked = clicked + (new.clicked_at IS NOT NULL) - (old.clicked_at IS NOT NULL),
    unsubscribed = unsubscribed + (new.unsubscribed_at IS NOT NULL) - (old.unsubscribed_at IS NOT NULL)
  WHERE id = new.campaign_id;
END;
