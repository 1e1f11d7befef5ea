import type { Database as Db } from 'better-sqlite3';
import { MESSAGE_JSON } from './sql.ts';

export interface MessageRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  conversation_id: string;
  contact_id: string;
  phone: string;
  direction: 'outbound' | 'inbound';
  type: 'template' | 'text' | 'list' | 'note';
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
}

export function messagesRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO messages (id, workspace_id, environment, conversation_id, contact_id, phone, direction, type,
       template_name, text, variables, status, sent_by, agent_id, category, cost_micros, channel_message_id, error_code, error_message,
       created_at, sent_at, delivered_at, read_at, failed_at, campaign_id, interactive, mentions)
     VALUES (@id, @workspace_id, @environment, @conversation_id, @contact_id, @phone, @direction, @type,
       @template_name, @text, @variables, @status, @sent_by, @agent_id, @category, @cost_micros, @channel_message_id, @error_code,
       @error_message, @created_at, @sent_at, @delivered_at, @read_at, @failed_at, @campaign_id, @interactive, @mentions)`,
  );
  const byId = db.prepare('SELECT * FROM messages WHERE id = ?');
  const setDispatching = db.prepare('UPDATE messages SET dispatching_at = ? WHERE id = ?');
  const setChannelMessageId = db.prepare('UPDATE messages SET channel_message_id = ? WHERE id = ?');
  const byChannelId = db.prepare('SELECT * FROM messages WHERE channel_message_id = ?');
  const setReaction = db.prepare('UPDATE messages SET reaction = ?, reaction_at = ? WHERE id = ?');
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
    `SELECT * FROM messages WHERE conversation_id = @conversationId AND id > @after
       AND direction = 'outbound' AND (@me IS NULL OR sent_by != 'agent' OR agent_id IS NOT @me)
     ORDER BY id DESC LIMIT 1`,
  );
  const byConversation = page('conversation_id');
  const byContact = page('contact_id');
  return {
    insert: (r: MessageRow) =>
      insert.run({ campaign_id: null, interactive: null, mentions: null, ...r }),
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
