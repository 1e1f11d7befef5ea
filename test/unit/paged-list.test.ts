/**
 * The paged lists' quiet refresh (renderer/src/stores/paged-list.ts): the rows shown are read
 * again without a loading state, as many as are shown, a newer load wins over it, and rows a
 * "load more" appended while it ran stay.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from '../../renderer/src/api/client.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  type PagedListMeta,
  type StatusFilteredActions,
} from '../../renderer/src/stores/paged-list.ts';

interface Row {
  id: string;
  status: string;
}
type State = PagedListMeta & StatusFilteredActions<string> & { rows: Row[]; statusFilter: string };

/** A store of rows read from `source` by status, pages of 2; `statuses` records the states set. */
function listOf(source: () => Row[]) {
  let state = { ...emptyPagedList(), rows: [] as Row[], statusFilter: '' } as State;
  const statuses: string[] = [];
  const gates: (() => void)[] = [];
  let held = false;
  const read = async (q: { status: string; limit: number; cursor?: string }) => {
    if (held) await new Promise<void>((resolve) => gates.push(resolve));
    const all = source().filter((r) => !q.status || r.status === q.status);
    const from = q.cursor ? Number(q.cursor) : 0;
    const data = all.slice(from, from + q.limit);
    const next = from + q.limit < all.length ? String(from + q.limit) : null;
    return { data, nextCursor: next } as Page<Row>;
  };
  const set = (patch: Partial<State> | ((s: State) => Partial<State>)) => {
    state = { ...state, ...(typeof patch === 'function' ? patch(state) : patch) };
    statuses.push(state.status);
  };
  const list = createStatusFilteredList<State, Row>({
    set,
    get: () => state,
    read,
    pageSize: 2,
    rows: (s) => s.rows,
    withRows: (rows) => ({ rows }),
  });
  Object.assign(state, list.actions);
  return {
    list,
    state: () => state,
    statuses,
    hold: () => (held = true),
    /** Reads from now on go through; those held so far wait for `release`. */
    pass: () => (held = false),
    release: () => {
      held = false;
      for (const go of gates.splice(0)) go();
    },
  };
}

const rows = (statuses: string[]): Row[] => statuses.map((status, i) => ({ id: `r${i}`, status }));

describe('paged list refresh', () => {
  it('reads as many rows as are shown again, fresh, without a loading state', async () => {
    let source = rows(['queued', 'queued', 'queued', 'queued', 'queued']);
    const t = listOf(() => source);
    await t.list.load();
    await t.list.loadMore();
    expect(t.state().rows).toHaveLength(4);
    source = rows(['sent', 'sent', 'read', 'queued', 'queued']);
    t.statuses.length = 0;
    expect(await t.list.refresh()).toBe(true);
    expect(t.state().rows.map((r) => r.status)).toEqual(['sent', 'sent', 'read', 'queued']);
    expect(t.state().nextCursor).toBe('4');
    expect(t.statuses.every((s) => s === 'ready')).toBe(true);
  });

  it('does nothing before the first load, and an answer a newer load overtook is dropped', async () => {
    let source = rows(['queued', 'queued']);
    const t = listOf(() => source);
    expect(await t.list.refresh()).toBe(false);
    await t.list.load();
    t.hold();
    const refreshing = t.list.refresh();
    source = rows(['sent', 'sent']);
    t.state().statusFilter = 'sent';
    const loading = t.list.load();
    t.release();
    expect(await refreshing).toBe(false);
    await loading;
    expect(t.state().rows.map((r) => r.status)).toEqual(['sent', 'sent']);
  });

  it('keeps the rows a "load more" appended while it ran, and the cursor after them', async () => {
    let source = rows(['queued', 'queued', 'queued', 'queued', 'queued', 'queued']);
    const t = listOf(() => source);
    await t.list.load();
    // A quiet refresh starts with two rows shown; its read is slow.
    t.hold();
    const refreshing = t.list.refresh();
    source = rows(['sent', 'sent', 'sent', 'queued', 'queued', 'queued']);
    // Meanwhile the user scrolls: two pages more are appended before the refresh answers.
    t.pass();
    await t.list.loadMore();
    await t.list.loadMore();
    expect(t.state().rows.map((r) => r.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    t.release();
    expect(await refreshing).toBe(true);
    // The refreshed rows are fresh, the appended ones are still there, and the list is read to
    // its end (no cursor back to after the refreshed page).
    expect(t.state().rows.map((r) => `${r.id}:${r.status}`)).toEqual([
      'r0:sent',
      'r1:sent',
      'r2:sent',
      'r3:queued',
      'r4:queued',
      'r5:queued',
    ]);
    expect(t.state().nextCursor).toBeNull();
  });
});
