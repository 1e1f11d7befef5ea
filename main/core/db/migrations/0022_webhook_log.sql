-- The Webhooks screen (design.md §8): an endpoint can be disabled without being deleted (it gets
-- no new deliveries), and the delivery log keeps when the last attempt ran and the beginning of
-- the receiver's answer (its first 1 KiB; `response_truncated` when there was more), so an owner
-- sees why a receiver refused without reading its logs. The log filters by status.
ALTER TABLE webhooks ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1));
ALTER TABLE webhook_deliveries ADD COLUMN last_attempt_at INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN response_excerpt TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN response_truncated INTEGER NOT NULL DEFAULT 0;
CREATE INDEX webhook_deliveries_webhook_status ON webhook_deliveries(webhook_id, status, id);
