import type { Database as Db } from 'better-sqlite3';
import { MEDIA_FACTS_JSON, MESSAGE_JSON } from './sql.ts';

export interface MessageRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  conversation_id: string;
  contact_id: string;
  phone: string;
  direction: 'outbound' | 'inbound';
  type: 'template' | 'text' | 'list' | 'note' | 'media' | 'location' | 'contacts' | 'reaction';
  template_name: string | null;
  text: string;
  variables: string | null;
  status: 'accepted' | 'sent' | 'delivered' | 'read' | 'failed' | 'received' | 'note';
  sent_by: 'api' | 'agent' | 'bot' | 'contact';
  agent_id: string | null;
  category: string | null;
  cost_micros: number;
  channel_message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  sent_at: number | null;
  delivered_at: number | null;
  read_at: number | null;
  failed_at: number | null;
  /** Handed to a remote provider and not yet answered (README "Connecting WhatsApp"); absent on new rows. */
  dispatching_at?: number | null;
  /** The campaign that sent it, if any. */
  campaign_id?: string | null;
  /** Outbound list: the list as sent (JSON); inbound pick: {listId, rowId, title}. */
  interactive?: string | null;
  /** The customer's reaction to this message (an emoji), and when; absent on new rows. */
  reaction?: string | null;
  reaction_at?: number | null;
  /** A private note's mentioned members (JSON array of member ids); null when it names nobody. */
  mentions?: string | null;
  /** A media message's file (a `media` row) and the file name the customer sees. */
  media_id?: string | null;
  file_name?: string | null;
  /** A location (JSON object) or shared contact cards (JSON array). */
  content?: string | null;
  /** The message this one quotes or reacts to: our id, and/or the provider's. */
  context_message_id?: string | null;
  context_channel_id?: string | null;
  /** The business's reaction to this message (JSON: emoji, at, agentId, messageId). */
  agent_reaction?: string | null;
  /** Read with the row (not a column): the media record's facts as JSON (MEDIA_FACTS_JSON). */
  media_json?: string | null;
}

/** Columns a new row may leave out (they default to null). */
const OPTIONAL_COLUMNS = {
  campaign_id: null,
  interactive: null,
  mentions: null,
  media_id: null,
  file_name: null,
  content: null,
  context_message_id: null,
  context_channel_id: null,
};

export function messagesRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO messages (id, workspace_id, environment, conversation_id, contact_id, phone, direction, type,
       template_name, text, variables, status, sent_by, agent_id, category, cost_micros, channel_message_id, error_code, error_message,
       created_at, sent_at, delivered_at, read_at, failed_at, campaign_id, interactive, mentions,
       media_id, file_name, content, context_message_id, context_channel_id)
     VALUES (@id, @workspace_id, @environment, @conversation_id, @contact_id, @phone, @direction, @type,
       @template_name, @text, @variables, @status, @sent_by, @agent_id, @category, @cost_micros, @channel_message_id, @error_code,
       @error_message, @created_at, @sent_at, @delivered_at, @read_at, @failed_at, @campaign_id, @interactive, @mentions,
       @media_id, @file_name, @content, @context_message_id, @context_channel_id)`,
  );
  // A row as the module reads it: with its media's facts.
  const ROW = `SELECT m.*, ${MEDIA_FACTS_JSON} AS media_json FROM messages m`;
  const byId = db.prepare(`${ROW} WHERE m.id = ?`);
  const setDispatching = db.prepare('UPDATE messages SET dispatching_at = ? WHERE id = ?');
  const setChannelMessageId = db.prepare('UPDATE messages SET channel_message_id = ? WHERE id = ?');
  const byChannelId = db.prepare(`${ROW} WHERE m.channel_message_id = ?`);
  const setReaction = db.prepare('UPDATE messages SET reaction = ?, reaction_at = ? WHERE id = ?');
  const setAgentReaction = db.prepare('UPDATE messages SET agent_reaction = ? WHERE id = ?');
  // A failed reaction send takes its emoji off the message, unless a newer one replaced it.
  const clearAgentReaction = db.prepare(
    `UPDATE messages SET agent_reaction = NULL
     WHERE id = ? AND json_extract(agent_reaction, '$.messageId') = ?`,
  );
  const byMedia = db.prepare(`${ROW} WHERE m.media_id = ?`);
  const sentInteractive = db
    .prepare(
      `SELECT interactive FROM messages WHERE channel_message_id = ? AND direction = 'outbound'`,
    )
    .pluck();
  const setStatus = db.prepare(
    `UPDATE messages SET status = @status, sent_at = @sent_at, delivered_at = @delivered_at, read_at = @read_at,
       failed_at = @failed_at, error_code = @error_code, error_message = @error_message WHERE id = @id`,
  );
  const page = (column: 'conversation_id' | 'contact_id') =>
    db
      .prepare(
        `SELECT m.id, ${MESSAGE_JSON} FROM messages m
         WHERE m.${column} = @key AND m.workspace_id = @workspaceId AND m.environment = @environment
           AND (@cursor IS NULL OR m.id < @cursor)
         ORDER BY m.id DESC LIMIT @limit`,
      )
      .raw();
  // The newest outbound message or note after `after` that is not the member's own (@me null:
  // every one counts), by the conversation's (conversation_id, id) index.
  const newerOutbound = db.prepare(
    `${ROW} WHERE m.conversation_id = @conversationId AND m.id > @after
       AND m.direction = 'outbound' AND (@me IS NULL OR m.sent_by != 'agent' OR m.agent_id IS NOT @me)
     ORDER BY m.id DESC LIMIT 1`,
  );
  const byConversation = page('conversation_id');
  const byContact = page('contact_id');
  return {
    insert: (r: MessageRow) => {
      const { media_json: _joined, ...columns } = r;
      insert.run({ ...OPTIONAL_COLUMNS, ...columns });
    },
    byId: (id: string) => byId.get(id) as MessageRow | undefined,
    byChannelId: (id: string) => byChannelId.get(id) as MessageRow | undefined,
    newerOutbound: (conversationId: string, after: string, me: string | null) =>
      newerOutbound.get({ conversationId, after, me }) as MessageRow | undefined,
    /** An outbound message's interactive part (JSON) by the channel's id; null or undefined if none. */
    sentInteractive: (channelMessageId: string) =>
      sentInteractive.get(channelMessageId) as string | null | undefined,
    setStatus: (r: MessageRow) => setStatus.run(r),
    setDispatching: (id: string, at: number | null) => setDispatching.run(at, id),
    setChannelMessageId: (id: string, channelId: string) => setChannelMessageId.run(channelId, id),
    setReaction: (id: string, emoji: string | null, at: number) =>
      setReaction.run(emoji, emoji === null ? null : at, id),
    setAgentReaction: (id: string, json: string | null) => setAgentReaction.run(json, id),
    clearAgentReaction: (id: string, reactionMessageId: string) =>
      clearAgentReaction.run(id, reactionMessageId).changes > 0,
    /** The messages that carry a media record (a file sent twice is one record each time). */
    byMedia: (mediaId: string) => byMedia.all(mediaId) as MessageRow[],
    page: (
      by: 'conversation' | 'contact',
      p: {
        key: string;
        workspaceId: string;
        environment: string;
        cursor: string | null;
        limit: number;
      },
    ) => (by === 'conversation' ? byConversation : byContact).all(p) as [string, string][],
  };
}
export type MessagesRepo = ReturnType<typeof messagesRepo>;
