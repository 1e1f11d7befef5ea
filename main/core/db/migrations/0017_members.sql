-- Members, sessions, invites and the audit trail (design.md §6, README "Security").
-- The workspace's agents become members: an agent without a password is assignable but cannot
-- sign in until invited. Every workspace gets its one owner (the desktop's local session).

CREATE TABLE members (
  id                   TEXT PRIMARY KEY,
  workspace_id         TEXT NOT NULL REFERENCES workspaces(id),
  name                 TEXT NOT NULL,
  email                TEXT,                      -- lower-cased; NULL for an owner who set none
  role                 TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'agent')),
  rights               TEXT NOT NULL DEFAULT '[]', -- JSON array of grants (agents only)
  password_hash        TEXT,                      -- scrypt$N$r$p$salt$hash; NULL: cannot sign in
  active               INTEGER NOT NULL DEFAULT 1,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
);
CREATE UNIQUE INDEX members_scope_email ON members(workspace_id, email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX members_one_owner ON members(workspace_id) WHERE role = 'owner';
CREATE INDEX members_email ON members(email) WHERE email IS NOT NULL;
CREATE INDEX members_scope_name ON members(workspace_id, name, id);

INSERT INTO members (id, workspace_id, name, email, role, rights, password_hash, active, created_at, updated_at)
  SELECT id, workspace_id, name, lower(email), 'agent', '[]', NULL, 1, created_at, created_at
  FROM agents
  -- Two agents whose addresses differ only in case keep the older one's address.
  WHERE NOT EXISTS (
    SELECT 1 FROM agents older WHERE older.workspace_id = agents.workspace_id
      AND lower(older.email) = lower(agents.email) AND older.rowid < agents.rowid);
INSERT INTO members (id, workspace_id, name, email, role, rights, password_hash, active, created_at, updated_at)
  SELECT a.id, a.workspace_id, a.name, NULL, 'agent', '[]', NULL, 1, a.created_at, a.created_at
  FROM agents a WHERE a.id NOT IN (SELECT id FROM members);
INSERT INTO members (id, workspace_id, name, email, role, rights, password_hash, active, created_at, updated_at)
  SELECT 'mem_' || upper(hex(randomblob(13))), w.id, 'Owner', NULL, 'owner', '[]', NULL, 1, w.created_at, w.created_at
  FROM workspaces w;
DROP TABLE agents;

-- A session is a random 256-bit id the browser holds; only its SHA-256 is stored.
CREATE TABLE sessions (
  id            TEXT PRIMARY KEY,                 -- public handle (list, revoke)
  token_hash    TEXT NOT NULL UNIQUE,             -- SHA-256 hex of the cookie's value
  member_id     TEXT NOT NULL REFERENCES members(id),
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  device        TEXT NOT NULL,
  address       TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  last_seen_at  INTEGER NOT NULL,
  ended_at      INTEGER,
  end_reason    TEXT
);
CREATE INDEX sessions_member ON sessions(member_id, created_at DESC) WHERE ended_at IS NULL;
CREATE INDEX sessions_ended ON sessions(coalesce(ended_at, last_seen_at));

-- The solo desk's one-click sign-in: single use, 10 minutes.
CREATE TABLE login_links (
  token_hash  TEXT PRIMARY KEY,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  used_at     INTEGER
);

CREATE TABLE invites (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  token_hash    TEXT NOT NULL UNIQUE,
  email         TEXT NOT NULL,
  name          TEXT NOT NULL,
  role          TEXT NOT NULL CHECK (role IN ('admin', 'agent')),
  rights        TEXT NOT NULL DEFAULT '[]',
  invited_by    TEXT REFERENCES members(id),
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  accepted_at   INTEGER,
  revoked_at    INTEGER
);
CREATE INDEX invites_pending ON invites(workspace_id, created_at DESC) WHERE accepted_at IS NULL AND revoked_at IS NULL;

-- Append-only: who did what to what, from where (kept 400 days).
CREATE TABLE audit (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id  TEXT NOT NULL,                    -- '': the whole desk (a failed sign-in for no member)
  actor_kind    TEXT NOT NULL,
  actor_id      TEXT,
  actor_name    TEXT,
  action        TEXT NOT NULL,
  target_type   TEXT,
  target_id     TEXT,
  target_label  TEXT,
  address       TEXT,
  details       TEXT NOT NULL DEFAULT '{}',
  created_at    INTEGER NOT NULL
);
CREATE INDEX audit_scope ON audit(workspace_id, seq);
CREATE INDEX audit_scope_action ON audit(workspace_id, action, seq);
CREATE INDEX audit_scope_actor ON audit(workspace_id, actor_id, seq);
CREATE INDEX audit_created ON audit(created_at);
