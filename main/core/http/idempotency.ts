import type { Database as Db } from 'better-sqlite3';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { ApiError } from '../../../shared/errors.ts';
import type { Clock } from '../runtime.ts';

const WINDOW_MS = 24 * 60 * 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { scope: string; key: string } | null;
  }
}

/**
 * `Idempotency-Key` on POST (design.md §3): the same key with the same request within 24 h
 * replays the first response; with a different request → 409 idempotency_conflict. A key is
 * reserved while its first request runs, so a concurrent duplicate cannot run twice.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, clock: Clock) {
  const find = db.prepare(
    'SELECT request_hash, status, headers, body, created_at FROM idempotency_keys WHERE scope = ? AND key = ?',
  );
  const reserve = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, created_at)
     VALUES (?, ?, ?, 0, '{}', '', ?)`,
  );
  const complete = db.prepare(
    'UPDATE idempotency_keys SET status = ?, headers = ?, body = ? WHERE scope = ? AND key = ?',
  );
  const release = db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?');

  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'POST') return;
    const raw = req.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined) return;
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new ApiError(
        'validation_error',
        'Idempotency-Key must be 1–255 visible ASCII characters',
        {
          param: 'Idempotency-Key',
        },
      );
    }
    const p = req.principal;
    const scope = p.keyId ?? `session:${p.workspaceId}:${p.environment}`;
    const hash = createHash('sha256')
      .update(
        `${req.method} ${req.url}\n${typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? null)}`,
      )
      .digest('hex');
    const now = clock.now();
    const replay = db
      .transaction(() => {
        const prior = find.get(scope, key) as
          | {
              request_hash: string;
              status: number;
              headers: string;
              body: string;
              created_at: number;
            }
          | undefined;
        if (prior && prior.created_at < now - WINDOW_MS) {
          release.run(scope, key);
        } else if (prior) {
          if (prior.request_hash !== hash) {
            throw new ApiError(
              'idempotency_conflict',
              'this Idempotency-Key was used with a different request',
            );
          }
          if (prior.status === 0) {
            throw new ApiError(
              'idempotency_conflict',
              'a request with this Idempotency-Key is still in progress',
            );
          }
          return prior;
        }
        reserve.run(scope, key, hash, now);
        return null;
      })
      .immediate();
    if (replay) {
      reply
        .code(replay.status)
        .headers({
          ...(JSON.parse(replay.headers) as Record<string, string>),
          'idempotent-replayed': 'true',
        })
        .send(replay.body);
      return reply;
    }
    req.idempotency = { scope, key };
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem) return payload;
    req.idempotency = null;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      release.run(idem.scope, idem.key); // not stored: the client may retry with the same key
    } else {
      const type = reply.getHeader('content-type');
      complete.run(
        reply.statusCode,
        JSON.stringify(type ? { 'content-type': String(type) } : {}),
        payload,
        idem.scope,
        idem.key,
      );
    }
    return payload;
  });

  // A request that dies without a response must not leave its key reserved.
  app.addHook('onResponse', async (req) => {
    if (req.idempotency) release.run(req.idempotency.scope, req.idempotency.key);
  });
}
