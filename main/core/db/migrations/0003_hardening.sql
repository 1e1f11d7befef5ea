-- Hardening: lease owners (a restarted core reclaims its dead predecessor's work at once),
-- the remote-dispatch marker, lanes for the scheduler, and retention bookkeeping.

-- Who holds a job's lease: "<boot id>/<pid>/<process token>" (see main/core/jobs/owner.ts).
ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
-- How often a process died holding the job: a job that kills its process is buried, not retried forever.
ALTER TABLE jobs ADD COLUMN reclaims INTEGER NOT NULL DEFAULT 0;
-- Each kind is claimed on its own (lanes), so a backlog of one kind never hides another's due jobs.
CREATE INDEX jobs_kind_due ON jobs(kind, status, run_at);
CREATE INDEX jobs_owner ON jobs(lease_owner) WHERE lease_owner IS NOT NULL;

-- An in-progress Idempotency-Key reservation names its process, so a dead one can be released.
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;

-- Set when a message is handed to a remote provider and cleared by its answer (design.md §5):
-- a message a crash left here is re-sent only when no status for it arrived in time.
ALTER TABLE messages ADD COLUMN dispatching_at INTEGER;

-- Retention prunes events no delivery points at (a seek), oldest first by sequence (no index
-- on the hot insert path), and deliveries by age.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_seq);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries(created_at);

-- Store-wide facts, e.g. the highest event sequence retention has removed (for stream resets).
CREATE TABLE store_meta (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
) WITHOUT ROWID;
