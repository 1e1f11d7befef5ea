import { create } from 'zustand';
import { formatMicros } from '../../../shared/money.ts';
import type { LedgerEntry, Wallet } from '../../../shared/schemas/index.ts';
import { api } from '../api/client.ts';
import { events } from '../api/events.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { createRequestGuard, registerScopedStore } from './scope.ts';
import { notify } from './toasts.ts';

interface WalletState extends PagedListMeta {
  wallet: Wallet | null;
  entries: LedgerEntry[];
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  topup: (amountMicros: number, description?: string) => Promise<LedgerEntry>;
  /**
   * Reads the balance and the low-balance threshold alone (not the ledger): what the top bar's
   * warning needs on every screen. A failure leaves what is shown.
   */
  refreshBalance: () => Promise<void>;
  reset: () => void;
}

const PAGE_SIZE = 25;
const initial = (): Pick<WalletState, 'wallet' | 'entries' | keyof PagedListMeta> => ({
  ...emptyPagedList(),
  wallet: null,
  entries: [],
});

export const useWallet = create<WalletState>()((set, get) => {
  const balanceGuard = createRequestGuard();
  // The balance is read with the first page of the ledger.
  const list = createPagedList({
    set,
    get,
    first: async () => {
      const [wallet, page] = await Promise.all([
        api.wallet.get(),
        api.wallet.transactions({ limit: PAGE_SIZE }),
      ]);
      return { ...page, wallet };
    },
    onFirst: ({ wallet }) => ({ wallet }),
    next: (cursor) => api.wallet.transactions({ limit: PAGE_SIZE, cursor }),
    rows: (s) => s.entries,
    withRows: (entries) => ({ entries }),
  });

  return {
    ...initial(),

    load: list.load,
    loadMore: list.loadMore,

    refreshBalance: async () => {
      const isCurrent = balanceGuard.restart();
      try {
        const wallet = await api.wallet.get();
        if (isCurrent()) set({ wallet });
      } catch {
        // The warning waits for the next read; the Wallet screen says what failed.
      }
    },

    topup: async (amountMicros, description) => {
      const { wallet, entry } = await api.wallet.topup({
        amountMicros,
        ...(description ? { description } : {}),
      });
      set((s) => ({ wallet, entries: [entry, ...s.entries.filter((e) => e.id !== entry.id)] }));
      return entry;
    },

    reset: () => {
      list.invalidate();
      balanceGuard.invalidate();
      set(initial());
    },
  };
});

registerScopedStore(() => useWallet.getState().reset());

events.subscribe('wallet.low_balance', (event) => {
  const balance = event.data.balanceMicros;
  const threshold = event.data.thresholdMicros;
  const currency = useWallet.getState().wallet?.currency ?? 'USD';
  notify(
    'info',
    typeof balance === 'number' && typeof threshold === 'number'
      ? `Wallet balance is low: ${formatMicros(balance, currency)} (below ${formatMicros(threshold, currency)}). Top up so live messages keep sending.`
      : 'Wallet balance is low. Top up so live messages keep sending.',
  );
  // Refresh what is shown (the top bar's warning reads the balance); the ledger loads fresh
  // when its screen opens.
  const { status, load, refreshBalance } = useWallet.getState();
  if (status === 'ready' || status === 'error') void load();
  else void refreshBalance();
});

export const selectIsLowBalance = (s: WalletState): boolean =>
  s.wallet !== null && s.wallet.balanceMicros < s.wallet.lowBalanceThresholdMicros;
