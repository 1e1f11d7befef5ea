-- Messaging and the inbox: templates, agents, conversations, messages (with full-text search),
-- prices, simulator settings, the durable job scheduler, the event outbox and webhooks.

ALTER TABLE workspaces ADD COLUMN allow_private_webhooks INTEGER NOT NULL DEFAULT 0;

CREATE TABLE templates (
  id                TEXT PRIMARY KEY,
  workspace_id      TEXT NOT NULL REFERENCES workspaces(id),
  environment       TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name              TEXT NOT NULL,
  category          TEXT NOT NULL CHECK (category IN ('MARKETING', 'UTILITY', 'AUTHENTICATION')),
  language          TEXT NOT NULL,
  components        TEXT NOT NULL,            -- JSON array as submitted
  variable_count    INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED')),
  rejection_reason  TEXT,
  approved_at       INTEGER,
  usable_at         INTEGER,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);
CREATE UNIQUE INDEX templates_scope_name ON templates(workspace_id, environment, name);
CREATE INDEX templates_scope_id ON templates(workspace_id, environment, id);

CREATE TABLE agents (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  name          TEXT NOT NULL,
  email         TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX agents_email ON agents(workspace_id, email);

CREATE TABLE conversations (
  id                   TEXT PRIMARY KEY,
  workspace_id         TEXT NOT NULL REFERENCES workspaces(id),
  environment          TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  contact_id           TEXT NOT NULL REFERENCES contacts(id),
  business_account_id  TEXT NOT NULL REFERENCES business_accounts(id),
  status               TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending', 'snoozed', 'resolved')),
  assignee_id          TEXT,
  labels               TEXT NOT NULL DEFAULT '[]',
  snoozed_until        INTEGER,
  last_message_at      INTEGER NOT NULL,
  last_inbound_at      INTEGER,
  unread_count         INTEGER NOT NULL DEFAULT 0,
  version              INTEGER NOT NULL DEFAULT 0,   -- bumped by triggers whenever its API JSON changes
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
);
CREATE UNIQUE INDEX conversations_contact ON conversations(contact_id, business_account_id);
CREATE INDEX conversations_scope_activity ON conversations(workspace_id, environment, last_message_at DESC, id DESC);
CREATE INDEX conversations_scope_status ON conversations(workspace_id, environment, status, last_message_at DESC, id DESC);
CREATE INDEX conversations_scope_assignee ON conversations(workspace_id, environment, assignee_id, last_message_at DESC, id DESC);
CREATE INDEX conversations_scope_assignee_status ON conversations(workspace_id, environment, assignee_id, status, last_message_at DESC, id DESC);

-- Labels, with the conversation's status, assignee and last activity mirrored (by trigger) so
-- a label filter pages and counts from its own rows.
CREATE TABLE conversation_labels (
  conversation_id  TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  conversation_rowid INTEGER NOT NULL,            -- joins back to the conversation in one seek
  workspace_id     TEXT NOT NULL,
  environment      TEXT NOT NULL,
  label            TEXT NOT NULL,
  status           TEXT NOT NULL,
  assignee_id      TEXT,
  last_message_at  INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, label)
) WITHOUT ROWID;
CREATE INDEX conversation_labels_activity ON conversation_labels(workspace_id, environment, label, last_message_at DESC, conversation_id DESC);
CREATE INDEX conversation_labels_status ON conversation_labels(workspace_id, environment, label, status, last_message_at DESC, conversation_id DESC);

CREATE TRIGGER conversation_labels_follow AFTER UPDATE OF status, assignee_id, last_message_at ON conversations
WHEN old.status IS NOT new.status OR old.assignee_id IS NOT new.assignee_id
  OR old.last_message_at IS NOT new.last_message_at BEGIN
  UPDATE conversation_labels SET status = new.status, assignee_id = new.assignee_id,
    last_message_at = new.last_message_at
  WHERE conversation_id = new.id;
END;

-- Counts per status (per assignee; '' = unassigned) for the inbox tabs, kept by triggers so
-- they cost nothing to read.
CREATE TABLE conversation_counts (
  workspace_id  TEXT NOT NULL,
  environment   TEXT NOT NULL,
  assignee_key  TEXT NOT NULL,
  status        TEXT NOT NULL,
  n             INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, environment, assignee_key, status)
) WITHOUT ROWID;

