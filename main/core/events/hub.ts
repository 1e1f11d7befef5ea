import type { Database as Db } from 'better-sqlite3';
import type { EphemeralEventType, EphemeralPayloads } from '../../../shared/schemas/events.ts';
import type { Scope } from '../runtime.ts';
import type { EventRow } from './outbox.ts';
import { envelopeJson } from './outbox.ts';

export interface Subscriber extends Scope {
  types: Set<string> | null;
  /**
   * 'summary': a campaign's per-recipient events (its sends, their statuses, the conversations
   * they create or move) are left out; its `campaign.progress` says what changed (the desk's).
   */
  campaigns: 'all' | 'summary';
  /** The agent the reader acts as, for ephemeral messages sent to an audience. */
  agentId: string | null;
  /** The sign-in session the stream belongs to (null: the desktop window or an API key). */
  sessionId: string | null;
  /** Last sequence number written to this subscriber. */
  cursor: number;
  /** Following new events (false while it replays its backlog). */
  live: boolean;
  closed: boolean;
  /** Writes a chunk; false when the reader should be given time (or is gone). */
  write(chunk: string): boolean;
  /** Resolves when the reader has taken what was written (or is gone). */
  drained(): Promise<void>;
  end(): void;
}

const BATCH = 1000;
/**
 * Commits come by the hundred a second under load (each inbound message, each reply, each of a
 * campaign's passes); the streams are written at most this often, so a stream takes one write
 * (one TLS record, one syscall) per interval instead of one per commit. The first commit after a
 * quiet spell is written at once.
 */
const FLUSH_EVERY_MS = 20;
/** Bytes written to a replaying reader before waiting for it to take them. */
const REPLAY_CHUNK = 64 * 1024;
/**
 * The latest events read, kept with their frames: a reader a few seconds behind (a busy
 * client, a burst) catches up from here instead of reading the store and framing each event
 * again for itself — with fifty streams behind at once, that was fifty reads and fifty framings
 * of the same rows. Older positions are read from the store.
 */
const RECENT_EVENTS = 5_000;

/**
 * Fans committed events out to the agent event streams (SSE). One read of the new rows per
 * commit serves every subscriber; a subscriber resumes from any sequence number without gaps
 * or duplicates (it replays the backlog first, then follows).
 */
