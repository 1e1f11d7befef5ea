-- Automation that listens (design.md §7, issue 23): workflows saved as drafts and activated
-- into versions, triggers the inbox starts (a customer's message, a status change, a list pick),
-- runs handed off to people, run outcomes, business hours.
--
-- Workflows take the status `draft`, runs `handed_off` and waiting steps `cancelled`, so their
-- CHECKs change: SQLite rebuilds those tables (the documented create, copy, drop, rename;
-- foreign keys are off while migrations run and checked before they commit). Same rowids,
-- same indexes.

CREATE TABLE workflows_rebuilt (
  id             TEXT PRIMARY KEY,
  workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
  environment    TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name           TEXT NOT NULL,
  status         TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('draft', 'active', 'paused', 'archived')),
  trigger_event  TEXT,                          -- the event name of an event trigger
  -- event | manual | message_received | conversation_status | list_reply (the current version's)
  trigger_type   TEXT NOT NULL DEFAULT 'manual',
  version        INTEGER NOT NULL,
  secret         TEXT NOT NULL,
  -- Pending edits of an active or paused workflow (JSON {name, trigger, steps, basedOnVersion,
  -- updatedAt}), activated into a new version; NULL when none.
  draft          TEXT,
  activated_at   INTEGER,                       -- last activation; NULL: never (a draft)
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
INSERT INTO workflows_rebuilt (rowid, id, workspace_id, environment, name, status, trigger_event,
    trigger_type, version, secret, draft, activated_at, created_at, updated_at)
  SELECT rowid, id, workspace_id, environment, name, status, trigger_event,
    CASE WHEN trigger_event IS NULL THEN 'manual' ELSE 'event' END, version, secret, NULL,
    created_at, created_at, updated_at
  FROM workflows;
DROP TABLE workflows;
PRAGMA legacy_alter_table = ON;
ALTER TABLE workflows_rebuilt RENAME TO workflows;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX workflows_scope ON workflows(workspace_id, environment, id);
CREATE INDEX workflows_event ON workflows(workspace_id, environment, trigger_event) WHERE status = 'active';
-- What the inbox listens for, per scope (read once into the trigger cache, again after a change).
CREATE INDEX workflows_listening ON workflows(workspace_id, environment)
  WHERE status = 'active' AND trigger_type IN ('message_received', 'conversation_status', 'list_reply');

-- A version is what ran: when it was activated and by whom (JSON {kind, id, name}). Versions
-- saved before this migration went live as they were saved.
ALTER TABLE workflow_versions ADD COLUMN activated_at INTEGER;
ALTER TABLE workflow_versions ADD COLUMN activated_by TEXT;
UPDATE workflow_versions SET activated_at = created_at;

CREATE TABLE workflow_runs_rebuilt (
  id                  TEXT PRIMARY KEY,
  workflow_id         TEXT NOT NULL REFERENCES workflows(id),
  version             INTEGER NOT NULL,
  workspace_id        TEXT NOT NULL,
  environment         TEXT NOT NULL,
  contact_id          TEXT NOT NULL REFERENCES contacts(id),
  status              TEXT NOT NULL CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'cancelled', 'handed_off')),
  -- How it ended (run history's words); NULL while it runs or waits.
  outcome             TEXT CHECK (outcome IN ('completed', 'timed_out', 'otherwise', 'handed_off', 'failed', 'cancelled')),
  current_step        TEXT,
  seq                 INTEGER NOT NULL DEFAULT 0,
  waiting_for         TEXT CHECK (waiting_for IN ('timer', 'reply', 'webhook', 'governor')),
  context             TEXT NOT NULL,
  trigger             TEXT NOT NULL,            -- JSON {type, event?, messageId?}
  -- The customer's message that started it (message_received, list_reply): once per workflow.
  trigger_message_id  TEXT,
  error               TEXT,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL,
  ended_at            INTEGER
);
INSERT INTO workflow_runs_rebuilt (rowid, id, workflow_id, version, workspace_id, environment,
    contact_id, status, outcome, current_step, seq, waiting_for, context, trigger,
    trigger_message_id, error, created_at, updated_at, ended_at)
  SELECT rowid, id, workflow_id, version, workspace_id, environment, contact_id, status,
    CASE WHEN status IN ('completed', 'failed', 'cancelled') THEN status END, current_step, seq,
    waiting_for, context, trigger, NULL, error, created_at, updated_at, ended_at
  FROM workflow_runs;
DROP TABLE workflow_runs;
PRAGMA legacy_alter_table = ON;
ALTER TABLE workflow_runs_rebuilt RENAME TO workflow_runs;
PRAGMA legacy_alter_table = OFF;
CREATE UNIQUE INDEX workflow_runs_active ON workflow_runs(workflow_id, contact_id)
  WHERE status IN ('running', 'waiting');
CREATE INDEX workflow_runs_list ON workflow_runs(workflow_id, id);
CREATE INDEX workflow_runs_status ON workflow_runs(workflow_id, status, id);
CREATE INDEX workflow_runs_replies ON workflow_runs(contact_id)
  WHERE status = 'waiting' AND waiting_for = 'reply';
CREATE INDEX workflow_runs_ended ON workflow_runs(ended_at) WHERE ended_at IS NOT NULL;
-- A contact's runs that talk to them now (handoff, the inbox's "Automation: …", trigger checks).
CREATE INDEX workflow_runs_contact_active ON workflow_runs(contact_id)
  WHERE status IN ('running', 'waiting');
CREATE UNIQUE INDEX workflow_runs_message ON workflow_runs(workflow_id, trigger_message_id)
  WHERE trigger_message_id IS NOT NULL;

CREATE TABLE workflow_run_steps_rebuilt (
  run_id      TEXT NOT NULL REFERENCES workflow_runs(id),
  seq         INTEGER NOT NULL,
  step_id     TEXT NOT NULL,
  type        TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'cancelled')),
  started_at  INTEGER NOT NULL,
  ended_at    INTEGER,
  output      TEXT,
  error       TEXT,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO workflow_run_steps_rebuilt SELECT run_id, seq, step_id, type, status, started_at,
  ended_at, output, error FROM workflow_run_steps;
DROP TABLE workflow_run_steps;
PRAGMA legacy_alter_table = ON;
ALTER TABLE workflow_run_steps_rebuilt RENAME TO workflow_run_steps;
PRAGMA legacy_alter_table = OFF;

-- When a person last spoke in (or took over) a conversation: a customer's message starts no
-- `message_received` run for 24 h after (the bot does not talk over a person).
CREATE TABLE conversation_human_activity (
  conversation_id  TEXT PRIMARY KEY REFERENCES conversations(id),
  at               INTEGER NOT NULL
) WITHOUT ROWID;

-- A workspace's business hours (JSON {timeZone, days, holidays}); none: the default.
CREATE TABLE business_hours (
  workspace_id  TEXT PRIMARY KEY REFERENCES workspaces(id),
  hours         TEXT NOT NULL,
  updated_at    INTEGER NOT NULL
) WITHOUT ROWID;
