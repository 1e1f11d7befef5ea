-- The contacts list answers its total on the first page. Unfiltered, that is every first page
-- a client reads: keep the count by triggers (one row per workspace and environment) instead of
-- counting the index on each request, as the inbox's tab counts are kept.
CREATE TABLE contact_counts (
  workspace_id  TEXT NOT NULL,
  environment   TEXT NOT NULL,
  n             INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, environment)
) WITHOUT ROWID;

INSERT INTO contact_counts (workspace_id, environment, n)
  SELECT workspace_id, environment, count(*) FROM contacts GROUP BY workspace_id, environment;

CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contact_counts (workspace_id, environment, n) VALUES (new.workspace_id, new.environment, 1)
    ON CONFLICT (workspace_id, environment) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts BEGIN
  UPDATE contact_counts SET n = n - 1
    WHERE workspace_id = old.workspace_id AND environment = old.environment;
END;
