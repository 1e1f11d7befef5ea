import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import type { LedgerEntry, Wallet } from '../../../../shared/schemas/wallet.ts';
import { MAX_TOPUP_MICROS } from '../../../../shared/schemas/wallet.ts';
import { decodeNumericCursor, toPage } from '../../http/pagination.ts';
import type { Clock, IdGenerator } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import type { LedgerRow, WalletRow } from './repo.ts';
import { walletRepo } from './repo.ts';

const toWallet = (r: WalletRow): Wallet => ({
  workspaceId: r.workspace_id,
  balanceMicros: r.balance_micros,
  currency: r.currency,
  lowBalanceThresholdMicros: r.low_balance_threshold_micros,
  updatedAt: iso(r.updated_at),
});

const toEntry = (r: LedgerRow): LedgerEntry => ({
  id: r.id,
  type: r.type,
  amountMicros: r.amount_micros,
  balanceAfterMicros: r.balance_after_micros,
  description: r.description,
  reference: r.reference,
  createdAt: iso(r.created_at),
});

export interface EntryInput {
  type: LedgerEntry['type'];
  amountMicros: number;
  description: string;
  reference?: string | null;
}

/**
 * One wallet per workspace (README "API"): a balance plus an append-only ledger in micros.
 * The balance moves only together with a ledger entry, in one transaction, so the balance
 * always equals the ledger sum.
 */
export function walletService(db: Db, clock: Clock, ids: IdGenerator) {
  const repo = walletRepo(db);

  /** Applies one entry; must run inside a transaction. Debits never overdraw: null if they would. */
  function applyEntry(workspaceId: string, input: EntryInput): LedgerEntry | null {
    if (!Number.isSafeInteger(input.amountMicros)) throw new Error('amount must be integer micros');
    const at = clock.now();
    const updated = repo.apply(workspaceId, input.amountMicros, at);
    if (!updated) {
      if (!repo.get(workspaceId)) throw new ApiError('not_found', `no wallet for ${workspaceId}`);
      return null;
    }
    const row = repo.insertEntry({
      id: ids('txn'),
      workspace_id: workspaceId,
      type: input.type,
      amount_micros: input.amountMicros,
      balance_after_micros: updated.balance_micros,
      description: input.description,
      reference: input.reference ?? null,
      created_at: at,
    });
    return toEntry(row);
  }

  const service = {
    get(workspaceId: string): Wallet {
      const row = repo.get(workspaceId);
      if (!row) throw new ApiError('not_found', `no wallet for workspace ${workspaceId}`);
      return toWallet(row);
    },

    topup(workspaceId: string, amountMicros: number, description?: string) {
      if (
        !Number.isSafeInteger(amountMicros) ||
        amountMicros <= 0 ||
        amountMicros > MAX_TOPUP_MICROS
      ) {
        throw new ApiError('validation_error', 'amount must be positive and at most 1,000,000.00', {
          param: 'amountMicros',
        });
      }
      return db
        .transaction(() => {
          const entry = applyEntry(workspaceId, {
            type: 'topup',
            amountMicros,
            description: description?.trim() || 'Top-up',
          })!;
          return { wallet: service.get(workspaceId), entry };
        })
        .immediate();
    },

    /** For runners that charge sends: call inside the transaction that stores the message. */
    applyEntry,

    transactions(workspaceId: string, limit: number, cursor?: string) {
      const after = cursor ? decodeNumericCursor(cursor) : null;
      service.get(workspaceId);
      return toPage(repo.list(workspaceId, after, limit + 1), limit, toEntry, (r) => r.seq);
    },

    ledgerSum: (workspaceId: string) => repo.ledgerSum(workspaceId),
  };
  return service;
}
export type WalletService = ReturnType<typeof walletService>;
