-- Email (issue 24 item 5): which links of a campaign were followed, and a campaign's Markdown source.

-- One row per email and link: how often that recipient followed that link, first and last time.
-- Kept by the same click path that moves `email_messages.clicks` (a click the funnel counts is
-- counted here too). Clicks from before this migration are in the funnel only.
CREATE TABLE email_link_clicks (
  message_id   TEXT NOT NULL REFERENCES email_messages(id) ON DELETE CASCADE,
  campaign_id  TEXT NOT NULL REFERENCES email_campaigns(id) ON DELETE CASCADE,
  url          TEXT NOT NULL,
  clicks       INTEGER NOT NULL DEFAULT 1,
  first_at     INTEGER NOT NULL,
  last_at      INTEGER NOT NULL,
  PRIMARY KEY (message_id, url)
) WITHOUT ROWID;
CREATE INDEX email_link_clicks_campaign ON email_link_clicks(campaign_id, url);

-- The Markdown the body was written in (NULL: written as HTML). `html` is always the rendered
-- body that goes out; the Markdown is kept so the editor opens it again as written.
ALTER TABLE email_campaigns ADD COLUMN markdown TEXT;
