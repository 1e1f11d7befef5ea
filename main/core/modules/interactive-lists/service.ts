import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import type { ListContent } from '../../../../shared/list-rules.ts';
import { listProblems } from '../../../../shared/list-rules.ts';
import type {
  InteractiveList,
  ListContentBody,
  UpdateListBody,
} from '../../../../shared/schemas/interactive-lists.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import type { ListRowRecord } from './repo.ts';
import { listsRepo } from './repo.ts';

export const toList = (r: ListRowRecord): InteractiveList => ({
  id: r.id,
  name: r.name,
  header: r.header,
  body: r.body,
  footer: r.footer,
  buttonText: r.button_text,
  sections: JSON.parse(r.sections) as InteractiveList['sections'],
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** Empty optional texts are absent; rows always carry a description (null when none). */
function normalise(body: ListContentBody): ListContent & { sections: InteractiveList['sections'] } {
  const opt = (v: string | null | undefined) => (v && v.trim() !== '' ? v : null);
  return {
    name: body.name.trim(),
    header: opt(body.header),
    body: body.body,
    footer: opt(body.footer),
    buttonText: body.buttonText,
    sections: body.sections.map((s) => ({
      title: s.title,
      rows: s.rows.map((r) => ({ id: r.id, title: r.title, description: opt(r.description) })),
    })),
  };
}

/** The first rule a list breaks, as the API error naming its field. */
function requireValid(list: ListContent) {
  const problem = listProblems(list)[0];
  if (problem) throw new ApiError(problem.code, problem.message, { param: problem.param });
}

/**
 * Interactive lists (README "API"): saved per scope, checked against the spec's limits (the
 * shared rules the editor checks too), sent inside the service window by the messages service,
 * which keeps a copy of the list as it was in each message.
 */
export function interactiveListsService(db: Db, clock: Clock, ids: IdGenerator) {
  const repo = listsRepo(db);

  function find(scope: Scope, id: string, param = 'id'): ListRowRecord {
    const row = repo.get(scope, id);
    if (!row) throw new ApiError('not_found', `no interactive list ${id}`, { param });
    return row;
  }

  const toRecord = (
    scope: Scope,
    id: string,
    list: ReturnType<typeof normalise>,
    createdAt: number,
  ): ListRowRecord => ({
    id,
    workspace_id: scope.workspaceId,
    environment: scope.environment,
    name: list.name,
    header: list.header ?? null,
    body: list.body,
    footer: list.footer ?? null,
    button_text: list.buttonText,
    sections: JSON.stringify(list.sections),
    created_at: createdAt,
    updated_at: clock.now(),
  });

  return {
    repo,
    /** A list of the scope by id, or 404 naming `param`. */
    find: (scope: Scope, id: string, param?: string) => toList(find(scope, id, param)),

    create(scope: Scope, body: ListContentBody): InteractiveList {
      const list = normalise(body);
      requireValid(list);
      const row = toRecord(scope, ids('lst'), list, clock.now());
      repo.insert(row);
      return toList(row);
    },

    update(scope: Scope, body: UpdateListBody): InteractiveList {
      return db
        .transaction(() => {
          const current = toList(find(scope, body.id));
          const { id, ...changes } = body;
          const list = normalise({
            ...current,
            ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)),
          } as ListContentBody);
          requireValid(list);
          const row = toRecord(scope, id, list, Date.parse(current.createdAt));
          repo.update(row);
          return toList(row);
        })
        .immediate();
    },

    get: (scope: Scope, id: string) => toList(find(scope, id)),

    list(scope: Scope, q: { limit: number; cursor?: string }) {
      const rows = repo.page({
        workspaceId: scope.workspaceId,
        environment: scope.environment,
        cursor: q.cursor ? decodeCursor(q.cursor) : null,
        limit: q.limit + 1,
      });
      return toPage(rows, q.limit, toList, (r) => r.id);
    },

    /** Deletes a list; messages that sent it keep their copy. */
    remove(scope: Scope, id: string) {
      find(scope, id);
      repo.remove(id);
      return { success: true as const, id };
    },
  };
}
export type InteractiveListsService = ReturnType<typeof interactiveListsService>;
