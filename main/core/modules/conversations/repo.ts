import type { Database as Db } from 'better-sqlite3';

export interface ConversationRow {
  id: string;
  workspace_id: string;
  environment: string;
  contact_id: string;
  business_account_id: string;
  status: 'open' | 'pending' | 'snoozed' | 'resolved';
  assignee_id: string | null;
  labels: string;
  snoozed_until: number | null;
  last_message_at: number;
  last_inbound_at: number | null;
  unread_count: number;
  created_at: number;
  updated_at: number;
}

export function conversationsRepo(db: Db) {
  const byContact = db.prepare(
    'SELECT * FROM conversations WHERE contact_id = ? AND business_account_id = ?',
  );
  const insert = db.prepare(
    `INSERT INTO conversations (id, workspace_id, environment, contact_id, business_account_id, status,
       last_message_at, last_inbound_at, created_at, updated_at)
     VALUES (@id, @workspace_id, @environment, @contact_id, @business_account_id, 'open',
       @last_message_at, NULL, @created_at, @updated_at)`,
  );
  const touchOutbound = db.prepare(
    'UPDATE conversations SET last_message_at = max(last_message_at, ?), updated_at = ? WHERE id = ?',
  );
  const touchInbound = db.prepare(
    `UPDATE conversations SET last_message_at = max(last_message_at, @at),
       last_inbound_at = max(coalesce(last_inbound_at, 0), @at), unread_count = unread_count + 1,
       status = @status, snoozed_until = @snoozed_until, updated_at = @now WHERE id = @id`,
  );
  return {
    byContact: (contactId: string, accountId: string) =>
      byContact.get(contactId, accountId) as ConversationRow | undefined,
    insert: (
      r: Pick<
        ConversationRow,
        | 'id'
        | 'workspace_id'
        | 'environment'
        | 'contact_id'
        | 'business_account_id'
        | 'last_message_at'
        | 'created_at'
        | 'updated_at'
      >,
    ) => insert.run(r),
    touchOutbound: (id: string, at: number, now: number) => touchOutbound.run(at, now, id),
    touchInbound: (r: {
      id: string;
      at: number;
      now: number;
      status: string;
      snoozed_until: number | null;
    }) => touchInbound.run(r),
  };
}
export type ConversationsRepo = ReturnType<typeof conversationsRepo>;
