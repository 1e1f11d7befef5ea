-- Retention (jobs/retention.ts) sweeps every table that grows; these let each sweep read only
-- the rows it may remove instead of the whole table.
CREATE INDEX business_events_created ON business_events(created_at);
CREATE INDEX workflow_runs_ended ON workflow_runs(ended_at) WHERE ended_at IS NOT NULL;
-- Pending deliveries whose job is gone (a crash of an earlier version) are found and failed.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(created_at) WHERE status = 'pending';
-- Transactional emails keep their body only for a while (campaign emails store none).
CREATE INDEX email_messages_bodies ON email_messages(created_at)
  WHERE campaign_id IS NULL AND (html IS NOT NULL OR text IS NOT NULL);
