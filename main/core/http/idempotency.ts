import type { Database as Db } from 'better-sqlite3';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { createHash } from 'node:crypto';
import { ApiError } from '../../../shared/errors.ts';
import type { ProcessOwner } from '../jobs/owner.ts';
import type { Clock } from '../runtime.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

interface Pending {
  scope: string;
  key: string;
  /** null for a streamed body until the route has read it (bindStreamedBody). */
  hash: string | null;
  /** An async handler's key is reserved up front (its effect comes after an await). */
  reserved: boolean;
  /** The response is stored (with the effect) or nothing is left to do. */
  settled: boolean;
}

interface StoredRow {
  request_hash: string;
  status: number;
  headers: string;
  body: string;
  created_at: number;
  owner: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: Pending | null;
  }
  interface FastifyInstance {
    /** See CommitWithResponse: an async handler's final write, stored with its response. */
    commitWithResponse: CommitWithResponse;
    /**
     * For a streamed body (a CSV upload), whose hash is known only once the route has read it:
     * returns the key's stored answer (the route replays it) or reserves the key (null).
     */
    bindStreamedBody(req: FastifyRequest, bodyHash: string): StoredAnswer | null;
  }
  interface FastifyContextConfig {
    /** Set on async POST routes: their Idempotency-Key is reserved before the handler runs. */
    reservesIdempotencyKey?: boolean;
  }
}

/** Runs a request's effect and stores its response in the same transaction (see below). */
export type CommitWithResponse = <T>(
  req: FastifyRequest,
  reply: FastifyReply,
  effect: () => T,
  stored?: (result: T) => { body: string; contentType: string },
) => T | FastifyReply;

/** An answer stored under an Idempotency-Key. */
export interface StoredAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends a stored answer as a replay. */
export function sendStored(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  return reply
    .code(answer.status)
    .headers({ 'content-type': answer.contentType, 'idempotent-replayed': 'true' })
    .send(answer.body);
}

