import { describe, expect, it } from 'vitest';
import { findMentionRanges } from '../../shared/mentions.ts';
import {
  ACTIVE_REPORT_EVERY_MS,
  createActivityReporter,
  IDLE_AFTER_MS,
  type ActivityState,
} from '../../renderer/src/stores/activity-reporter.ts';
import {
  addSignal,
  createThrottle,
  nextExpiry,
  pruneSignals,
  SIGNAL_TTL_MS,
  typingText,
  viewersIn,
  viewingText,
  type SignalMap,
} from '../../renderer/src/stores/viewer-signals.ts';
import {
  insertMention,
  matchMembers,
  mentionTriggerAt,
} from '../../renderer/src/screens/inbox/mention-query.ts';

/** A clock and timers the test moves by hand. */
function fakeTime() {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimer: (run: () => void, ms: number) => {
      const id = ++seq;
      timers.set(id, { at: now + ms, run });
      return id;
    },
    clearTimer: (id: unknown) => void timers.delete(id as number),
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= until)
          .sort(([, a], [, b]) => a.at - b.at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].run();
      }
      now = until;
    },
  };
}

function reporter() {
  const time = fakeTime();
  const said: [number, ActivityState][] = [];
  const r = createActivityReporter({ ...time, report: (s) => said.push([time.now(), s]) });
  return { r, time, said };
}

describe('presence reporting (active at most once a minute, idle after 5 min or when hidden)', () => {
  it('says active on the first input, then at most once a minute while input goes on', () => {
    const { r, time, said } = reporter();
    r.input();
    for (let i = 0; i < 150; i++) {
      time.advance(1_000);
      r.input();
    }
    expect(said).toEqual([
      [0, 'active'],
      [ACTIVE_REPORT_EVERY_MS, 'active'],
      [2 * ACTIVE_REPORT_EVERY_MS, 'active'],
    ]);
  });

  it('says idle once 5 minutes pass without input, and active again at the next input', () => {
    const { r, time, said } = reporter();
    r.input();
    time.advance(2 * 60_000);
    r.input();
    time.advance(IDLE_AFTER_MS - 1);
    expect(said.map(([, s]) => s)).toEqual(['active', 'active']);
    time.advance(1);
    expect(said.at(-1)).toEqual([2 * 60_000 + IDLE_AFTER_MS, 'idle']);
    time.advance(10 * 60_000);
    expect(said.filter(([, s]) => s === 'idle')).toHaveLength(1);
    r.input();
    expect(said.at(-1)?.[1]).toBe('active');
  });

  it('says idle at once when the window is hidden, once', () => {
    const { r, time, said } = reporter();
    r.input();
    time.advance(5_000);
    r.hidden();
    r.hidden();
    time.advance(IDLE_AFTER_MS * 2);
    expect(said).toEqual([
      [0, 'active'],
      [5_000, 'idle'],
    ]);
    r.input();
    expect(said.at(-1)).toEqual([5_000 + IDLE_AFTER_MS * 2, 'active']);
  });

  it('says nothing once stopped', () => {
    const { r, time, said } = reporter();
    r.input();
    r.stop();
    time.advance(IDLE_AFTER_MS * 2);
    r.input();
    r.hidden();
    expect(said).toEqual([[0, 'active']]);
  });
});

