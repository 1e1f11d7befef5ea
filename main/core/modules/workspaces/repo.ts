import type { Database as Db } from 'better-sqlite3';
import { pricesRepo } from '../wallet/prices.ts';

export interface WorkspaceRow {
  id: string;
  name: string;
  created_at: number;
}

export interface BusinessAccountRow {
  id: string;
  workspace_id: string;
  name: string;
  active: number;
  messaging_tier: number | null;
  throughput_mps: number;
  created_at: number;
}

export function workspacesRepo(db: Db) {
  const insertWorkspace = db.prepare(
    'INSERT INTO workspaces (id, name, created_at) VALUES (@id, @name, @created_at)',
  );
  const insertAccount = db.prepare(
    `INSERT INTO business_accounts (id, workspace_id, name, active, created_at)
     VALUES (@id, @workspace_id, @name, 1, @created_at)`,
  );
  const insertWallet = db.prepare('INSERT INTO wallets (workspace_id, updated_at) VALUES (?, ?)');
  // Every workspace has its one owner (design.md §6): the desktop's local session acts as them.
  const insertOwner = db.prepare(
    `INSERT INTO members (id, workspace_id, name, email, role, rights, password_hash, active, created_at, updated_at)
     VALUES (?, ?, 'Owner', NULL, 'owner', '[]', NULL, 1, ?, ?)`,
  );
  const prices = pricesRepo(db);
  const list = db.prepare('SELECT id, name, created_at FROM workspaces ORDER BY created_at, id');
  const get = db.prepare('SELECT id, name, created_at FROM workspaces WHERE id = ?');
  const first = db.prepare(
    'SELECT id, name, created_at FROM workspaces ORDER BY created_at, id LIMIT 1',
  );
  const activeAccount = db.prepare(
    'SELECT * FROM business_accounts WHERE workspace_id = ? AND active = 1',
  );
  // What the connected provider reported for a live account (Settings → Channel's check).
  const providerLimits = db.prepare(
    `SELECT provider_tier, provider_mps, checked_at IS NOT NULL AND check_ok = 1 AS tier_known
     FROM channel_settings WHERE business_account_id = ? AND provider = 'cloud_api'`,
  );
  const readSettings = db.prepare(
    `SELECT w.name, ba.name AS business_account_name, w.allow_private_webhooks,
       wa.low_balance_threshold_micros, w.auto_assign, w.assign_on_first_reply, w.public_url
     FROM workspaces w
     JOIN wallets wa ON wa.workspace_id = w.id
     JOIN business_accounts ba ON ba.workspace_id = w.id AND ba.active = 1
     WHERE w.id = ?`,
  );
  const setName = db.prepare('UPDATE workspaces SET name = ? WHERE id = ?');
  const setAccountName = db.prepare(
    'UPDATE business_accounts SET name = ? WHERE workspace_id = ? AND active = 1',
  );
  const setAssignment = db.prepare(
    `UPDATE workspaces SET auto_assign = coalesce(@autoAssign, auto_assign),
       assign_on_first_reply = coalesce(@assignOnFirstReply, assign_on_first_reply) WHERE id = @id`,
  );
  const setPrivate = db.prepare('UPDATE workspaces SET allow_private_webhooks = ? WHERE id = ?');
  const setPublicUrl = db.prepare('UPDATE workspaces SET public_url = ? WHERE id = ?');
  const setThreshold = db.prepare(
    'UPDATE wallets SET low_balance_threshold_micros = ? WHERE workspace_id = ?',
  );
  return {
    create: db.transaction(
      (ws: WorkspaceRow, accountId: string, accountName: string, ownerId: string) => {
        insertWorkspace.run(ws);
        insertOwner.run(ownerId, ws.id, ws.created_at, ws.created_at);
        insertAccount.run({
          id: accountId,
          workspace_id: ws.id,
          name: accountName,
          created_at: ws.created_at,
        });
        insertWallet.run(ws.id, ws.created_at);
        prices.seed(ws.id);
      },
    ),
    list: () => list.all() as WorkspaceRow[],
    get: (id: string) => get.get(id) as WorkspaceRow | undefined,
    first: () => first.get() as WorkspaceRow | undefined,
    activeAccount: (workspaceId: string) =>
      activeAccount.get(workspaceId) as BusinessAccountRow | undefined,
    providerLimits: (accountId: string) =>
      providerLimits.get(accountId) as
        | { provider_tier: number | null; provider_mps: number | null; tier_known: number }
        | undefined,
    settings: (workspaceId: string) =>
      readSettings.get(workspaceId) as
        | {
            name: string;
            business_account_name: string;
            allow_private_webhooks: number;
            low_balance_threshold_micros: number;
            auto_assign: number;
            assign_on_first_reply: number;
            public_url: string | null;
          }
        | undefined,
    /** Assignment's settings (design.md §6); null leaves one as it is. */
    setAssignment: (id: string, autoAssign: 0 | 1 | null, assignOnFirstReply: 0 | 1 | null) =>
      setAssignment.run({ id, autoAssign, assignOnFirstReply }),
    setName: (workspaceId: string, name: string) => setName.run(name, workspaceId),
    /** The active business account's display name. */
    setAccountName: (workspaceId: string, name: string) => setAccountName.run(name, workspaceId),
    setPrivate: (workspaceId: string, allow: 0 | 1) => setPrivate.run(allow, workspaceId),
    setPublicUrl: (workspaceId: string, url: string | null) => setPublicUrl.run(url, workspaceId),
    setThreshold: (workspaceId: string, micros: number) => setThreshold.run(micros, workspaceId),
  };
}