CREATE TRIGGER conversation_counts_insert AFTER INSERT ON conversations BEGIN
  INSERT INTO conversation_counts VALUES (new.workspace_id, new.environment, coalesce(new.assignee_id, ''), new.status, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER conversation_counts_update AFTER UPDATE OF status, assignee_id ON conversations
WHEN old.status IS NOT new.status OR old.assignee_id IS NOT new.assignee_id BEGIN
  UPDATE conversation_counts SET n = n - 1 WHERE workspace_id = old.workspace_id AND environment = old.environment
    AND assignee_key = coalesce(old.assignee_id, '') AND status = old.status;
  INSERT INTO conversation_counts VALUES (new.workspace_id, new.environment, coalesce(new.assignee_id, ''), new.status, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER conversation_counts_delete AFTER DELETE ON conversations BEGIN
  UPDATE conversation_counts SET n = n - 1 WHERE workspace_id = old.workspace_id AND environment = old.environment
    AND assignee_key = coalesce(old.assignee_id, '') AND status = old.status;
END;

-- The same counts per label, kept from the label rows.
CREATE TABLE conversation_label_counts (
  workspace_id  TEXT NOT NULL,
  environment   TEXT NOT NULL,
  label         TEXT NOT NULL,
  assignee_key  TEXT NOT NULL,
  status        TEXT NOT NULL,
  n             INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, environment, label, assignee_key, status)
) WITHOUT ROWID;

CREATE TRIGGER conversation_label_counts_insert AFTER INSERT ON conversation_labels BEGIN
  INSERT INTO conversation_label_counts
  VALUES (new.workspace_id, new.environment, new.label, coalesce(new.assignee_id, ''), new.status, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER conversation_label_counts_update AFTER UPDATE OF status, assignee_id ON conversation_labels
WHEN old.status IS NOT new.status OR old.assignee_id IS NOT new.assignee_id BEGIN
  UPDATE conversation_label_counts SET n = n - 1 WHERE workspace_id = old.workspace_id
    AND environment = old.environment AND label = old.label AND assignee_key = coalesce(old.assignee_id, '')
    AND status = old.status;
  INSERT INTO conversation_label_counts
  VALUES (new.workspace_id, new.environment, new.label, coalesce(new.assignee_id, ''), new.status, 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER conversation_label_counts_delete AFTER DELETE ON conversation_labels BEGIN
  UPDATE conversation_label_counts SET n = n - 1 WHERE workspace_id = old.workspace_id
    AND environment = old.environment AND label = old.label AND assignee_key = coalesce(old.assignee_id, '')
    AND status = old.status;
END;

CREATE TABLE messages (
  id                  TEXT PRIMARY KEY,
  workspace_id        TEXT NOT NULL,
  environment         TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  conversation_id     TEXT NOT NULL REFERENCES conversations(id),
  contact_id          TEXT NOT NULL REFERENCES contacts(id),
  phone               TEXT NOT NULL,
  direction           TEXT NOT NULL CHECK (direction IN ('outbound', 'inbound')),
  type                TEXT NOT NULL CHECK (type IN ('template', 'text', 'list', 'note')),
  template_name       TEXT,
  text                TEXT NOT NULL,
  variables           TEXT,                    -- JSON object or NULL
  status              TEXT NOT NULL CHECK (status IN ('accepted', 'sent', 'delivered', 'read', 'failed', 'received', 'note')),
  sent_by             TEXT NOT NULL CHECK (sent_by IN ('api', 'agent', 'bot', 'contact')),
  agent_id            TEXT,
  category            TEXT,
  cost_micros         INTEGER NOT NULL DEFAULT 0,
  channel_message_id  TEXT,
  error_code          TEXT,
  error_message       TEXT,
  created_at          INTEGER NOT NULL,
  sent_at             INTEGER,
  delivered_at        INTEGER,
  read_at             INTEGER,
  failed_at           INTEGER
);
CREATE INDEX messages_conversation ON messages(conversation_id, id);
CREATE INDEX messages_contact ON messages(contact_id, id);
CREATE UNIQUE INDEX messages_channel_id ON messages(channel_message_id) WHERE channel_message_id IS NOT NULL;

-- Substring search over contact names, phones and emails for the inbox (?q=), by trigram.
CREATE VIRTUAL TABLE contacts_fts USING fts5(name, phone, email, content = 'contacts', content_rowid = 'rowid', tokenize = 'trigram');
INSERT INTO contacts_fts (contacts_fts) VALUES ('rebuild');
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_fts (rowid, name, phone, email) VALUES (new.rowid, new.name, new.phone, new.email);
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF name, phone, email ON contacts BEGIN
  INSERT INTO contacts_fts (contacts_fts, rowid, name, phone, email) VALUES ('delete', old.rowid, old.name, old.phone, old.email);
  INSERT INTO contacts_fts (rowid, name, phone, email) VALUES (new.rowid, new.name, new.phone, new.email);
END;
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
  INSERT INTO contacts_fts (contacts_fts, rowid, name, phone, email) VALUES ('delete', old.rowid, old.name, old.phone, old.email);
END;

-- A conversation's JSON (with its contact and last message) changes with any of them: bump its
-- version so each process can cache the JSON and trust it while the version holds.
CREATE TRIGGER conversations_version_self AFTER UPDATE ON conversations WHEN old.version = new.version BEGIN
  UPDATE conversations SET version = version + 1 WHERE id = new.id;
END;
CREATE TRIGGER conversations_version_message AFTER INSERT ON messages BEGIN
  UPDATE conversations SET version = version + 1 WHERE id = new.conversation_id;
END;
CREATE TRIGGER conversations_version_status AFTER UPDATE OF status ON messages WHEN old.status IS NOT new.status BEGIN
  UPDATE conversations SET version = version + 1 WHERE id = new.conversation_id;
END;
CREATE TRIGGER conversations_version_contact AFTER UPDATE ON contacts BEGIN
  UPDATE conversations SET version = version + 1 WHERE contact_id = new.id;
END;

-- Full-text search over message text for the inbox (?q=), kept in step by triggers.
CREATE VIRTUAL TABLE messages_fts USING fts5(text, content = 'messages', content_rowid = 'rowid');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;

CREATE TABLE prices (
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  category      TEXT NOT NULL CHECK (category IN ('MARKETING', 'UTILITY', 'AUTHENTICATION', 'SERVICE')),
  price_micros  INTEGER NOT NULL CHECK (price_micros >= 0),
  PRIMARY KEY (workspace_id, category)
) WITHOUT ROWID;

CREATE TABLE simulator_settings (
  workspace_id  TEXT PRIMARY KEY REFERENCES workspaces(id),
  settings      TEXT NOT NULL               -- JSON: only the values changed from the defaults
);

-- One durable scheduler for every runner: template reviews, status simulation, webhook
-- deliveries now; campaigns, workflows and email next.
CREATE TABLE jobs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  kind          TEXT NOT NULL,
  payload       TEXT NOT NULL,
  run_at        INTEGER NOT NULL,
  attempts      INTEGER NOT NULL DEFAULT 0,
  max_attempts  INTEGER NOT NULL DEFAULT 10,
  lease_until   INTEGER,
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'dead')),
  last_error    TEXT,
  dedupe_key    TEXT UNIQUE,
  created_at    INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs(status, run_at);

-- The outbox: one row per state change, written in the same transaction as the change.
CREATE TABLE events (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  id            TEXT NOT NULL UNIQUE,
  workspace_id  TEXT NOT NULL,
  environment   TEXT NOT NULL,
  type          TEXT NOT NULL,
  data          TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE INDEX events_scope ON events(workspace_id, environment, seq);

CREATE TABLE webhooks (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  environment   TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  url           TEXT NOT NULL,
  secret        TEXT NOT NULL,
  events        TEXT,                       -- JSON array of types, NULL = all
  description   TEXT,
  created_at    INTEGER NOT NULL,
  deleted_at    INTEGER
);
CREATE INDEX webhooks_scope ON webhooks(workspace_id, environment) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id                TEXT PRIMARY KEY,
  webhook_id        TEXT NOT NULL REFERENCES webhooks(id),
  event_seq         INTEGER NOT NULL REFERENCES events(seq),
  status            TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts          INTEGER NOT NULL DEFAULT 0,
  last_status_code  INTEGER,
  last_error        TEXT,
  next_attempt_at   INTEGER,
  created_at        INTEGER NOT NULL,
  delivered_at      INTEGER
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, id);

INSERT INTO prices (workspace_id, category, price_micros)
  SELECT id, c.category, c.price FROM workspaces,
    (SELECT 'MARKETING' AS category, 25000 AS price UNION ALL SELECT 'UTILITY', 5000
     UNION ALL SELECT 'AUTHENTICATION', 4000 UNION ALL SELECT 'SERVICE', 0) c;
