-- Canned replies: an agent's saved answers, typed after "/" in the composer. Scoped by
-- workspace and environment like every record; a shortcut is unique within its scope.

CREATE TABLE canned_replies (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  environment   TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  shortcut      TEXT NOT NULL,
  text          TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
-- Also the list's order and its cursor: pages walk shortcuts alphabetically.
CREATE UNIQUE INDEX canned_replies_shortcut ON canned_replies(workspace_id, environment, shortcut);
