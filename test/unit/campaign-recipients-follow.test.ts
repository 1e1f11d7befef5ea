/**
 * The recipients table's store follows a running campaign only while a table shows it
 * (renderer/src/stores/campaign-stores.ts `watch`): progress events read the rows again while it
 * is on screen, and read nothing once the page is left, however long the campaign runs. The
 * event stream is a fake the test drives; the store's timers are faked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Handler = (event: { type: string; data: Record<string, unknown> }) => void;
const handlers = vi.hoisted(() => new Map<string, Set<Handler>>());

vi.mock('../../renderer/src/api/events.ts', () => ({
  events: {
    subscribe: (type: string, handler: Handler) => {
      const set = handlers.get(type) ?? new Set<Handler>();
      set.add(handler);
      handlers.set(type, set);
      return () => set.delete(handler);
    },
  },
}));
// The store's timers are the window's (faked below).
vi.stubGlobal('window', globalThis);

const { createRecipientsStore, RECIPIENTS_FOLLOW_MS } =
  await import('../../renderer/src/stores/campaign-stores.ts');

const emit = (type: string, data: Record<string, unknown>): void => {
  for (const handler of handlers.get(type) ?? []) handler({ type, data });
};

interface Campaign {
  id: string;
  status: string;
  updatedAt: string;
}

/** A recipients store over a fake kind, and the requests it made for the rows. */
function recipientsOf(kind: string) {
  const reads: string[] = [];
  const store = createRecipientsStore<Campaign, null, { id: string }, ''>({
    kind: {
      statusEvent: `${kind}.status` as never,
      progressEvent: `${kind}.progress` as never,
      campaignOf: (data) => data as unknown as Campaign,
      progressOf: (data) => ({ campaignId: String(data.campaignId), progress: null }),
      merge: (_current, next) => next,
      withProgress: (campaign) => campaign,
    },
    read: (campaignId) => {
      reads.push(campaignId);
      return Promise.resolve({ data: [{ id: 'r1' }, { id: 'r2' }], nextCursor: null });
    },
    isFinal: (status) => status === 'completed',
  });
  const progress = (campaignId: string) => emit(`${kind}.progress`, { campaignId });
  const status = (id: string, s: string) =>
    emit(`${kind}.status`, { id, status: s, updatedAt: new Date().toISOString() });
  return { store, reads, progress, status };
}

/** A running campaign's progress: an event every second for `seconds`, timers run between. */
async function runFor(progress: () => void, seconds: number): Promise<void> {
  for (let i = 0; i < seconds; i += 1) {
    progress();
    await vi.advanceTimersByTimeAsync(1_000);
  }
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('recipients follow the campaign only while the table is on screen', () => {
  it('reads the rows again on progress while watched, and nothing after the page is left', async () => {
    const t = recipientsOf('a');
    const release = t.store.getState().watch();
    t.store.getState().show('c1');
    await t.store.getState().load();
    expect(t.reads).toEqual(['c1']);

    // On screen: progress reads the rows again, at most every RECIPIENTS_FOLLOW_MS.
    await runFor(() => t.progress('c1'), 10);
    const followed = t.reads.length - 1;
    expect(followed).toBeGreaterThanOrEqual(3);
    expect(followed).toBeLessThanOrEqual(10_000 / RECIPIENTS_FOLLOW_MS + 1);

    // The page is left (the table unmounts, the page resets the store) with a read pending.
    t.progress('c1');
    release();
    t.store.getState().reset();
    const before = t.reads.length;
    await runFor(() => t.progress('c1'), 60);
    t.status('c1', 'completed');
    await vi.advanceTimersByTimeAsync(RECIPIENTS_FOLLOW_MS * 2);
    expect(t.reads.length).toBe(before);
  });

  it('unwatched rows are not read on progress or the end; they are read once shown again', async () => {
    const t = recipientsOf('b');
    t.store.getState().show('c2');
    await t.store.getState().load();
    const release = t.store.getState().watch();
    release();
    release(); // A second release of the same watch changes nothing.
    await runFor(() => t.progress('c2'), 30);
    t.status('c2', 'completed');
    await vi.advanceTimersByTimeAsync(RECIPIENTS_FOLLOW_MS * 2);
    expect(t.reads).toEqual(['c2']);

    // Shown again: what it missed is read once, at once.
    const again = t.store.getState().watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.reads).toEqual(['c2', 'c2']);
    // Another campaign's progress reads nothing.
    await runFor(() => t.progress('other'), 5);
    expect(t.reads).toEqual(['c2', 'c2']);
    again();
  });
});
