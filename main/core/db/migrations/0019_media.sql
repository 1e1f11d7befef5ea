-- Media, reactions and quotes (design.md §5): photos, voice notes, videos, documents and
-- stickers are kept as what they are. A `media` row is one file of a scope (received, or uploaded
-- to be sent); the bytes live content-addressed in the data dir (`media/<sha256>`), so a file
-- two messages share is stored once and removed only when no row that is not expired needs it.
CREATE TABLE media (
  id                    TEXT PRIMARY KEY,
  workspace_id          TEXT NOT NULL,
  environment           TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  kind                  TEXT NOT NULL CHECK (kind IN ('image', 'audio', 'video', 'document', 'sticker')),
  origin                TEXT NOT NULL CHECK (origin IN ('cloud_api', 'simulator', 'upload')),
  status                TEXT NOT NULL CHECK (status IN ('pending', 'ready', 'failed', 'expired')),
  mime_type             TEXT,          -- sniffed once stored; declared until then
  size                  INTEGER,
  sha256                TEXT,          -- hex, of the stored file
  file_name             TEXT,
  voice                 INTEGER NOT NULL DEFAULT 0,
  error                 TEXT,
  -- The provider's id: where an inbound file is fetched from (with the account's token), or
  -- what an upload was given by Meta to send it by (valid 30 days from provider_uploaded_at).
  provider_media_id     TEXT,
  provider_uploaded_at  INTEGER,
  business_account_id   TEXT,
  declared_mime_type    TEXT,
  declared_sha256       TEXT,
  -- The simulator's bundled sample this file is (test keys), fetched like Meta's would be.
  sample                TEXT,
  created_at            INTEGER NOT NULL,
  updated_at            INTEGER NOT NULL
);
CREATE INDEX media_scope ON media(workspace_id, environment, id);
CREATE INDEX media_sha256 ON media(sha256) WHERE sha256 IS NOT NULL AND status != 'expired';
CREATE INDEX media_age ON media(created_at) WHERE status != 'expired';

-- Messages take new kinds (media, location, contacts, reaction), so their type CHECK changes:
-- SQLite rebuilds the table for that (the documented create, copy, drop, rename; foreign keys
-- are off while migrations run and checked before they commit). Same rowids, same indexes and
-- triggers; the full-text index is rebuilt to cover file names too.
CREATE TABLE messages_rebuilt (
  id                  TEXT PRIMARY KEY,
  workspace_id        TEXT NOT NULL,
  environment         TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  conversation_id     TEXT NOT NULL REFERENCES conversations(id),
  contact_id          TEXT NOT NULL REFERENCES contacts(id),
  phone               TEXT NOT NULL,
  direction           TEXT NOT NULL CHECK (direction IN ('outbound', 'inbound')),
  type                TEXT NOT NULL CHECK (type IN ('template', 'text', 'list', 'note', 'media', 'location', 'contacts', 'reaction')),
  template_name       TEXT,
  text                TEXT NOT NULL,
  variables           TEXT,
  status              TEXT NOT NULL CHECK (status IN ('accepted', 'sent', 'delivered', 'read', 'failed', 'received', 'note')),
  sent_by             TEXT NOT NULL CHECK (sent_by IN ('api', 'agent', 'bot', 'contact')),
  agent_id            TEXT,
  category            TEXT,
  cost_micros         INTEGER NOT NULL DEFAULT 0,
  channel_message_id  TEXT,
  error_code          TEXT,
  error_message       TEXT,
  created_at          INTEGER NOT NULL,
  sent_at             INTEGER,
  delivered_at        INTEGER,
  read_at             INTEGER,
  failed_at           INTEGER,
  dispatching_at      INTEGER,
  campaign_id         TEXT,
  interactive         TEXT,
  reaction            TEXT,
  reaction_at         INTEGER,
  mentions            TEXT,
  -- A media message's file, and the name the customer sees (searchable with the caption).
  media_id            TEXT REFERENCES media(id),
  file_name           TEXT,
  -- A location (JSON object) or shared contact cards (JSON array).
  content             TEXT,
  -- The message this one quotes or reacts to: ours, and/or the provider's id for it.
  context_message_id  TEXT,
  context_channel_id  TEXT,
  -- The business's reaction to this message (JSON: emoji, at, agentId, messageId).
  agent_reaction      TEXT
);
INSERT INTO messages_rebuilt (rowid, id, workspace_id, environment, conversation_id, contact_id,
    phone, direction, type, template_name, text, variables, status, sent_by, agent_id, category,
    cost_micros, channel_message_id, error_code, error_message, created_at, sent_at,
    delivered_at, read_at, failed_at, dispatching_at, campaign_id, interactive, reaction,
    reaction_at, mentions)
  SELECT rowid, id, workspace_id, environment, conversation_id, contact_id, phone, direction,
    type, template_name, text, variables, status, sent_by, agent_id, category, cost_micros,
    channel_message_id, error_code, error_message, created_at, sent_at, delivered_at, read_at,
    failed_at, dispatching_at, campaign_id, interactive, reaction, reaction_at, mentions
  FROM messages;
