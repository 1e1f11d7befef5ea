import { ApiError } from '../../../../shared/errors.ts';
import { EVENT_TYPES, eventsQuery } from '../../../../shared/schemas/events.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const KNOWN = new Set<string>(EVENT_TYPES);

/** `GET /events`: the agent event stream (SSE), resumable with Last-Event-ID. */
export const eventsRoutes =
  (heartbeatMs: number): RegisterRoutes =>
  (app, { hub }) => {
    app.get(
      '/events',
      {
        schema: {
          tags: ['Events'],
          summary: 'The agent event stream (Server-Sent Events)',
          description:
            'Each event: `id: <sequence>`, `event: <type>`, `data: {id, type, createdAt, workspaceId, environment, data}`. Reconnect with `Last-Event-ID` to resume without gaps or duplicates. A `: ping` comment comes at least every 15 s. Filter with `?types=message.received,message.read`.',
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
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        res.write('retry: 2000\n: connected\n\n');
        const unsubscribe = hub.subscribe(
          {
            workspaceId: req.principal.workspaceId,
            environment: req.principal.environment,
            types: types ? new Set(types) : null,
            write: (chunk) => res.write(chunk),
            end: () => res.end(),
          },
          last === undefined ? null : Number(last),
        );
        const heartbeat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
        res.on('close', () => {
          clearInterval(heartbeat);
          unsubscribe();
        });
      },
    );
  };
