-- Messaging campaigns (design.md §4 Campaigns) and the sending governor (§4 Outbound pacing).

CREATE TABLE campaigns (
  id              TEXT PRIMARY KEY,
  workspace_id    TEXT NOT NULL REFERENCES workspaces(id),
  environment     TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name            TEXT NOT NULL,
  template_name   TEXT NOT NULL,
  variables       TEXT NOT NULL DEFAULT '{}',   -- JSON object as given ({{contact.*}} unrendered)
  target          TEXT NOT NULL,                -- JSON: {groupId} | {filter}
  status          TEXT NOT NULL DEFAULT 'draft'
                    CHECK (status IN ('draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled', 'failed')),
  scheduled_for   INTEGER,
  pause_reason    TEXT CHECK (pause_reason IN ('insufficient_balance', 'error_rate')),
  failure_reason  TEXT,
  -- The funnel, kept by the triggers below from the recipients' statuses.
  total           INTEGER NOT NULL DEFAULT 0,
  n_pending       INTEGER NOT NULL DEFAULT 0,
  n_retrying      INTEGER NOT NULL DEFAULT 0,
  n_sent          INTEGER NOT NULL DEFAULT 0,   -- sent, delivered and read
  n_delivered     INTEGER NOT NULL DEFAULT 0,   -- delivered and read
  n_read          INTEGER NOT NULL DEFAULT 0,
  n_failed        INTEGER NOT NULL DEFAULT 0,
  n_skipped       INTEGER NOT NULL DEFAULT 0,
  -- What the governor last held it for, while it holds it.
  blocked_until   INTEGER,
  blocked_by      TEXT CHECK (blocked_by IN ('tier', 'throughput', 'pair_rate')),
  -- The last 100 hand-over outcomes, oldest first: '0' handed over, '1' refused (auto-pause).
  recent_outcomes TEXT NOT NULL DEFAULT '',
  -- When the last campaign.progress event was written (at most one a second).
  progress_at     INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  launched_at     INTEGER,
  completed_at    INTEGER
);
CREATE INDEX campaigns_scope ON campaigns(workspace_id, environment, id);
CREATE INDEX campaigns_scope_status ON campaigns(workspace_id, environment, status, id);

-- One row per contact, fixed at launch. `due_at` orders the work: pending and retrying rows are
-- claimed by it through a partial index that holds only the rows still to send.
CREATE TABLE campaign_recipients (
  id              INTEGER PRIMARY KEY,
  campaign_id     TEXT NOT NULL REFERENCES campaigns(id),
  contact_id      TEXT NOT NULL REFERENCES contacts(id),
  phone           TEXT NOT NULL,
  variables       TEXT NOT NULL,                -- rendered for this contact (JSON object)
  status          TEXT NOT NULL
                    CHECK (status IN ('pending', 'retrying', 'sent', 'delivered', 'read', 'failed', 'skipped')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  due_at          INTEGER NOT NULL,
  message_id      TEXT,
  error_code      TEXT,
  error_message   TEXT,
  updated_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX campaign_recipients_contact ON campaign_recipients(campaign_id, contact_id);
CREATE INDEX campaign_recipients_due ON campaign_recipients(campaign_id, due_at, id)
  WHERE status IN ('pending', 'retrying');
CREATE INDEX campaign_recipients_status ON campaign_recipients(campaign_id, status, id);
CREATE INDEX campaign_recipients_order ON campaign_recipients(campaign_id, id);
CREATE INDEX campaign_recipients_by_contact ON campaign_recipients(contact_id, campaign_id);

-- Hand-overs per second, for the progress rate and the send-rate chart.
CREATE TABLE campaign_seconds (
  campaign_id  TEXT NOT NULL,
  second       INTEGER NOT NULL,               -- epoch seconds
  sent         INTEGER NOT NULL DEFAULT 0,
  failed       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (campaign_id, second)
) WITHOUT ROWID;

CREATE TRIGGER campaign_recipients_count_insert AFTER INSERT ON campaign_recipients BEGIN
  UPDATE campaigns SET
    total = total + 1,
    n_pending = n_pending + (new.status = 'pending'),
    n_retrying = n_retrying + (new.status = 'retrying'),
    n_sent = n_sent + (new.status IN ('sent', 'delivered', 'read')),
    n_delivered = n_delivered + (new.status IN ('delivered', 'read')),
    n_read = n_read + (new.status = 'read'),
    n_failed = n_failed + (new.status = 'failed'),
    n_skipped = n_skipped + (new.status = 'skipped')
  WHERE id = new.campaign_id;
END;

CREATE TRIGGER campaign_recipients_count_update AFTER UPDATE OF status ON campaign_recipients
WHEN old.status IS NOT new.status BEGIN
  UPDATE campaigns SET
    n_pending = n_pending + (new.status = 'pending') - (old.status = 'pending'),
    n_retrying = n_retrying + (new.status = 'retrying') - (old.status = 'retrying'),
    n_sent = n_sent + (new.status IN ('sent', 'delivered', 'read')) - (old.status IN ('sent', 'delivered', 'read')),
    n_delivered = n_delivered + (new.status IN ('delivered', 'read')) - (old.status IN ('delivered', 'read')),
    n_read = n_read + (new.status = 'read') - (old.status = 'read'),
    n_failed = n_failed + (new.status = 'failed') - (old.status = 'failed'),
    n_skipped = n_skipped + (new.status = 'skipped') - (old.status = 'skipped')
  WHERE id = new.campaign_id;
END;

-- A campaign's message knows its campaign; the channel's later statuses move the recipient on.
ALTER TABLE messages ADD COLUMN campaign_id TEXT;

CREATE TRIGGER campaign_recipient_follows_message AFTER UPDATE OF status ON messages
WHEN new.campaign_id IS NOT NULL AND old.status IS NOT new.status
  AND new.status IN ('delivered', 'read', 'failed') BEGIN
  UPDATE campaign_recipients SET
    status = new.status,
    error_code = CASE WHEN new.status = 'failed' THEN new.error_code ELSE error_code END,
    error_message = CASE WHEN new.status = 'failed' THEN new.error_message ELSE error_message END,
    updated_at = coalesce(new.failed_at, new.read_at, new.delivered_at, updated_at)
  WHERE campaign_id = new.campaign_id AND contact_id = new.contact_id AND message_id = new.id
    AND status IN ('sent', 'delivered');
END;

-- The governor's shared state: hand-overs of the last second per business account and
-- environment (a sliding window, counted per millisecond)…
CREATE TABLE governor_sends (
  account_id   TEXT NOT NULL,
  environment  TEXT NOT NULL,
  at           INTEGER NOT NULL,
  n            INTEGER NOT NULL,
  PRIMARY KEY (account_id, environment, at)
) WITHOUT ROWID;

-- …and per recipient: the last message (pair rate) and the start of its business-initiated
-- 24 h (the messaging tier counts recipients whose 24 h is still running).
CREATE TABLE governor_recipients (
  account_id      TEXT NOT NULL,
  environment     TEXT NOT NULL,
  phone           TEXT NOT NULL,
  last_sent_at    INTEGER NOT NULL,
  tier_opened_at  INTEGER,
  PRIMARY KEY (account_id, environment, phone)
) WITHOUT ROWID;
CREATE INDEX governor_recipients_tier ON governor_recipients(account_id, environment, tier_opened_at)
  WHERE tier_opened_at IS NOT NULL;
CREATE INDEX governor_recipients_last ON governor_recipients(last_sent_at);
