-- The inbox's unread filter (`GET /conversations?unread=true`). Partial indexes hold only the
-- conversations with unread messages (usually a small share of the inbox), in the same order as
-- the list, so a page and its counts read only those rows, with or without an assignee.
CREATE INDEX conversations_unread_activity ON conversations(workspace_id, environment, last_message_at DESC, id DESC)
  WHERE unread_count > 0;
CREATE INDEX conversations_unread_status ON conversations(workspace_id, environment, status, last_message_at DESC, id DESC)
  WHERE unread_count > 0;
CREATE INDEX conversations_unread_assignee_status ON conversations(workspace_id, environment, assignee_id, status, last_message_at DESC, id DESC)
  WHERE unread_count > 0;
