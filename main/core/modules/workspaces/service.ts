import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import type { BusinessAccount, Workspace } from '../../../../shared/schemas/workspaces.ts';
import type { Clock, IdGenerator } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import type { BusinessAccountRow, WorkspaceRow } from './repo.ts';
import { workspacesRepo } from './repo.ts';

export const toWorkspace = (r: WorkspaceRow): Workspace => ({
  id: r.id,
  name: r.name,
  createdAt: iso(r.created_at),
});

export const toBusinessAccount = (r: BusinessAccountRow): BusinessAccount => ({
  id: r.id,
  name: r.name,
  active: r.active === 1,
  messagingTier: r.messaging_tier,
  throughputMps: r.throughput_mps,
});

export function workspacesService(db: Db, clock: Clock, ids: IdGenerator) {
  const repo = workspacesRepo(db);
  const service = {
    create(name: string): Workspace {
      const trimmed = name.trim();
      if (!trimmed || trimmed.length > 100) {
        throw new ApiError('validation_error', 'workspace name must be 1 to 100 characters', {
          param: 'name',
        });
      }
      const row: WorkspaceRow = { id: ids('ws'), name: trimmed, created_at: clock.now() };
      repo.create(row, ids('waba'), `${trimmed} business account`);
      return toWorkspace(row);
    },
    list: (): Workspace[] => repo.list().map(toWorkspace),
    get(id: string): Workspace {
      const row = repo.get(id);
      if (!row) throw new ApiError('not_found', `no workspace ${id}`);
      return toWorkspace(row);
    },
    /** The workspace commands act on when none is named: the first one. */
    resolve(id?: string): Workspace {
      if (id) return service.get(id);
      const row = repo.first();
      if (!row) throw new ApiError('not_found', 'there is no workspace yet');
      return toWorkspace(row);
    },
    /** The first start of an empty data dir creates workspace "Default" (design.md §2). */
    ensureDefault(): void {
      db.transaction(() => {
        if (!repo.first()) service.create('Default');
      }).immediate();
    },
    activeAccount(workspaceId: string): BusinessAccount {
      const row = repo.activeAccount(workspaceId);
      if (!row) throw new ApiError('not_found', 'the workspace has no active business account');
      return toBusinessAccount(row);
    },
  };
  return service;
}
export type WorkspacesService = ReturnType<typeof workspacesService>;
