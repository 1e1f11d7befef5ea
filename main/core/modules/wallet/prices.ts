import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import { priceRows } from './repo.ts';

export const PRICE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION', 'SERVICE'] as const;
export type PriceCategory = (typeof PRICE_CATEGORIES)[number];

/** Per-message prices in micros; service messages inside the window are free by default. */
export const DEFAULT_PRICES: Record<PriceCategory, number> = {
  MARKETING: 25_000,
  UTILITY: 5_000,
  AUTHENTICATION: 4_000,
  SERVICE: 0,
};

export function pricesRepo(db: Db) {
  const rows = priceRows(db);
  const repo = {
    price(workspaceId: string, category: PriceCategory): number {
      const p = rows.get(workspaceId, category);
      return p ?? DEFAULT_PRICES[category];
    },
    table(workspaceId: string): Record<PriceCategory, number> {
      const out = { ...DEFAULT_PRICES };
      for (const r of rows.all(workspaceId)) {
        out[r.category as PriceCategory] = r.price_micros;
      }
      return out;
    },
    set(workspaceId: string, prices: Partial<Record<PriceCategory, number>>) {
      db.transaction(() => {
        for (const [c, p] of Object.entries(prices)) {
          if (!Number.isSafeInteger(p) || p! < 0) {
            throw new ApiError(
              'validation_error',
              `${c} must be a non-negative integer of micros`,
              { param: c },
            );
          }
          rows.upsert(workspaceId, c, p);
        }
      })();
      return repo.table(workspaceId);
    },
    seed(workspaceId: string) {
      for (const [c, p] of Object.entries(DEFAULT_PRICES)) rows.upsert(workspaceId, c, p);
    },
  };
  return repo;
}
export type PricesRepo = ReturnType<typeof pricesRepo>;
