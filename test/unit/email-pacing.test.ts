import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../main/core/db/migrate.ts';
import { createGovernor } from '../../main/core/pacing/governor.ts';
import { manualClock, tempDir } from '../helpers.ts';
import { maxPerSecond } from '../email-fixture.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function setup() {
  const dir = tempDir();
  dirs.push(dir);
  const db = new Database(path.join(dir, 'parley.db'));
  migrate(db, { backupDir: path.join(dir, 'backups'), now: () => 0 });
  const clock = manualClock(0);
  return { db, clock, governor: createGovernor(db, clock) };
}

const key = { accountId: 'email-exchange:ws_1', environment: 'live' as const };

/**
 * Email exchanges take time and their jobs run late (issue 18 item 11c: 229 in the first second
 * of a 200/s run). Admission counts the starts that really happened, plus the admitted ones not
 * started yet, so no sliding second holds more than the rate, the first one included.
 */
describe('governor.admit: real starts, every sliding second', () => {
  it('admits at most the rate in any sliding second, however bunched the asks', () => {
    const { db, governor } = setup();
    const rate = 20;
    const starts: number[] = [];
    // Asks arrive in bursts (late jobs catching up), at odd times, for 5 seconds.
    let t = 0;
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    while (t < 5000) {
      const burst = 1 + Math.floor(next() * 15);
      db.transaction(() => {
        for (let k = 0; k < burst; k++) {
          const v = governor.admit(key, rate, 0, t);
          if (!v.ok) {
            expect(v.at).toBeGreaterThan(t);
            break;
          }
          governor.spend(key, 1, t);
          starts.push(t);
        }
      })();
      t += 1 + Math.floor(next() * 120);
    }
    expect(maxPerSecond(starts)).toBe(rate);
    // Bunched asks still get the whole rate over the run.
    expect(starts.length).toBeGreaterThanOrEqual(rate * 4);
  });

  it('counts admitted exchanges that have not started yet', () => {
    const { governor } = setup();
    for (let i = 0; i < 3; i++) governor.spend(key, 1, 100 * i);
    // Rate 5: three started, two admitted and waiting for their connection.
    expect(governor.admit(key, 5, 2, 250)).toEqual({ ok: false, at: 1000 });
    expect(governor.admit(key, 5, 1, 250)).toEqual({ ok: true });
    // When the first start leaves the window, one more fits.
    expect(governor.admit(key, 5, 2, 1000)).toEqual({ ok: true });
  });
});