DROP TABLE messages;
PRAGMA legacy_alter_table = ON;
ALTER TABLE messages_rebuilt RENAME TO messages;
PRAGMA legacy_alter_table = OFF;

CREATE INDEX messages_conversation ON messages(conversation_id, id);
CREATE INDEX messages_contact ON messages(contact_id, id);
CREATE UNIQUE INDEX messages_channel_id ON messages(channel_message_id) WHERE channel_message_id IS NOT NULL;
CREATE INDEX messages_media ON messages(media_id) WHERE media_id IS NOT NULL;

CREATE TRIGGER conversations_version_message AFTER INSERT ON messages BEGIN
  UPDATE conversations SET version = version + 1 WHERE id = new.conversation_id;
END;
CREATE TRIGGER conversations_version_status AFTER UPDATE OF status ON messages WHEN old.status IS NOT new.status BEGIN
  UPDATE conversations SET version = version + 1 WHERE id = new.conversation_id;
END;
-- A reaction shows on its message, in the conversation's last message too.
CREATE TRIGGER conversations_version_reaction AFTER UPDATE OF reaction, agent_reaction ON messages BEGIN
  UPDATE conversations SET version = version + 1 WHERE id = new.conversation_id;
END;
-- A message's JSON carries its media's status (fetched, failed, expired).
CREATE TRIGGER conversations_version_media AFTER UPDATE OF status ON media WHEN old.status IS NOT new.status BEGIN
  UPDATE conversations SET version = version + 1
    WHERE id IN (SELECT conversation_id FROM messages WHERE media_id = new.id);
END;
CREATE TRIGGER campaign_recipient_follows_message AFTER UPDATE OF status ON messages
WHEN new.campaign_id IS NOT NULL AND old.status IS NOT new.status
  AND new.status IN ('delivered', 'read', 'failed') BEGIN
  UPDATE campaign_recipients SET
    status = new.status,
    error_code = CASE WHEN new.status = 'failed' THEN new.error_code ELSE error_code END,
    error_message = CASE WHEN new.status = 'failed' THEN new.error_message ELSE error_message END,
    updated_at = coalesce(new.failed_at, new.read_at, new.delivered_at, updated_at)
  WHERE campaign_id = new.campaign_id AND contact_id = new.contact_id AND message_id = new.id
    AND status IN ('sent', 'delivered');
END;

-- Search finds a media message by its caption (the text) and its file name.
DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5(text, file_name, content = 'messages', content_rowid = 'rowid');
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, text, file_name) VALUES (new.rowid, new.text, new.file_name);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, text, file_name) VALUES ('delete', old.rowid, old.text, old.file_name);
END;
