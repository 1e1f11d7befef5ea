-- Workflows (design.md §4 Workflows): definitions with versions, runs with their step history,
-- and the business events that start them.

CREATE TABLE workflows (
  id             TEXT PRIMARY KEY,
  workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
  environment    TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name           TEXT NOT NULL,
  status         TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'archived')),
  trigger_event  TEXT,                          -- the event name, NULL for manual workflows
  version        INTEGER NOT NULL,
  secret         TEXT NOT NULL,                 -- signs webhook steps (shown once)
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX workflows_scope ON workflows(workspace_id, environment, id);
CREATE INDEX workflows_event ON workflows(workspace_id, environment, trigger_event) WHERE status = 'active';

-- Every version as saved: runs execute the version they started on.
CREATE TABLE workflow_versions (
  workflow_id  TEXT NOT NULL REFERENCES workflows(id),
  version      INTEGER NOT NULL,
  definition   TEXT NOT NULL,                   -- JSON {name, trigger, steps}
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (workflow_id, version)
) WITHOUT ROWID;

CREATE TABLE workflow_runs (
  id             TEXT PRIMARY KEY,
  workflow_id    TEXT NOT NULL REFERENCES workflows(id),
  version        INTEGER NOT NULL,
  workspace_id   TEXT NOT NULL,
  environment    TEXT NOT NULL,
  contact_id     TEXT NOT NULL REFERENCES contacts(id),
  status         TEXT NOT NULL CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'cancelled')),
  current_step   TEXT,
  seq            INTEGER NOT NULL DEFAULT 0,    -- steps started so far; jobs name the one they serve
  waiting_for    TEXT CHECK (waiting_for IN ('timer', 'reply', 'webhook', 'governor')),
  context        TEXT NOT NULL,                 -- JSON {payload, reply, steps, attempts}
  trigger        TEXT NOT NULL,                 -- JSON {type, event}
  error          TEXT,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  ended_at       INTEGER
);
-- One active run per workflow and contact.
CREATE UNIQUE INDEX workflow_runs_active ON workflow_runs(workflow_id, contact_id)
  WHERE status IN ('running', 'waiting');
CREATE INDEX workflow_runs_list ON workflow_runs(workflow_id, id);
CREATE INDEX workflow_runs_status ON workflow_runs(workflow_id, status, id);
CREATE INDEX workflow_runs_replies ON workflow_runs(contact_id)
  WHERE status = 'waiting' AND waiting_for = 'reply';

CREATE TABLE workflow_run_steps (
  run_id      TEXT NOT NULL REFERENCES workflow_runs(id),
  seq         INTEGER NOT NULL,
  step_id     TEXT NOT NULL,
  type        TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('running', 'waiting', 'completed', 'failed')),
  started_at  INTEGER NOT NULL,
  ended_at    INTEGER,
  output      TEXT,
  error       TEXT,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE business_events (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL,
  environment   TEXT NOT NULL,
  event         TEXT NOT NULL,
  phone         TEXT NOT NULL,
  payload       TEXT NOT NULL,
  dedupe_key    TEXT,
  response      TEXT NOT NULL,                  -- the answer, replayed for a repeated dedupeKey
  created_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX business_events_dedupe ON business_events(workspace_id, environment, dedupe_key)
  WHERE dedupe_key IS NOT NULL;
