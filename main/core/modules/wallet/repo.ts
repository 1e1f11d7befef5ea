import type { Database as Db } from 'better-sqlite3';
import type { LedgerEntry } from '../../../../shared/schemas/wallet.ts';

export interface WalletRow {
  workspace_id: string;
  balance_micros: number;
  currency: string;
  low_balance_threshold_micros: number;
  updated_at: number;
}

export interface LedgerRow {
  seq: number;
  id: string;
  workspace_id: string;
  type: LedgerEntry['type'];
  amount_micros: number;
  balance_after_micros: number;
  description: string;
  reference: string | null;
  created_at: number;
}

export function walletRepo(db: Db) {
  const get = db.prepare('SELECT * FROM wallets WHERE workspace_id = ?');
  // A debit only applies while the balance covers it: the check and the write are one statement.
  const apply = db.prepare(
    `UPDATE wallets SET balance_micros = balance_micros + @amount, updated_at = @at
     WHERE workspace_id = @workspace_id AND balance_micros + @amount >= 0
     RETURNING balance_micros`,
  );
  const insertEntry = db.prepare(
    `INSERT INTO wallet_ledger
       (id, workspace_id, type, amount_micros, balance_after_micros, description, reference, created_at)
     VALUES (@id, @workspace_id, @type, @amount_micros, @balance_after_micros, @description, @reference, @created_at)
     RETURNING *`,
  );
  const list = db.prepare(
    `SELECT * FROM wallet_ledger WHERE workspace_id = @workspace_id AND (@cursor IS NULL OR seq < @cursor)
     ORDER BY seq DESC LIMIT @limit`,
  );
  const ledgerSum = db
    .prepare('SELECT coalesce(sum(amount_micros), 0) FROM wallet_ledger WHERE workspace_id = ?')
    .pluck();
  return {
    get: (workspaceId: string) => get.get(workspaceId) as WalletRow | undefined,
    apply: (workspaceId: string, amount: number, at: number) =>
      apply.get({ workspace_id: workspaceId, amount, at }) as
        { balance_micros: number } | undefined,
    insertEntry: (row: Omit<LedgerRow, 'seq'>) => insertEntry.get(row) as LedgerRow,
    list: (workspaceId: string, cursor: number | null, limit: number) =>
      list.all({ workspace_id: workspaceId, cursor, limit }) as LedgerRow[],
    ledgerSum: (workspaceId: string) => ledgerSum.get(workspaceId) as number,
  };
}

/** Per-message prices of a workspace, by category (micros); a missing row means the default. */
export function priceRows(db: Db) {
  const get = db
    .prepare('SELECT price_micros FROM prices WHERE workspace_id = ? AND category = ?')
    .pluck();
  const all = db.prepare('SELECT category, price_micros FROM prices WHERE workspace_id = ?');
  const upsert = db.prepare(
    `INSERT INTO prices (workspace_id, category, price_micros) VALUES (?, ?, ?)
     ON CONFLICT (workspace_id, category) DO UPDATE SET price_micros = excluded.price_micros`,
  );
  return {
    get: (workspaceId: string, category: string) =>
      get.get(workspaceId, category) as number | undefined,
    all: (workspaceId: string) =>
      all.all(workspaceId) as { category: string; price_micros: number }[],
    upsert: (workspaceId: string, category: string, micros: number | undefined) =>
      upsert.run(workspaceId, category, micros),
  };
}
