import { sqlIso } from '../../db/sql.ts';

// The messages module's SQL vocabulary for other modules' repos (a conversation carries its last
// message): only repo files import it; the statements themselves stay in ./repo.ts.

/** A message as its API JSON, built by SQLite for list pages; equal to `toMessage` (tested). */
export const MESSAGE_JSON = `json_object('id', m.id, 'conversationId', m.conversation_id, 'contactId', m.contact_id,
  'phone', m.phone, 'direction', m.direction, 'type', m.type, 'templateName', m.template_name, 'text', m.text,
  'variables', json(m.variables), 'status', m.status, 'sentBy', m.sent_by, 'agentId', m.agent_id, 'environment', m.environment, 'category', m.category,
  'costMicros', m.cost_micros, 'channelMessageId', m.channel_message_id,
  'error', CASE WHEN m.error_code IS NULL THEN NULL ELSE json_object('code', m.error_code, 'message', m.error_message) END,
  'createdAt', ${sqlIso('m.created_at')}, 'sentAt', ${sqlIso('m.sent_at')}, 'deliveredAt', ${sqlIso('m.delivered_at')},
  'readAt', ${sqlIso('m.read_at')}, 'failedAt', ${sqlIso('m.failed_at')},
  'list', CASE WHEN m.direction = 'outbound' THEN json(m.interactive) END,
  'listReply', CASE WHEN m.direction = 'inbound' THEN json(m.interactive) END,
  'reaction', CASE WHEN m.reaction IS NOT NULL THEN json_object('emoji', m.reaction, 'at', ${sqlIso('m.reaction_at')}) END,
  'mentions', json(coalesce(m.mentions, '[]')))`;
