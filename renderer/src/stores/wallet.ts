import { create } from 'zustand';
import { formatMicros } from '../../../shared/money.ts';
import type { LedgerEntry, Wallet } from '../../../shared/schemas/index.ts';
import { api, errorMessage, scopeGeneration } from '../api/client.ts';
import { events } from '../api/events.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';
import { notify } from './toasts.ts';

interface WalletState {
  wallet: Wallet | null;
  entries: LedgerEntry[];
  nextCursor: string | null;
  status: LoadStatus;
  loadingMore: boolean;
  error: string | null;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  topup: (amountMicros: number, description?: string) => Promise<LedgerEntry>;
  reset: () => void;
}

const PAGE_SIZE = 25;
type WalletData = Pick<
  WalletState,
  'wallet' | 'entries' | 'nextCursor' | 'status' | 'loadingMore' | 'error'
>;
const initial = (): WalletData => ({
  wallet: null,
  entries: [],
  nextCursor: null,
  status: 'idle',
  loadingMore: false,
  error: null,
});

export const useWallet = create<WalletState>()((set, get) => ({
  ...initial(),

  load: async () => {
    const generation = scopeGeneration();
    set({ status: 'loading', error: null });
    try {
      const [wallet, page] = await Promise.all([
        api.wallet.get(),
        api.wallet.transactions({ limit: PAGE_SIZE }),
      ]);
      if (generation !== scopeGeneration()) return;
      set({ wallet, entries: page.data, nextCursor: page.nextCursor, status: 'ready' });
    } catch (e) {
      if (generation === scopeGeneration()) set({ status: 'error', error: errorMessage(e) });
    }
  },

  loadMore: async () => {
    const { nextCursor, loadingMore } = get();
    if (!nextCursor || loadingMore) return;
    const generation = scopeGeneration();
    set({ loadingMore: true });
    try {
      const page = await api.wallet.transactions({ limit: PAGE_SIZE, cursor: nextCursor });
      if (generation !== scopeGeneration()) return;
      set((s) => {
        const seen = new Set(s.entries.map((e) => e.id));
        return {
          entries: [...s.entries, ...page.data.filter((e) => !seen.has(e.id))],
          nextCursor: page.nextCursor,
        };
      });
    } finally {
      if (generation === scopeGeneration()) set({ loadingMore: false });
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

  reset: () => set(initial()),
}));

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
