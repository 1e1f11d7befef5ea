import { ApiError } from '../../../../shared/errors.ts';
import {
  EPHEMERAL_EVENT_TYPES,
  EVENT_TYPES,
  eventsQuery,
} from '../../../../shared/schemas/events.ts';
import type { OperationDocs } from '../../http/openapi.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { presenceClient } from '../presence/routes.ts';

const KNOWN = new Set<string>([...EVENT_TYPES, ...EPHEMERAL_EVENT_TYPES]);

/** A reader this far behind is cut off; it resumes with Last-Event-ID when it catches up. */
export const MAX_BUFFERED_BYTES = 256 * 1024;
/**
 * Unsent bytes under which a reader is still written live (a 'drain' follows any write past the
 * socket's 16 KiB mark, so one above this is always woken).
 */
export const LIVE_BUFFER_BYTES = 128 * 1024;
/** Open streams per credential (an API key, or the UI session of a workspace). */
export const MAX_STREAMS_PER_CREDENTIAL = 32;

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
};

const EVENTS_DOCS: OperationDocs = {
  headers: ['Last-Event-ID'],
  responseMedia: {
    'text/event-stream': {
      schema: { type: 'string', description: 'Server-Sent Events; each `data:` is an Event' },
      example:
        'retry: 2000\n: connected\n\nid: 1042\nevent: message.received\ndata: {"id":"evt_7Rk2pX9mQa","type":"message.received","createdAt":"2026-01-05T10:00:00.000Z","workspaceId":"ws_1Hq8nV3cLd","environment":"test","data":{"message":{}}}\n\n',
    },
  },
  replaceResponseMedia: true,
};

/** `GET /events`: the agent event stream (SSE), resumable with Last-Event-ID. */
export const eventsRoutes =
  (heartbeatMs: number): RegisterRoutes =>
  (app, { hub, presence }) => {
    const open = new Map<string, number>();
    app.get(
      '/events',
      {
        config: { right: 'events', docs: EVENTS_DOCS },
        schema: {
          operationId: 'streamEvents',
          tags: ['Events'],
          summary: 'The agent event stream (Server-Sent Events)',
          description:
            'Each event: `id: <sequence>`, `event: <type>`, `data: {id, type, createdAt, workspaceId, environment, data}`. Reconnect with `Last-Event-ID` to resume without gaps or duplicates. A `: ping` comment comes at least every 15 s. Filter with `?types=message.received,message.read`; `?campaigns=summary` leaves out a campaign’s per-recipient events (its messages, their statuses, the conversations its sends create or move: thousands a second) — `campaign.progress`, at most once a second, says how it goes. A `Last-Event-ID` older than the retention period, or ahead of the stream (after a restore), starts at the head with a `stream.reset` event first (`data: {reason: "expired"|"ahead", lastEventId, resumeFrom}`): reload your state. A reader slower than the stream is sent what it takes and catches up from the store (late, never a gap); one that takes nothing for two heartbeats (30 s) is disconnected and resumes with `Last-Event-ID`; at most 32 streams per credential. Ephemeral events — `presence.updated {memberId, status}`, `conversation.viewing` and `conversation.typing` `{conversationId, memberId}` (never to the member who sent them), `notification {kind: "assigned"|"mention", conversationId, by, messageId?}` (to that member only: a session’s own member, an API key’s `X-Parley-Agent`) — go only to the streams open at the moment: they carry no `id`, are never stored or replayed, and never reach webhooks. A signed-in member’s open stream is what makes them present (online or away).',
          querystring: eventsQuery,
        },
      },
      async (req, reply) => {
        const types = req.query.types
          ? req.query.types
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean)
          : null;
        const unknown = types?.find((t) => !KNOWN.has(t));
        if (unknown) {
          throw new ApiError('validation_error', `unknown event type "${unknown}"`, {
            param: 'types',
          });
        }
        const raw = req.headers['last-event-id'];
        const last = Array.isArray(raw) ? raw[0] : raw;
        if (last !== undefined && !/^\d{1,15}$/.test(last.trim())) {
          throw new ApiError('validation_error', 'Last-Event-ID must be an event sequence number', {
            param: 'Last-Event-ID',
          });
        }
        // HEAD (a health probe, a client checking the route): the headers, no stream.
        if (req.method === 'HEAD') return reply.code(200).headers(SSE_HEADERS).send();
        const p = req.principal;
        const who = p.keyId ?? p.sessionId ?? `session:${p.workspaceId}:${p.environment}`;
        const count = open.get(who) ?? 0;
        if (count >= MAX_STREAMS_PER_CREDENTIAL) {
          throw new ApiError(
            'rate_limited',
            `${MAX_STREAMS_PER_CREDENTIAL} event streams are already open with these credentials; close one first`,
            { headers: { 'retry-after': '5' } },
          );
        }
        open.set(who, count + 1);
        reply.hijack();
        const res = reply.raw;
        // The connection ends with the stream (a reconnect opens a new one), so shutting down
        // never waits on an idle keep-alive socket.
        res.writeHead(200, { ...SSE_HEADERS, connection: 'close' });
        // Writes never wait for a slow reader: its backlog is bounded, then it is cut off. A
        // socket's own buffer fills at 16 KiB (TLS's too) under any burst; a reader is sent more
        // live until LIVE_BUFFER_BYTES wait, then catches up from the store as it drains.
        const write = (chunk: string): boolean => {
          if (res.destroyed) return false;
          res.write(chunk);
          if (res.writableLength > MAX_BUFFERED_BYTES) {
            res.destroy();
            return false;
          }
          return res.writableLength < LIVE_BUFFER_BYTES;
        };
        // A reader behind the stream is sent more as it takes what it has (the hub catches it
        // up from the store); one that takes nothing for two heartbeats is cut off and resumes
        // with Last-Event-ID.
        const drained = () =>
          new Promise<void>((resolve) => {
            if (res.destroyed) return resolve();
            const stalled = setTimeout(() => res.destroy(), 2 * heartbeatMs);
            const done = () => {
              clearTimeout(stalled);
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        write('retry: 2000\n: connected\n\n');
        const unsubscribe = hub.subscribe(
          {
            workspaceId: p.workspaceId,
            environment: p.environment,
            types: types ? new Set(types) : null,
            campaigns: req.query.campaigns,
            agentId: p.agent.id,
            sessionId: p.sessionId,
            write,
            drained,
            end: () => res.end(),
          },
          last === undefined ? null : Number(last),
        );
        const heartbeat = setInterval(() => write(': ping\n\n'), heartbeatMs);
        // A signed-in member's stream is their presence (an API key's is nobody's).
        const present = presenceClient(p);
        if (present) presence.streamOpened(present);
        res.on('close', () => {
          clearInterval(heartbeat);
          unsubscribe();
          if (present) presence.streamClosed(present);
          const n = (open.get(who) ?? 1) - 1;
          if (n > 0) open.set(who, n);
          else open.delete(who);
        });
      },
    );
  };
