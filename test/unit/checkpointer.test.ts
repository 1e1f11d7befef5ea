import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startCheckpointer } from '../../main/core/db/checkpointer.ts';
import { openDatabase } from '../../main/core/db/open.ts';
import { tempDir } from '../helpers.ts';

/**
 * The WAL checkpointer (a worker with its own connection) against a writer that never pauses:
 * SQLite starts a WAL over only at a write that follows a checkpoint which caught up, so without
 * a checkpoint that waits its turn the file grows as long as the writes go on.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('starts the WAL over past its size while the writer never pauses, and loses nothing', async () => {
  const dir = tempDir('parley-checkpointer-');
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'parley.db');
  const db = openDatabase(file);
  cleanups.push(() => {
    db.close();
  });
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
  const checkpointer = startCheckpointer(db, { restartFrames: 300, everyMs: 5 });
  cleanups.push(() => checkpointer.stop());
  // The worker has taken over checkpoints once it turned the connection's own off.
  await expect.poll(() => db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);

  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const body = Buffer.alloc(3000, 7);
  const wal = `${file}-wal`;
  // The WAL header's checkpoint sequence number (bytes 12–15) goes up each time it starts over.
  const header = Buffer.alloc(16);
  const sequence = () => {
    const fd = fs.openSync(wal, 'r');
    try {
      fs.readSync(fd, header, 0, 16, 0);
    } finally {
      fs.closeSync(fd);
    }
    return header.readUInt32BE(12);
  };
  let startedOver = 0;
  let rows = 0;
  let last = -1;
  // One transaction after another, the loop never yielding: bounded by count, not by time.
  for (let i = 0; i < 40_000 && startedOver < 3; i++) {
    db.transaction(() => insert.run(body))();
    rows++;
    if (i % 50 !== 0) continue;
    const seq = sequence();
    if (last !== -1 && seq !== last) startedOver++;
    last = seq;
  }
  expect(startedOver).toBeGreaterThanOrEqual(3);
  expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(rows);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
});
