import { create } from 'zustand';
import { formatMicros } from '../../../shared/money.ts';
import type { LedgerEntry, Wallet } from '../../../shared/schemas/index.ts';
import { api } from '../api/client.ts';
import { events } from '../api/events.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';
import { notify } from './toasts.ts';

interface WalletState extends PagedListMeta {
  wallet: Wallet | null;
  entries: LedgerEntry[];
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  topup: (amountMicros: number, description?: string) => Promise<LedgerEntry>;
  reset: () => void;
}

const PAGE_SIZE = 25;
const initial = (): Pick<WalletState, 'wallet' | 'entries' | keyof PagedListMeta> => ({
  ...emptyPagedList(),
  wallet: null,
  entries: [],
});

export const useWallet = create<WalletState>()((set, get) => {
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
  // Refresh what is shown; a wallet not loaded yet loads fresh when its screen opens.
  const { status, load } = useWallet.getState();
  if (status === 'ready' || status === 'error') void load();
});

export const selectIsLowBalance = (s: WalletState): boolean =>
  s.wallet !== null && s.wallet.balanceMicros < s.wallet.lowBalanceThresholdMicros;
