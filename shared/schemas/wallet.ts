import { z } from 'zod';
import { isoDate } from './common.ts';

export const walletSchema = z.object({
  workspaceId: z.string(),
  balanceMicros: z.number().int(),
  currency: z.string(),
  lowBalanceThresholdMicros: z.number().int(),
  updatedAt: isoDate,
});
export type Wallet = z.infer<typeof walletSchema>;

export const ledgerEntrySchema = z.object({
  id: z.string(),
  type: z.enum(['topup', 'charge', 'refund', 'adjustment']),
  amountMicros: z.number().int().describe('signed: credits positive, debits negative'),
  balanceAfterMicros: z.number().int(),
  description: z.string(),
  reference: z.string().nullable(),
  createdAt: isoDate,
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;

/** At most 1,000,000 units in one top-up. */
export const MAX_TOPUP_MICROS = 1_000_000 * 1_000_000;

export const topupBody = z.object({
  amountMicros: z
    .number()
    .int('amountMicros must be an integer number of micros')
    .positive('amountMicros must be positive')
    .max(MAX_TOPUP_MICROS, 'at most 1,000,000.00 per top-up'),
  description: z.string().trim().max(200).optional(),
});
export type TopupBody = z.infer<typeof topupBody>;
