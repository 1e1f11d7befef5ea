-- A campaign's per-recipient events (its messages, their statuses, the conversations its sends
-- create or move) carry the campaign's id, so an event stream that asks for campaigns as a
-- summary (`GET /events?campaigns=summary`, the desk's) can leave them out and follow the
-- campaign by its `campaign.progress` instead (README "Event stream"). Null for every other
-- event, and for every event stored before this migration.
ALTER TABLE events ADD COLUMN campaign_id TEXT;