/** A request body the route reads as a stream (its content is hashed as it is read). */
export interface StreamedBody {
  readonly streamed: true;
}
const isStreamed = (body: unknown): body is StreamedBody =>
  typeof body === 'object' && body !== null && (body as { streamed?: unknown }).streamed === true;

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/**
 * `Idempotency-Key` on POST (design.md §3): the same key with the same request within 24 h
 * replays the first response; with a different request → 409 idempotency_conflict.
 *
 * The response is stored in the transaction that commits the request's effect, so after a
 * crash a key either has its response (the effect happened: replay it) or nothing (it did not:
 * a retry runs). Synchronous handlers get this by being wrapped; async handlers (a DNS check, a
 * streamed upload) reserve the key first and call `commitWithResponse` around their final write.
 * A reservation names its process: one left by a process that died is released, so a retry runs.
 * Errors change nothing and are never stored, so a corrected retry with the same key runs.
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Db,
  clock: Clock,
  owner: ProcessOwner,
): CommitWithResponse {
  const find = db.prepare(
    'SELECT request_hash, status, headers, body, created_at, owner FROM idempotency_keys WHERE scope = ? AND key = ?',
  );
  const reserve = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, created_at, owner)
     VALUES (?, ?, ?, 0, '{}', '', ?, ?)`,
  );
  const store = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, created_at, owner)
     VALUES (@scope, @key, @hash, @status, @headers, @body, @now, NULL)
     ON CONFLICT (scope, key) DO UPDATE SET status = @status, headers = @headers, body = @body, owner = NULL`,
  );
  const release = db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?');

  app.decorateRequest('idempotency', null);

  /**
   * What a key already holds: a response to replay, a live reservation (409), or nothing (a
   * stale or dead entry is cleared). Inside a transaction.
   */
  function prior(p: Pending & { hash: string }): StoredRow | null {
    const row = find.get(p.scope, p.key) as StoredRow | undefined;
    if (!row) return null;
    const stale = row.created_at < clock.now() - IDEMPOTENCY_WINDOW_MS;
    const orphaned = row.status === 0 && row.owner !== null && !owner.isAlive(row.owner);
    if (stale || orphaned) {
      release.run(p.scope, p.key);
      return null;
    }
    if (row.request_hash !== p.hash) {
      throw new ApiError(
        'idempotency_conflict',
        'this Idempotency-Key was used with a different request',
      );
    }
    if (row.status === 0) {
      throw new ApiError(
        'idempotency_conflict',
        'a request with this Idempotency-Key is still in progress',
      );
    }
    return row;
  }

  const replay = (reply: FastifyReply, row: StoredRow) =>
    reply
      .code(row.status)
      .headers({
        ...(JSON.parse(row.headers) as Record<string, string>),
        'idempotent-replayed': 'true',
      })
      .send(row.body);

  const commitWithResponse: CommitWithResponse = (req, reply, effect, stored) => {
    const p = req.idempotency;
    if (!p || p.settled) return effect();
    const hash = p.hash;
    if (hash === null) throw new Error('a streamed body must be bound before its commit');
    const out = db
      .transaction(() => {
        if (!p.reserved) {
          const row = prior({ ...p, hash });
          if (row) return { row };
        }
        const result = effect();
        if (isThenable(result)) {
          throw new Error('commitWithResponse needs a synchronous effect');
        }
        // A handler that sent its own reply (a raw body) is stored by the onSend hook instead.
        if (result !== reply) {
          const s = stored?.(result) ?? {
            body: JSON.stringify(result),
            contentType: 'application/json; charset=utf-8',
          };
          store.run({
            scope: p.scope,
            key: p.key,
            hash,
            status: reply.statusCode,
            headers: JSON.stringify({ 'content-type': s.contentType }),
            body: s.body,
            now: clock.now(),
          });
          p.settled = true;
        }
        return { result };
      })
      .immediate();
    if ('row' in out) {
      p.settled = true;
      return replay(reply, out.row!);
    }
    return out.result as ReturnType<typeof effect>;
  };

  app.decorate('commitWithResponse', commitWithResponse);
  app.decorate('bindStreamedBody', (req: FastifyRequest, bodyHash: string): StoredAnswer | null => {
    const p = req.idempotency;
    if (!p || p.settled || p.hash !== null) return null;
    const hash = createHash('sha256')
      .update(`${req.method} ${req.url}\n${String(req.headers.accept ?? '')}\n${bodyHash}`)
      .digest('hex');
    p.hash = hash;
    const found = db
      .transaction(() => {
        const row = prior({ ...p, hash });
        if (!row) reserve.run(p.scope, p.key, hash, clock.now(), owner.id);
        return row;
      })
      .immediate();
    if (found) {
      p.settled = true;
      const headers = JSON.parse(found.headers) as Record<string, string>;
      return {
        status: found.status,
        contentType: headers['content-type'] ?? 'application/json',
        body: found.body,
      };
    }
    p.reserved = true;
    return null;
  });

  // Every POST route: a synchronous handler runs inside commitWithResponse; an async one is
  // marked so its key is reserved before it starts.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    const handler = route.handler;
    if (handler.constructor.name === 'AsyncFunction') {
      route.config = { ...route.config, reservesIdempotencyKey: true };
      return;
    }
    route.handler = function (this: unknown, req, reply) {
      return commitWithResponse(req, reply, () => handler.call(this as never, req, reply));
    } as RouteHandlerMethod;
  });

  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'POST') return;
    const raw = req.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined) return;
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new ApiError(
        'validation_error',
        'Idempotency-Key must be 1–255 visible ASCII characters',
        { param: 'Idempotency-Key' },
      );
    }
    const pr = req.principal;
    const body = req.body;
    const p: Pending = {
      scope: pr.keyId ?? `session:${pr.workspaceId}:${pr.environment}`,
      key,
      hash: null,
      reserved: false,
      settled: false,
    };
    req.idempotency = p;
    // However the request ends (an error, a hijacked stream, a dropped client), an unsettled
    // reservation is released so a retry runs.
    reply.raw.once('close', () => {
      if (p.settled || !p.reserved || !db.open) return;
      p.settled = true;
      release.run(p.scope, p.key);
    });
    if (isStreamed(body)) return; // the route binds the body once it has read it
    const hash = createHash('sha256')
      .update(
        `${req.method} ${req.url}\n${typeof body === 'string' ? body : JSON.stringify(body ?? null)}`,
      )
      .digest('hex');
    p.hash = hash;
    const reserves = req.routeOptions.config.reservesIdempotencyKey === true;
    const found = db
      .transaction(() => {
        const row = prior({ ...p, hash });
        if (!row && reserves) reserve.run(p.scope, p.key, hash, clock.now(), owner.id);
        return row;
      })
      .immediate();
    if (found) {
      p.settled = true;
      return replay(reply, found);
    }
    p.reserved = reserves;
  });

  // A reserved key whose handler answered without commitWithResponse: store a success (its
  // effect has committed by now), release anything else so a retry runs.
  app.addHook('onSend', async (req, reply, payload) => {
    const p = req.idempotency;
    if (!p || p.settled) return payload;
    // A streamed answer (NDJSON) commits its effect later, through commitWithResponse.
    if (reply.statusCode < 300 && typeof payload !== 'string' && p.reserved) return payload;
    p.settled = true;
    if (p.hash === null) return payload; // a streamed body never bound: nothing to store
    if (reply.statusCode < 300 && typeof payload === 'string') {
      store.run({
        scope: p.scope,
        key: p.key,
        hash: p.hash,
        status: reply.statusCode,
        headers: JSON.stringify({ 'content-type': String(reply.getHeader('content-type') ?? '') }),
        body: payload,
        now: clock.now(),
      });
    } else if (p.reserved) {
      release.run(p.scope, p.key);
    }
    return payload;
  });

  return commitWithResponse;
}
