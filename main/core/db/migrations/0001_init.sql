-- Foundation: workspaces, business accounts, API keys, contacts, groups, wallet ledger,
-- idempotency records. Times are integer milliseconds since the epoch (UTC).

CREATE TABLE workspaces (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);

CREATE TABLE business_accounts (
  id              TEXT PRIMARY KEY,
  workspace_id    TEXT NOT NULL REFERENCES workspaces(id),
  name            TEXT NOT NULL,
  active          INTEGER NOT NULL DEFAULT 0,
  messaging_tier  INTEGER DEFAULT 2000,         -- NULL = unlimited
  throughput_mps  INTEGER NOT NULL DEFAULT 80,
  created_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX business_accounts_one_active ON business_accounts(workspace_id) WHERE active = 1;

CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  environment   TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name          TEXT NOT NULL,
  key_hash      TEXT NOT NULL UNIQUE,             -- SHA-256 hex; the key itself is never stored
  prefix        TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER,
  revoked_at    INTEGER
);
CREATE INDEX api_keys_workspace ON api_keys(workspace_id, id);

CREATE TABLE contacts (
  id               TEXT PRIMARY KEY,
  workspace_id     TEXT NOT NULL REFERENCES workspaces(id),
  environment      TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  phone            TEXT NOT NULL,
  name             TEXT,
  email            TEXT,
  labels           TEXT NOT NULL DEFAULT '[]',  -- JSON array, mirrored in contact_labels for filtering
  attributes       TEXT NOT NULL DEFAULT '{}',  -- JSON object
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  last_inbound_at  INTEGER
);
CREATE UNIQUE INDEX contacts_scope_phone ON contacts(workspace_id, environment, phone);
CREATE INDEX contacts_scope_id ON contacts(workspace_id, environment, id);

CREATE TABLE contact_labels (
  contact_id    TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  workspace_id  TEXT NOT NULL,
  environment   TEXT NOT NULL,
  label         TEXT NOT NULL,
  PRIMARY KEY (contact_id, label)
) WITHOUT ROWID;
CREATE INDEX contact_labels_scope ON contact_labels(workspace_id, environment, label, contact_id);

CREATE TABLE contact_groups (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  environment   TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name          TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX contact_groups_scope_name ON contact_groups(workspace_id, environment, name);

CREATE TABLE group_members (
  group_id    TEXT NOT NULL REFERENCES contact_groups(id) ON DELETE CASCADE,
  contact_id  TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  added_at    INTEGER NOT NULL,
  PRIMARY KEY (group_id, contact_id)
) WITHOUT ROWID;
CREATE INDEX group_members_contact ON group_members(contact_id);

CREATE TABLE wallets (
  workspace_id                  TEXT PRIMARY KEY REFERENCES workspaces(id),
  balance_micros                INTEGER NOT NULL DEFAULT 0,
  currency                      TEXT NOT NULL DEFAULT 'USD',
  low_balance_threshold_micros  INTEGER NOT NULL DEFAULT 5000000,
  updated_at                    INTEGER NOT NULL
);

CREATE TABLE wallet_ledger (
  seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
  id                    TEXT NOT NULL UNIQUE,
  workspace_id          TEXT NOT NULL REFERENCES workspaces(id),
  type                  TEXT NOT NULL CHECK (type IN ('topup', 'charge', 'refund', 'adjustment')),
  amount_micros         INTEGER NOT NULL,
  balance_after_micros  INTEGER NOT NULL,
  description           TEXT NOT NULL,
  reference             TEXT,
  created_at            INTEGER NOT NULL
);
CREATE INDEX wallet_ledger_workspace ON wallet_ledger(workspace_id, seq);

-- The ledger is append-only: corrections are new entries, never edits.
CREATE TRIGGER wallet_ledger_no_update BEFORE UPDATE ON wallet_ledger
BEGIN SELECT RAISE(ABORT, 'wallet_ledger is append-only'); END;
CREATE TRIGGER wallet_ledger_no_delete BEFORE DELETE ON wallet_ledger
BEGIN SELECT RAISE(ABORT, 'wallet_ledger is append-only'); END;

CREATE TABLE idempotency_keys (
  scope         TEXT NOT NULL,                   -- credential scope: key id or session + workspace + env
  key           TEXT NOT NULL,
  request_hash  TEXT NOT NULL,
  status        INTEGER NOT NULL,
  headers       TEXT NOT NULL,
  body          TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
