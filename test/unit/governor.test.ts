import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../main/core/db/migrate.ts';
import {
  createGovernor,
  PAIR_INTERVAL_MS,
  TIER_WINDOW_MS,
} from '../../main/core/pacing/governor.ts';
import { manualClock, tempDir } from '../helpers.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A migrated store on a manual clock, and a governor (or two, as two processes would). */
function setup() {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'parley.db');
  const db = new Database(file);
  migrate(db, { backupDir: path.join(dir, 'backups'), now: () => 0 });
  const clock = manualClock();
  return { db, file, clock, governor: createGovernor(db, clock) };
}

const key = { accountId: 'ba_1', environment: 'test' as const };
const limits = (messagingTier: number | null = 3) => ({ throughputMps: 10, messagingTier });

describe('throughput: a sliding one-second window', () => {
  it('has room for mps hand-overs in any second, not just whole ones', () => {
    const { governor, clock } = setup();
    expect(governor.room(key, 10)).toBe(10);
    governor.spend(key, 6);
    clock.advance(400);
    expect(governor.room(key, 10)).toBe(4);
    governor.spend(key, 4);
    expect(governor.room(key, 10)).toBe(0);
    // The first six leave the window 1 s after they were sent, not at a whole second.
    expect(governor.roomAt(key, 10, 1)).toBe(clock.now() - 400 + 1000);
    expect(governor.roomAt(key, 10, 7)).toBe(clock.now() + 1000);
    clock.advance(599);
    expect(governor.room(key, 10)).toBe(0);
    clock.advance(1);
    expect(governor.room(key, 10)).toBe(6);
    clock.advance(400);
    expect(governor.room(key, 10)).toBe(10);
  });

  it('reads the window at the time a pass stamps its hand-overs with, not later', () => {
    const { governor, clock } = setup();
    const start = clock.now();
    governor.spend(key, 10, start + 1);
    const passAt = start + 1000;
    clock.set(passAt + 2); // the pass took a moment before asking
    // At the pass's time the first ten are still inside its window: no room.
    expect(governor.room(key, 10, passAt)).toBe(0);
    expect(governor.roomAt(key, 10, 1, passAt)).toBe(start + 1001);
  });

  it('counts unheld sends (the room may go below zero) and keeps accounts apart', () => {
    const { governor } = setup();
    governor.spend(key, 14);
    expect(governor.room(key, 10)).toBe(-4);
    expect(governor.room({ ...key, environment: 'live' }, 10)).toBe(10);
    expect(governor.room({ accountId: 'ba_2', environment: 'test' }, 10)).toBe(10);
  });

  it('never lets a window hold more than mps, whatever the pass timing', () => {
    const { governor, clock } = setup();
    const sent: number[] = [];
    let t = clock.now();
    // Passes at irregular times each take all the room there is.
    for (let i = 0; i < 400; i++) {
      clock.set((t += 7 + ((i * 37) % 90)));
      const room = Math.max(0, governor.room(key, 25));
      governor.spend(key, room);
      for (let k = 0; k < room; k++) sent.push(clock.now());
    }
    let worst = 0;
    for (let i = 0, j = 0; i < sent.length; i++) {
      while (sent[j]! <= sent[i]! - 1000) j++;
      worst = Math.max(worst, i - j + 1);
    }
    expect(worst).toBe(25);
    // And it used the room: about 25 a second over the run.
    const seconds = (sent[sent.length - 1]! - sent[0]!) / 1000;
    expect(sent.length / seconds).toBeGreaterThan(23);
  });

  it('two processes on one data dir share the window', () => {
    const { file, clock, governor } = setup();
    const other = createGovernor(new Database(file), clock);
    governor.spend(key, 7);
    expect(other.room(key, 10)).toBe(3);
    other.spend(key, 3);
    expect(governor.room(key, 10)).toBe(0);
  });
});

describe('the pair rate', () => {
  it('holds a recipient for 6 s after its last message', () => {
    const { governor, clock } = setup();
    expect(governor.check(key, limits(), '+14155550100', false, 0)).toEqual({
      ok: true,
      takesTierSlot: true,
    });
    governor.record(key, '+14155550100', false);
    const sentAt = clock.now();
    clock.advance(5999);
    expect(governor.check(key, limits(), '+14155550100', false, 1)).toEqual({
      ok: false,
      by: 'pair_rate',
      until: sentAt + PAIR_INTERVAL_MS,
    });
    // Others are not held.
    expect(governor.check(key, limits(), '+14155550101', false, 1).ok).toBe(true);
    clock.advance(1);
    expect(governor.check(key, limits(), '+14155550100', false, 1)).toEqual({
      ok: true,
      takesTierSlot: false, // its 24 h slot still runs
    });
  });
});

