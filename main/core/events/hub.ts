import type { Database as Db } from 'better-sqlite3';
import type { Scope } from '../runtime.ts';
import type { EventRow } from './outbox.ts';
import { envelopeJson } from './outbox.ts';

export interface Subscriber extends Scope {
  types: Set<string> | null;
  /** Last sequence number written to this subscriber. */
  cursor: number;
  write(chunk: string): void;
  end(): void;
}

const BATCH = 1000;

/**
 * Fans committed events out to the agent event streams (SSE). One read of the new rows per
 * commit serves every subscriber; a subscriber resumes from any sequence number without gaps
 * or duplicates (it replays the backlog first, then follows).
 */
export function createHub(db: Db, opts: { pollMs?: number; prunedThrough?: () => number } = {}) {
  const maxSeq = db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck();
  const after = db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
  const backlog = db.prepare(
    `SELECT * FROM events WHERE workspace_id = ? AND environment = ? AND seq > ? AND seq <= ?
     ORDER BY seq LIMIT ?`,
  );
  const subscribers = new Set<Subscriber>();
  let lastSeq = maxSeq.get() as number;
  let poll: NodeJS.Timeout | null = null;

  const frame = (r: EventRow) => `id: ${r.seq}\nevent: ${r.type}\ndata: ${envelopeJson(r)}\n\n`;
  const matches = (s: Subscriber, r: EventRow) =>
    r.workspace_id === s.workspaceId &&
    r.environment === s.environment &&
    (!s.types || s.types.has(r.type));

  function flush() {
    // Nobody listens: skip the read (a commit on the send path pays nothing); a new subscriber
    // catches up from the current end first.
    if (!db.open || subscribers.size === 0) return;
    for (;;) {
      const rows = after.all(lastSeq, BATCH) as EventRow[];
      if (rows.length === 0) return;
      lastSeq = rows[rows.length - 1]!.seq;
      for (const s of subscribers) {
        let out = '';
        for (const r of rows) {
          if (r.seq > s.cursor && matches(s, r)) out += frame(r);
        }
        s.cursor = lastSeq;
        if (out) s.write(out);
      }
      if (rows.length < BATCH) return;
    }
  }

  return {
    flush,
    /**
     * Replays events after `afterSeq` (when given), then follows new ones. A resume point the
     * store can no longer serve — older than retention kept, or ahead of the stream (a restored
     * backup) — starts at the head, with a `stream.reset` event first so the client reloads
     * its state instead of silently missing events.
     */
    subscribe(sub: Omit<Subscriber, 'cursor'>, afterSeq: number | null): () => void {
      if (subscribers.size === 0) lastSeq = maxSeq.get() as number;
      else flush();
      let from = afterSeq ?? lastSeq;
      const reason =
        afterSeq === null
          ? null
          : afterSeq > lastSeq
            ? 'ahead'
            : afterSeq < (opts.prunedThrough?.() ?? 0)
              ? 'expired'
              : null;
      if (reason) {
        from = lastSeq;
        sub.write(
          `id: ${lastSeq}\nevent: stream.reset\ndata: ${JSON.stringify({ reason, lastEventId: String(afterSeq), resumeFrom: String(lastSeq) })}\n\n`,
        );
      }
      const s: Subscriber = { ...sub, cursor: from };
      while (s.cursor < lastSeq) {
        const rows = backlog.all(
          s.workspaceId,
          s.environment,
          s.cursor,
          lastSeq,
          BATCH,
        ) as EventRow[];
        const out = rows
          .filter((r) => matches(s, r))
          .map(frame)
          .join('');
        if (out) s.write(out);
        s.cursor = rows.length < BATCH ? lastSeq : rows[rows.length - 1]!.seq;
      }
      subscribers.add(s);
      // Other processes (the CLI) write events too: look for them while anyone listens.
      if (!poll) {
        poll = setInterval(flush, opts.pollMs ?? 1000);
        poll.unref();
      }
      return () => {
        subscribers.delete(s);
        if (subscribers.size === 0 && poll) {
          clearInterval(poll);
          poll = null;
        }
      };
    },
    closeAll() {
      for (const s of subscribers) s.end();
      subscribers.clear();
      if (poll) clearInterval(poll);
      poll = null;
    },
  };
}
export type Hub = ReturnType<typeof createHub>;
