-- A real channel for live keys (design.md §5): WhatsApp Cloud API settings per business account.
-- Test keys always use the simulated channel. Access token and app secret are write-only.
CREATE TABLE channel_settings (
  business_account_id  TEXT PRIMARY KEY REFERENCES business_accounts(id),
  workspace_id         TEXT NOT NULL REFERENCES workspaces(id),
  provider             TEXT NOT NULL DEFAULT 'simulated' CHECK (provider IN ('simulated', 'cloud_api')),
  phone_number_id      TEXT,
  waba_id              TEXT,
  access_token         TEXT,
  app_secret           TEXT,
  verify_token         TEXT NOT NULL,
  graph_base_url       TEXT,
  -- What the provider said about the number on the last check (connect or sync).
  display_phone_number TEXT,
  verified_name        TEXT,
  quality_rating       TEXT,
  provider_tier        INTEGER,   -- business-initiated conversations per 24 h; NULL: unlimited
  provider_mps         INTEGER,   -- messages per second
  checked_at           INTEGER,
  check_ok             INTEGER,
  check_message        TEXT,
  updated_at           INTEGER NOT NULL
) WITHOUT ROWID;
-- Inbound webhooks name the number they are for: that finds the account.
CREATE UNIQUE INDEX channel_settings_phone ON channel_settings(phone_number_id)
  WHERE phone_number_id IS NOT NULL;

-- The provider's id of a live template (submitted on create, read back by sync).
ALTER TABLE templates ADD COLUMN provider_template_id TEXT;
