import type { Database as Db } from 'better-sqlite3';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
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
    /**
     * Replaces a committed answer with the request's final one (a live send's 202 by the
     * provider's verdict), so a retry of the key replays what the client should have heard.
     */
    amendStoredAnswer(req: FastifyRequest, status: number, body: string): void;
  }
  interface FastifyContextConfig {
    /** Set on async POST routes: their Idempotency-Key is reserved before the handler runs. */
    reservesIdempotencyKey?: boolean;
    /**
     * The answer holds a secret shown only once (a created API key, a workflow's signing secret):
     * what of it is stored for the key (the secret left out). A replay then answers 409
     * `idempotency_conflict` with that in `details`, never the secret (README "Data, backups and
     * security").
     */
    secretAnswer?: (answer: unknown) => Record<string, unknown>;
  }
}

/**
 * A route's `secretAnswer` for an answer whose `field` is a secret shown once: the answer as
 * stored for its Idempotency-Key is the record without that field.
 */
export const storedWithout =
  (field: string) =>
  (answer: unknown): Record<string, unknown> => {
    const { [field]: _secret, ...record } = answer as Record<string, unknown>;
    return record;
  };

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
 * `Idempotency-Key` on POST (README "API"): the same key with the same request within 24 h
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
  log: (message: string) => void,
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
  const amend = db.prepare(
    'UPDATE idempotency_keys SET status = ?, body = ? WHERE scope = ? AND key = ? AND owner IS NULL',
  );
  const releaseOwn = db.prepare(
    'DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND status = 0 AND owner = ?',
  );

  /** The handler is done and nothing was stored: free its reservation so a retry runs. */
  const settle = (p: Pending) => {
    if (p.settled) return;
    p.settled = true;
    if (p.reserved && db.open) releaseOwn.run(p.scope, p.key, owner.id);
  };

  app.decorateRequest('idempotency', null);

  /**
   * What a key already holds: a response to replay, a live reservation (409), or nothing (a
   * stale or dead entry is cleared). Inside a transaction.
   */
  function prior(p: Pending & { hash: string }): StoredRow | null {
    const row = find.get(p.scope, p.key) as StoredRow | undefined;
    if (!row) return null;
    const stale = row.created_at < clock.now() - IDEMPOTENCY_WINDOW_MS;
    // A reservation without an owner predates owners (an older version): treat it as orphaned.
    const orphaned = row.status === 0 && (row.owner === null || !owner.isAlive(row.owner));
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

  const answerOf = (row: StoredRow): StoredAnswer => ({
    status: row.status,
    contentType:
      (JSON.parse(row.headers) as Record<string, string>)['content-type'] ?? 'application/json',
    body: row.body,
  });
  const replay = (reply: FastifyReply, row: StoredRow) => {
    if (reply.request.routeOptions.config.secretAnswer) {
      throw new ApiError(
        'idempotency_conflict',
        'the first request with this Idempotency-Key succeeded; its answer held a secret that is shown only once, so it is not replayed (details.created: what it made, without the secret; a lost secret is replaced by making a new one: another API key, or a rotated workflow secret)',
        { details: { created: JSON.parse(row.body) as unknown } },
      );
    }
    return sendStored(reply, answerOf(row));
  };

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
        if (result === reply) {
          // Its body went out as raw bytes we cannot store with the effect.
          throw new Error('a POST handler must return its answer, not send it, to be idempotent');
        }
        // A route whose answer holds a secret stores it without (its `secretAnswer`).
        const secretAnswer = req.routeOptions.config.secretAnswer;
        const s = stored?.(result) ?? {
          body: JSON.stringify(secretAnswer ? secretAnswer(result) : result),
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
  app.decorate('amendStoredAnswer', (req: FastifyRequest, status: number, body: string) => {
    const p = req.idempotency;
    if (p?.settled) amend.run(status, body, p.scope, p.key);
  });
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
      return answerOf(found);
    }
    p.reserved = true;
    return null;
  });

  // Every POST route: a synchronous handler runs inside commitWithResponse; an async one has
  // its key reserved before it starts and calls commitWithResponse around its final write.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    const handler = route.handler;
    if (handler.constructor.name === 'AsyncFunction') {
      // Its reservation lasts as long as the handler runs (and the answer it streams), not as
      // long as the client waits: a client that gives up and retries gets 409 "in progress",
      // then the stored answer — never a second effect.
      route.config = { ...route.config, reservesIdempotencyKey: true };
      route.handler = async function (this: unknown, req: FastifyRequest, reply: FastifyReply) {
        try {
          const result: unknown = await handler.call(this as never, req, reply);
          const p = req.idempotency;
          if (p && !p.settled) {
            if (result instanceof Readable) result.once('close', () => settle(p));
            else {
              settle(p);
              if (p.reserved && reply.statusCode < 300) {
                log(`${req.method} ${req.url} committed without commitWithResponse`);
              }
            }
          }
          return result;
        } catch (e) {
          if (req.idempotency) settle(req.idempotency);
          throw e;
        }
      } as RouteHandlerMethod;
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
    // A public route (sign-in, an invite's acceptance) has no caller to keep answers for.
    if (!pr) return;
    const body = req.body;
    const p: Pending = {
      // A key's answers are the key's; a member's are theirs, per workspace and environment.
      scope: pr.keyId ?? `member:${pr.member?.id ?? 'desk'}:${pr.workspaceId}:${pr.environment}`,
      key,
      hash: null,
      reserved: false,
      settled: false,
    };
    req.idempotency = p;
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

  return commitWithResponse;
}
