-- Interactive lists (design.md §4 Interactive lists), and what list messages carry.

CREATE TABLE interactive_lists (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  environment   TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  name          TEXT NOT NULL,
  header        TEXT,
  body          TEXT NOT NULL,
  footer        TEXT,
  button_text   TEXT NOT NULL,
  sections      TEXT NOT NULL,               -- JSON array of {title, rows: [{id, title, description}]}
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX interactive_lists_scope ON interactive_lists(workspace_id, environment, id);

-- An outbound list message keeps the list as it was sent (JSON of the list's API shape); an
-- inbound pick keeps its {listId, rowId, title}.
ALTER TABLE messages ADD COLUMN interactive TEXT;
