import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import { parsePlaceholders, PLACEHOLDER_HELP } from '../../../../shared/placeholders.ts';
import type { CannedReply, CannedReplyBody } from '../../../../shared/schemas/canned-replies.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import type { CannedReplyRow } from './repo.ts';
import { cannedRepliesRepo } from './repo.ts';

const toCannedReply = (r: CannedReplyRow): CannedReply => ({
  id: r.id,
  shortcut: r.shortcut,
  text: r.text,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/**
 * Canned replies (issue 8): saved answers an agent inserts by typing `/shortcut` in the composer,
 * their `{{contact.*}}` placeholders filled from the conversation's contact. The placeholder rule
 * lives in shared/placeholders.ts, so what is accepted here is exactly what the composer fills.
 */
export function cannedRepliesService(deps: { db: Db; clock: Clock; ids: IdGenerator }) {
  const { db, clock, ids } = deps;
  const repo = cannedRepliesRepo(db);

  function require(scope: Scope, id: string): CannedReplyRow {
    const row = repo.get(scope, id);
    if (!row) throw new ApiError('not_found', `no canned reply ${id}`);
    return row;
  }

  /** The rules zod cannot see: placeholders are known ones, the shortcut is free in the scope. */
  function check(scope: Scope, body: CannedReplyBody, id: string | null) {
    const { unknown } = parsePlaceholders(body.text);
    if (unknown.length > 0) {
      throw new ApiError(
        'validation_error',
        `unknown placeholder ${unknown[0]}: use ${PLACEHOLDER_HELP}`,
        { param: 'text', details: { unknownPlaceholders: [...new Set(unknown)] } },
      );
    }
    const taken = repo.byShortcut(scope, body.shortcut);
    if (taken && taken.id !== id) {
      throw new ApiError('validation_error', `a canned reply /${body.shortcut} exists already`, {
        param: 'shortcut',
      });
    }
  }

  return {
    list(scope: Scope, q: { limit: number; cursor?: string; q?: string }) {
      const after = q.cursor ? decodeCursor(q.cursor) : null;
      // Control characters mean nothing in a search box.
      const text = q.q?.replace(/\p{Cc}+/gu, ' ').trim() || null;
      const rows = repo.list(scope, text, after, q.limit + 1);
      return toPage(rows, q.limit, toCannedReply, (r) => r.shortcut);
    },

    get: (scope: Scope, id: string): CannedReply => toCannedReply(require(scope, id)),

    create(scope: Scope, body: CannedReplyBody): CannedReply {
      return db
        .transaction(() => {
          check(scope, body, null);
          const now = clock.now();
          const row: CannedReplyRow = {
            id: ids('cr'),
            workspace_id: scope.workspaceId,
            environment: scope.environment,
            shortcut: body.shortcut,
            text: body.text,
            created_at: now,
            updated_at: now,
          };
          repo.insert(row);
          return toCannedReply(row);
        })
        .immediate();
    },

    update(scope: Scope, id: string, body: CannedReplyBody): CannedReply {
      return db
        .transaction(() => {
          const row = require(scope, id);
          check(scope, body, id);
          const next: CannedReplyRow = {
            ...row,
            shortcut: body.shortcut,
            text: body.text,
            updated_at: clock.now(),
          };
          repo.update(next);
          return toCannedReply(next);
        })
        .immediate();
    },

    remove(scope: Scope, id: string): { success: true; id: string } {
      return db
        .transaction(() => {
          require(scope, id);
          repo.remove(id);
          return { success: true as const, id };
        })
        .immediate();
    },
  };
}
export type CannedRepliesService = ReturnType<typeof cannedRepliesService>;
