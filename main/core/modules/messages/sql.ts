import { sqlIso } from '../../db/sql.ts';

// The messages module's SQL vocabulary for other modules' repos (a conversation carries its last
// message): only repo files import it; the statements themselves stay in ./repo.ts.

/**
 * A media record's facts as a message row carries them (`media_json`, read with the row;
 * `toMessage` adds the message's caption and file name): by the media's primary key.
 */
export const MEDIA_FACTS_JSON = `(SELECT json_object('id', md.id, 'type', md.kind, 'mimeType', md.mime_type,
  'size', md.size, 'sha256', md.sha256, 'fileName', md.file_name, 'voice', md.voice, 'durationMs', md.duration_ms, 'status', md.status,
  'error', md.error, 'providerId', md.provider_media_id, 'providerUploadedAt', md.provider_uploaded_at)
  FROM media md WHERE md.id = m.media_id)`;

/** A message as its API JSON, built by SQLite for list pages; equal to `toMessage` (tested). */
export const MESSAGE_JSON = `json_object('id', m.id, 'conversationId', m.conversation_id, 'contactId', m.contact_id,
  'phone', m.phone, 'direction', m.direction, 'type', m.type, 'templateName', m.template_name, 'text', m.text,
  'variables', json(m.variables), 'status', m.status, 'sentBy', m.sent_by, 'agentId', m.agent_id, 'campaignId', m.campaign_id, 'environment', m.environment, 'category', m.category,
  'costMicros', m.cost_micros, 'channelMessageId', m.channel_message_id,
  'error', CASE WHEN m.error_code IS NULL THEN NULL ELSE json_object('code', m.error_code, 'message', m.error_message) END,
  'createdAt', ${sqlIso('m.created_at')}, 'sentAt', ${sqlIso('m.sent_at')}, 'deliveredAt', ${sqlIso('m.delivered_at')},
  'readAt', ${sqlIso('m.read_at')}, 'failedAt', ${sqlIso('m.failed_at')},
  'list', CASE WHEN m.direction = 'outbound' THEN json(m.interactive) END,
  'listReply', CASE WHEN m.direction = 'inbound' THEN json(m.interactive) END,
  'reaction', CASE WHEN m.reaction IS NOT NULL THEN json_object('emoji', m.reaction, 'at', ${sqlIso('m.reaction_at')}) END,
  'mentions', json(coalesce(m.mentions, '[]')),
  'media', json((SELECT json_object('id', md.id, 'type', md.kind, 'mimeType', md.mime_type, 'size', md.size,
    'sha256', md.sha256, 'caption', nullif(m.text, ''), 'fileName', coalesce(m.file_name, md.file_name),
    'voice', json(CASE WHEN md.voice = 1 THEN 'true' ELSE 'false' END), 'durationMs', md.duration_ms,
    'status', md.status, 'error', md.error)
    FROM media md WHERE md.id = m.media_id)),
  'location', CASE WHEN m.type = 'location' THEN json(m.content) END,
  'contacts', CASE WHEN m.type = 'contacts' THEN json(m.content) END,
  'context', CASE WHEN m.context_message_id IS NOT NULL OR m.context_channel_id IS NOT NULL
    THEN json_object('messageId', m.context_message_id, 'channelMessageId', m.context_channel_id) END,
  'agentReaction', json(m.agent_reaction))`;