describe('the messaging tier', () => {
  it('counts unique recipients outside their window per rolling 24 h', () => {
    const { governor, clock } = setup();
    const start = clock.now();
    for (const p of ['+1', '+2', '+3']) {
      const v = governor.check(key, limits(3), p, false, governor.tierUsed(key));
      expect(v).toEqual({ ok: true, takesTierSlot: true });
      governor.record(key, p, false, true);
      clock.advance(3600_000);
    }
    expect(governor.tierUsed(key)).toBe(3);
    // A fourth person waits for the oldest slot to end: 24 h after it opened.
    clock.advance(PAIR_INTERVAL_MS);
    expect(governor.check(key, limits(3), '+4', false, 3)).toEqual({
      ok: false,
      by: 'tier',
      until: start + TIER_WINDOW_MS,
    });
    // Messaging someone inside their service window takes no slot.
    expect(governor.check(key, limits(3), '+5', true, 3)).toEqual({
      ok: true,
      takesTierSlot: false,
    });
    // Someone whose slot still runs may be messaged again without a new one.
    expect(governor.check(key, limits(3), '+2', false, 3)).toEqual({
      ok: true,
      takesTierSlot: false,
    });
    // Unlimited accounts are never held.
    expect(governor.check(key, limits(null), '+4', false, 3).ok).toBe(true);
    // The window rolls: the first slot ends, one opens.
    clock.set(start + TIER_WINDOW_MS + 1);
    expect(governor.tierUsed(key)).toBe(2);
    expect(governor.check(key, limits(3), '+4', false, 2)).toEqual({
      ok: true,
      takesTierSlot: true,
    });
    // The first person's own slot ended too: messaging them again opens a new one.
    expect(governor.check(key, limits(3), '+1', false, 2)).toEqual({
      ok: true,
      takesTierSlot: true,
    });
  });

  it('counts API sends (recorded, never asked) toward the tier', () => {
    const { governor } = setup();
    for (const p of ['+1', '+2', '+3', '+4']) expect(governor.record(key, p, false)).toBe(true);
    // Recorded again within 24 h: the same slot.
    expect(governor.record(key, '+1', false)).toBe(false);
    // Inside the window: no slot.
    expect(governor.record(key, '+9', true)).toBe(false);
    expect(governor.tierUsed(key)).toBe(4);
    expect(governor.check(key, limits(3), '+5', false, governor.tierUsed(key)).ok).toBe(false);
  });

  it('forgets recipients whose pair clock and slot both ended', () => {
    const { governor, clock } = setup();
    governor.record(key, '+1', false);
    governor.record(key, '+2', true);
    clock.advance(TIER_WINDOW_MS + 1);
    governor.record(key, '+3', false);
    expect(governor.prune(100)).toBe(2);
    expect(governor.tierUsed(key)).toBe(1);
  });
});

describe('paced starts (SMTP exchanges)', () => {
  it('spaces starts 1000/mps ms apart after the last one counted, within the horizon', () => {
    const { governor, clock } = setup();
    const t0 = clock.now();
    const first = governor.paced(key, 4, 10, t0, 1000);
    expect(first).toEqual([t0, t0 + 250, t0 + 500, t0 + 750]);
    // Only the starts used are counted; the next pass goes on after the last one counted.
    first.slice(0, 2).forEach((at) => governor.spend(key, 1, at));
    expect(governor.paced(key, 4, 3, t0 + 100, 1000)).toEqual([t0 + 500, t0 + 750, t0 + 1000]);
    // A send counted later (an unpaced one) pushes the next start.
    governor.spend(key, 1, t0 + 900);
    expect(governor.paced(key, 4, 1, t0 + 100, 5000)).toEqual([t0 + 1150]);
    // Any one-second window of paced starts holds at most mps.
    expect(governor.paced(key, 3, 100, t0 + 2000, 1000)).toHaveLength(3);
  });
});