describe('viewing and typing signals (each lasts 6 s)', () => {
  const T = 1_000_000;

  it('lists who is in a conversation in the order they came, typing or not', () => {
    let map: SignalMap = {};
    map = addSignal(map, 'c1', 'ana', 'viewing', T);
    map = addSignal(map, 'c1', 'ben', 'typing', T + 100);
    map = addSignal(map, 'c1', 'ana', 'viewing', T + 3_000);
    map = addSignal(map, 'c2', 'cy', 'viewing', T);
    expect(viewersIn(map, 'c1')).toEqual([
      { memberId: 'ana', typing: false },
      { memberId: 'ben', typing: true },
    ]);
    expect(viewersIn(map, 'nope')).toEqual([]);
  });

  it('forgets typing 6 s after the last keystroke, and the viewer 6 s after their last signal', () => {
    let map: SignalMap = {};
    map = addSignal(map, 'c1', 'ana', 'typing', T);
    map = addSignal(map, 'c1', 'ana', 'viewing', T + 3_000);
    expect(nextExpiry(map)).toBe(T + SIGNAL_TTL_MS);
    expect(pruneSignals(map, T + SIGNAL_TTL_MS - 1)).toBe(map);
    map = pruneSignals(map, T + SIGNAL_TTL_MS);
    expect(viewersIn(map, 'c1')).toEqual([{ memberId: 'ana', typing: false }]);
    expect(nextExpiry(map)).toBe(T + 3_000 + SIGNAL_TTL_MS);
    map = pruneSignals(map, T + 3_000 + SIGNAL_TTL_MS);
    expect(map).toEqual({});
    expect(nextExpiry(map)).toBeNull();
  });

  it('says who in words', () => {
    expect(typingText([])).toBe('');
    expect(typingText(['Ana'])).toBe('Ana is typing…');
    expect(typingText(['Ana', 'Ben'])).toBe('Ana and Ben are typing…');
    expect(typingText(['Ana', 'Ben', 'Cy'])).toBe('3 people are typing…');
    expect(viewingText(['Ana'])).toBe('Ana is viewing');
    expect(viewingText(['Ana', 'Ben', 'Cy'])).toBe('Ana, Ben and Cy are viewing');
  });

  it('lets a typing signal out at most every 3 s per conversation', () => {
    let now = 0;
    const pass = createThrottle(3_000, () => now);
    const sent: number[] = [];
    for (; now <= 10_000; now += 500) if (pass('c1')) sent.push(now);
    expect(sent).toEqual([0, 3_000, 6_000, 9_000]);
    expect(pass('c2')).toBe(true);
  });
});

describe('the note composer’s @ autocomplete', () => {
  const members = [
    { id: 'ana', name: 'Ana López' },
    { id: 'anam', name: 'Ana María Ruiz' },
    { id: 'ben', name: 'Ben Ray' },
    { id: 'lo', name: 'Lola Díaz' },
  ];

  it('finds the @name the caret is in, never inside an email address', () => {
    expect(mentionTriggerAt('hi @an', 6)).toEqual({ start: 3, end: 6, query: 'an' });
    expect(mentionTriggerAt('@', 1)).toEqual({ start: 0, end: 1, query: '' });
    expect(mentionTriggerAt('cc @Ana Ma', 10)).toEqual({ start: 3, end: 10, query: 'Ana Ma' });
    expect(mentionTriggerAt('ana@example', 11)).toBeNull();
    expect(mentionTriggerAt('@ ana', 5)).toBeNull();
    expect(mentionTriggerAt('@ana\nmore', 9)).toBeNull();
    expect(mentionTriggerAt('no at here', 10)).toBeNull();
  });

  it('offers names that start with the query first, then later names', () => {
    expect(matchMembers(members, '').map((m) => m.id)).toEqual(['ana', 'anam', 'ben', 'lo']);
    expect(matchMembers(members, 'ana m').map((m) => m.id)).toEqual(['anam']);
    expect(matchMembers(members, 'LO').map((m) => m.id)).toEqual(['lo', 'ana']);
    expect(matchMembers(members, 'lopez').map((m) => m.id)).toEqual(['ana']);
    expect(matchMembers(members, 'ana lópez ')).toEqual([]);
  });

  it('puts the full name in, with one space after it', () => {
    const trigger = mentionTriggerAt('cc @an please', 6)!;
    expect(insertMention('cc @an please', trigger, 'Ana López')).toEqual({
      text: 'cc @Ana López please',
      caret: 14,
    });
    expect(insertMention('@b', mentionTriggerAt('@b', 2)!, 'Ben Ray')).toEqual({
      text: '@Ben Ray ',
      caret: 9,
    });
  });

  it('marks a note’s mentions where the core reads them', () => {
    const text = 'cc @Ana López and @ben, not ana@example.com';
    const ranges = findMentionRanges(text, members);
    expect(ranges.map((r) => [text.slice(r.start, r.end), r.id])).toEqual([
      ['@Ana López', 'ana'],
      ['@ben', 'ben'],
    ]);
  });
});
