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
  const prices = pricesRepo(db);
  const list = db.prepare('SELECT id, name, created_at FROM workspaces ORDER BY created_at, id');
  const get = db.prepare('SELECT id, name, created_at FROM workspaces WHERE id = ?');
  const first = db.prepare(
    'SELECT id, name, created_at FROM workspaces ORDER BY created_at, id LIMIT 1',
  );
  const activeAccount = db.prepare(
    'SELECT * FROM business_accounts WHERE workspace_id = ? AND active = 1',
  );
  return {
    create: db.transaction((ws: WorkspaceRow, accountId: string, accountName: string) => {
      insertWorkspace.run(ws);
      insertAccount.run({
        id: accountId,
        workspace_id: ws.id,
        name: accountName,
        created_at: ws.created_at,
      });
      insertWallet.run(ws.id, ws.created_at);
      prices.seed(ws.id);
    }),
    list: () => list.all() as WorkspaceRow[],
    get: (id: string) => get.get(id) as WorkspaceRow | undefined,
    first: () => first.get() as WorkspaceRow | undefined,
    activeAccount: (workspaceId: string) =>
      activeAccount.get(workspaceId) as BusinessAccountRow | undefined,
  };
}
