-- Who a customer is (design.md §5): a contact has a phone, a WhatsApp business-scoped user id
-- (BSUID, `wa_user_id`), or both. SQLite cannot drop a NOT NULL constraint in place, so the
-- table is rebuilt as its documented procedure says (migrate() runs every migration with
-- foreign keys off and checks them before committing): same rowids (contacts_fts is an
-- external-content index keyed by them), same indexes and triggers, then the BSUID's own index.
-- Messages, campaign recipients and the governor keep the address a message went to in their
-- `phone` column: the E.164 number, or the BSUID for a contact without one.
CREATE TABLE contacts_rebuilt (
  id                     TEXT PRIMARY KEY,
  workspace_id           TEXT NOT NULL REFERENCES workspaces(id),
  environment            TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  phone                  TEXT,
  name                   TEXT,
  email                  TEXT,
  labels                 TEXT NOT NULL DEFAULT '[]',
  attributes             TEXT NOT NULL DEFAULT '{}',
  created_at             INTEGER NOT NULL,
  updated_at             INTEGER NOT NULL,
  last_inbound_at        INTEGER,
  email_unsubscribed_at  INTEGER,
  wa_user_id             TEXT,
  CHECK (phone IS NOT NULL OR wa_user_id IS NOT NULL)
);
INSERT INTO contacts_rebuilt (rowid, id, workspace_id, environment, phone, name, email, labels,
    attributes, created_at, updated_at, last_inbound_at, email_unsubscribed_at)
  SELECT rowid, id, workspace_id, environment, phone, name, email, labels, attributes, created_at,
    updated_at, last_inbound_at, email_unsubscribed_at FROM contacts;
DROP TABLE contacts;
-- Other tables' triggers name `contacts`; the rename must not re-check them against a schema
-- that has no such table for this one statement.
PRAGMA legacy_alter_table = ON;
ALTER TABLE contacts_rebuilt RENAME TO contacts;
PRAGMA legacy_alter_table = OFF;

CREATE UNIQUE INDEX contacts_scope_phone ON contacts(workspace_id, environment, phone);
CREATE INDEX contacts_scope_id ON contacts(workspace_id, environment, id);
CREATE INDEX contacts_scope_email ON contacts(workspace_id, environment, lower(trim(email)))
  WHERE email IS NOT NULL;
CREATE UNIQUE INDEX contacts_scope_wa_user ON contacts(workspace_id, environment, wa_user_id)
  WHERE wa_user_id IS NOT NULL;

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
CREATE TRIGGER conversations_version_contact AFTER UPDATE ON contacts BEGIN
  UPDATE conversations SET version = version + 1 WHERE contact_id = new.id;
END;
CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contact_counts (workspace_id, environment, n) VALUES (new.workspace_id, new.environment, 1)
    ON CONFLICT (workspace_id, environment) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts BEGIN
  UPDATE contact_counts SET n = n - 1
    WHERE workspace_id = old.workspace_id AND environment = old.environment;
END;

-- One bad item never sinks a delivery (design.md §5): a webhook item that cannot be read is kept
-- here, with its raw JSON and why, and the rest of the delivery commits.
CREATE TABLE webhook_rejects (
  id                   TEXT PRIMARY KEY,
  business_account_id  TEXT NOT NULL,
  workspace_id         TEXT NOT NULL,
  kind                 TEXT NOT NULL,  -- message | status | template | change
  raw                  TEXT NOT NULL,
  reason               TEXT NOT NULL,
  received_at          INTEGER NOT NULL
);
CREATE INDEX webhook_rejects_workspace ON webhook_rejects(workspace_id, id);

-- A customer's reaction to one of the conversation's messages (an emoji; null once removed).
ALTER TABLE messages ADD COLUMN reaction TEXT;
ALTER TABLE messages ADD COLUMN reaction_at INTEGER;

-- A phone number id belongs to the first business account that proved it (design.md §5): a
-- webhook signed with its app secret naming the number, or a check against Meta's own Graph
-- host. A check against any other host proves nothing.
ALTER TABLE channel_settings ADD COLUMN phone_proved_at INTEGER;
ALTER TABLE channel_settings ADD COLUMN check_outcome TEXT;
