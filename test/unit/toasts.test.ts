/**
 * The notices' de-duplication (renderer/src/stores/toasts.ts): the same notice again is counted
 * on the one shown, but two notices whose actions act on different things stay two, each with
 * its own action.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

// The store schedules each notice's end on the window's timers (faked below).
vi.stubGlobal('window', globalThis);

const { useToasts } = await import('../../renderer/src/stores/toasts.ts');

const opened: string[] = [];
const open = (conversationId: string, key?: string) => ({
  label: 'Open',
  onSelect: () => opened.push(conversationId),
  ...(key === undefined ? {} : { key }),
});

beforeAll(() => {
  vi.useFakeTimers();
});
beforeEach(() => {
  opened.length = 0;
  useToasts.getState().dismissAll();
});
afterEach(() => {
  vi.clearAllTimers();
});

describe('toast de-duplication', () => {
  it('keeps two notices with the same words apart when their actions open different things', () => {
    const { push } = useToasts.getState();
    push('info', 'New message from John: “Hi”', open('c1', 'c1'));
    push('info', 'New message from John: “Hi”', open('c2', 'c2'));
    const toasts = useToasts.getState().toasts;
    expect(toasts).toHaveLength(2);
    expect(toasts.map((t) => t.count)).toEqual([1, 1]);
    for (const t of toasts) t.action?.onSelect();
    expect(opened).toEqual(['c1', 'c2']);
  });

  it('never counts notices with an action as one unless they name their target', () => {
    const { push } = useToasts.getState();
    push('info', 'Saved', open('a'));
    push('info', 'Saved', open('b'));
    expect(useToasts.getState().toasts.map((t) => t.count)).toEqual([1, 1]);
    // One with a target and one without are not the same notice either.
    push('info', 'Sent', open('a', 'a'));
    push('info', 'Sent', open('a'));
    expect(useToasts.getState().toasts).toHaveLength(4);
  });

  it('counts the same notice again: same words and the same target, or no action at all', () => {
    const { push } = useToasts.getState();
    push('info', 'New message from Tom: “Still there?”', open('c7', 'c7'));
    push('error', 'The core is not answering.');
    push('info', 'New message from Tom: “Still there?”', open('c7', 'c7'));
    push('error', 'The core is not answering.');
    const toasts = useToasts.getState().toasts;
    expect(toasts.map((t) => [t.message, t.count])).toEqual([
      ['New message from Tom: “Still there?”', 2],
      ['The core is not answering.', 2],
    ]);
    toasts[0]!.action?.onSelect();
    expect(opened).toEqual(['c7']);
    // A notice without an action is not the same as one with it.
    push('info', 'New message from Tom: “Still there?”');
    expect(useToasts.getState().toasts).toHaveLength(3);
  });

  it('gives a counted notice its full time again', () => {
    const { push } = useToasts.getState();
    push('success', 'Saved.');
    vi.advanceTimersByTime(2_000);
    push('success', 'Saved.');
    vi.advanceTimersByTime(2_000);
    expect(useToasts.getState().toasts).toHaveLength(1);
    vi.advanceTimersByTime(1_001);
    expect(useToasts.getState().toasts).toHaveLength(0);
  });
});