export function createHub(
  db: Db,
  opts: {
    pollMs?: number;
    prunedThrough?: () => number;
    now?: () => number;
    flushEveryMs?: number;
  } = {},
) {
  const now = opts.now ?? Date.now;
  const maxSeq = db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck();
  const after = db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
  const backlog = db.prepare(
    `SELECT * FROM events WHERE workspace_id = ? AND environment = ? AND seq > ? AND seq <= ?
       AND (campaign_id IS NULL OR ?) ORDER BY seq LIMIT ?`,
  );
  const subscribers = new Set<Subscriber>();
  let lastSeq = maxSeq.get() as number;
  /**
   * Every event after `recentFrom` up to `lastSeq`, in order, as the streams were sent them
   * (a frame is made once, when first needed).
   */
  let recent: { row: EventRow; frame?: string }[] = [];
  let recentFrom = lastSeq;
  /** Positions from here on are read from `recent`; null: from the store. */
  function recentAfter(cursor: number): number | null {
    if (cursor < recentFrom) return null;
    let lo = 0;
    let hi = recent.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (recent[mid]!.row.seq <= cursor) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  let poll: NodeJS.Timeout | null = null;
  const flushEvery = opts.flushEveryMs ?? FLUSH_EVERY_MS;
  let flushedAt = -Infinity;
  let flushTimer: NodeJS.Timeout | null = null;

  /** After a commit: the streams are written now, or when the last write is `flushEvery` old. */
  function committed() {
    if (flushTimer) return;
    const wait = flushedAt + flushEvery - performance.now();
    if (wait <= 0) {
      flushedAt = performance.now();
      flush();
      return;
    }
    flushTimer = setTimeout(() => {
      flushTimer = null;
      flushedAt = performance.now();
      flush();
    }, wait);
  }

  const frame = (r: EventRow) => `id: ${r.seq}\nevent: ${r.type}\ndata: ${envelopeJson(r)}\n\n`;
  const matches = (s: Subscriber, r: EventRow) =>
    r.workspace_id === s.workspaceId &&
    r.environment === s.environment &&
    (!s.types || s.types.has(r.type)) &&
    (r.campaign_id === null || s.campaigns === 'all');

  function flush() {
    // Nobody listens: skip the read (a commit on the send path pays nothing); a new subscriber
    // catches up from the current end first.
    if (!db.open || subscribers.size === 0) return;
    for (;;) {
      const rows = after.all(lastSeq, BATCH) as EventRow[];
      if (rows.length === 0) return;
      lastSeq = rows[rows.length - 1]!.seq;
      // Each event is framed once, for every stream that takes it (and any that replays it).
      const entries = rows.map((row) => ({ row, frame: undefined as string | undefined }));
      recent.push(...entries);
      if (recent.length > 2 * RECENT_EVENTS) {
        const drop = recent.length - RECENT_EVENTS;
        recentFrom = recent[drop - 1]!.row.seq;
        recent = recent.slice(drop);
      }
      for (const s of subscribers) {
        if (!s.live) continue; // it is catching up from the store and reads these rows there
        let out = '';
        let through = s.cursor;
        let full = false;
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i]!;
          if (r.seq <= s.cursor) continue;
          if (matches(s, r)) {
            // A burst (a campaign's events) is never written at once: past a chunk, this
            // stream takes the rest from the store as its reader drains (catchUp).
            if (out.length >= REPLAY_CHUNK) {
              full = true;
              break;
            }
            out += entries[i]!.frame ??= frame(r);
          }
          through = r.seq;
        }
        s.cursor = full ? through : lastSeq;
        const room = out ? s.write(out) : true;
        if (full || !room) catchUp(s, room);
      }
      if (rows.length < BATCH) return;
    }
  }

  /**
   * A live stream whose reader has not taken what it was sent (or was sent a chunk of a burst)
   * follows from the store until it is level again, instead of having more written to it or
   * being cut off: a reader slower than a burst sees every event, late, never a gap.
   */
  function catchUp(s: Subscriber, room: boolean) {
    s.live = false;
    // 'drain' comes only after a write that found the buffer full; otherwise go on at once.
    if (room) setImmediate(() => void replay(s));
    else void s.drained().then(() => replay(s));
  }

  /**
   * Sends a subscriber its backlog a batch at a time, giving the event loop (and the reader)
   * room between batches, so a reader far behind neither blocks the core nor is sent more
   * than it takes; it stops the moment the reader is gone.
   */
  async function replay(s: Subscriber) {
    while (!s.closed && db.open) {
      const head = lastSeq;
      if (s.cursor >= head) {
        s.live = true;
        return;
      }
      const at = recentAfter(s.cursor);
      if (at !== null) {
        // From the latest events, in memory: a chunk, then the reader's turn.
        let out = '';
        let through = s.cursor;
        for (let i = at; i < recent.length && out.length < REPLAY_CHUNK; i++) {
          const e = recent[i]!;
          if (e.row.seq > head) break;
          through = e.row.seq;
          if (matches(s, e.row)) out += e.frame ??= frame(e.row);
        }
        s.cursor = through;
        if (out && !s.write(out)) await s.drained();
        else await new Promise((r) => setImmediate(r));
        continue;
      }
      const rows = backlog.all(
        s.workspaceId,
        s.environment,
        s.cursor,
        head,
        s.campaigns === 'all' ? 1 : 0,
        BATCH,
      ) as EventRow[];
      let out = '';
      for (const r of rows) {
        if (!matches(s, r)) continue;
        out += frame(r);
        // Chunks well under the reader's bound, each after it took the last one.
        if (out.length >= REPLAY_CHUNK) {
          if (!s.write(out)) await s.drained();
          out = '';
          if (s.closed) return;
        }
      }
      s.cursor = rows.length < BATCH ? head : rows[rows.length - 1]!.seq;
      if (out && !s.write(out)) await s.drained();
      else await new Promise((r) => setImmediate(r));
    }
  }

  return {
    flush,
    committed,
    /**
     * Replays events after `afterSeq` (when given), then follows new ones. A resume point the
     * store can no longer serve — older than retention kept, or ahead of the stream (a restored
     * backup) — starts at the head, with a `stream.reset` event first so the client reloads
     * its state instead of silently missing events.
     */
    subscribe(
      sub: Omit<Subscriber, 'cursor' | 'live' | 'closed'>,
      afterSeq: number | null,
    ): () => void {
      if (subscribers.size === 0) {
        // Nothing was read while nobody listened: the latest events start again here.
        lastSeq = maxSeq.get() as number;
        recent = [];
        recentFrom = lastSeq;
      } else flush();
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
      const s: Subscriber = { ...sub, cursor: from, live: from >= lastSeq, closed: false };
      subscribers.add(s);
      if (!s.live) void replay(s);
      // Other processes (the CLI) write events too: look for them while anyone listens.
      if (!poll) {
        poll = setInterval(flush, opts.pollMs ?? 1000);
        poll.unref();
      }
      return () => {
        s.closed = true;
        subscribers.delete(s);
        if (subscribers.size === 0 && poll) {
          clearInterval(poll);
          poll = null;
        }
      };
    },
    /**
     * An ephemeral message (presence, viewing, typing, a notification): written now to the live
     * streams of its scope — to the agents of `audience` only, when given; never to those of
     * `exclude` (the member who caused it) — and nowhere else: not stored, not replayed after a
     * reconnect, never a webhook. It carries no `id`, so it never moves a reader's
     * Last-Event-ID. Returns how many streams it reached.
     */
    publish<T extends EphemeralEventType>(
      scope: Scope,
      type: T,
      data: EphemeralPayloads[T],
      opts: { audience?: readonly string[]; exclude?: readonly string[] } = {},
    ): number {
      const body = JSON.stringify({
        type,
        createdAt: new Date(now()).toISOString(),
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        data,
      });
      const frame = `event: ${type}\ndata: ${body}\n\n`;
      let reached = 0;
      for (const s of subscribers) {
        if (s.closed || !s.live) continue;
        if (s.workspaceId !== scope.workspaceId || s.environment !== scope.environment) continue;
        if (s.types && !s.types.has(type)) continue;
        if (opts.audience && (s.agentId === null || !opts.audience.includes(s.agentId))) continue;
        if (opts.exclude && s.agentId !== null && opts.exclude.includes(s.agentId)) continue;
        s.write(frame);
        reached++;
      }
      return reached;
    },
    /**
     * Ends the streams of sessions that just ended (sign-out, revoke, deactivation, a password
     * change): at once, so a signed-out page learns it within the second (README "Security").
     */
    closeSessions(sessionIds: readonly string[]): number {
      if (sessionIds.length === 0) return 0;
      const ended = new Set(sessionIds);
      let closed = 0;
      for (const s of subscribers) {
        if (s.sessionId !== null && ended.has(s.sessionId)) {
          s.end();
          closed++;
        }
      }
      return closed;
    },
    /** How many streams are open now. */
    readers: () => subscribers.size,
    closeAll() {
      for (const s of subscribers) s.end();
      subscribers.clear();
      if (poll) clearInterval(poll);
      poll = null;
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
    },
  };
}
export type Hub = ReturnType<typeof createHub>;
