import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as WorkerThreads from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MediaStoreStopped, mediaStore } from '../../main/core/media/store.ts';

/** Every transfer thread a store starts, and whether it has ended. */
const threads = vi.hoisted(() => [] as { worker: Worker; exited: boolean }[]);
vi.mock('node:worker_threads', async (importOriginal) => {
  const real = await importOriginal<typeof WorkerThreads>();
  class Counted extends real.Worker {
    constructor(...args: ConstructorParameters<typeof real.Worker>) {
      super(...args);
      const seen = { worker: this as Worker, exited: false };
      threads.push(seen);
      this.once('exit', () => (seen.exited = true));
    }
  }
  return { ...real, Worker: Counted, default: { ...real, Worker: Counted } };
});

const dirs: string[] = [];
afterEach(() => {
  threads.length = 0;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function dataDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-media-stop-'));
  dirs.push(d);
  return d;
}

const leftovers = (d: string) => fs.readdirSync(path.join(d, 'media'));

/** A source whose bytes come when the test says so. */
function gatedSource(first: Buffer) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  async function* chunks() {
    yield first;
    await gate;
    yield Buffer.alloc(1024, 2);
  }
  return { chunks: chunks(), open };
}

describe('media store after stop', () => {
  it('refuses the rest of a transfer in flight, removes its file, and starts no transfer thread', async () => {
    const d = dataDir();
    const store = mediaStore(d);
    // More than a batch: the transfer thread starts and the temporary file exists.
    const source = gatedSource(Buffer.alloc(300 * 1024, 1));
    const receiving = store.receive(source.chunks, 10 * 1024 * 1024);
    await vi.waitFor(() => expect(leftovers(d)).toHaveLength(1));
    expect(threads).toHaveLength(1);

    await store.stop();
    expect(threads[0]!.exited).toBe(true);
    source.open();
    await expect(receiving).rejects.toBeInstanceOf(MediaStoreStopped);
    expect(leftovers(d)).toEqual([]);
    // A new transfer is refused at once, with the same reason.
    await expect(store.receive(gatedSource(Buffer.alloc(10)).chunks, 1024)).rejects.toThrow(
      'the media store is stopped: the core is shutting down',
    );
    expect(threads).toHaveLength(1);
  });

  it('fails a write the stopping thread never answered, and starts no transfer thread for its abort', async () => {
    const d = dataDir();
    const store = mediaStore(d);
    let stopping: Promise<void> | undefined;
    async function* chunks() {
      // Stopped while the first batch is with the writer (the thread is still starting then).
      setImmediate(() => (stopping = store.stop()));
      yield Buffer.alloc(300 * 1024, 1);
      yield Buffer.alloc(10, 2);
    }
    await expect(store.receive(chunks(), 10 * 1024 * 1024)).rejects.toThrow(
      /media transfer thread stopped|media store is stopped/,
    );
    await stopping;
    expect(threads).toHaveLength(1);
    expect(threads[0]!.exited).toBe(true);
    expect(leftovers(d)).toEqual([]);
  });
});
