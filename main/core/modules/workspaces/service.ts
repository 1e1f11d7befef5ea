import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import {
  DISPLAY_NAME_MAX,
  displayNameRule,
  type WorkspaceSettings,
} from '../../../../shared/schemas/workspace-settings.ts';
import type { BusinessAccount, Workspace } from '../../../../shared/schemas/workspaces.ts';
import type { Clock, IdGenerator } from '../../runtime.ts';
import { iso } from '../../runtime.ts';
import type { BusinessAccountRow, WorkspaceRow } from './repo.ts';
import { workspacesRepo } from './repo.ts';

/** shared/schemas/workspace-settings.ts: one record, read at each use (in force at once). */
export type { WorkspaceSettings };

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

/**
 * A name checked by the shared rule (the PATCH body's, so the CLI and other callers of the
 * service get the same answer): trimmed, or a 400 naming the field.
 */
function displayName(field: 'name' | 'businessAccountName', value: string): string {
  const checked = displayNameRule(field).safeParse(value);
  if (!checked.success) {
    throw new ApiError('validation_error', checked.error.issues[0]!.message, { param: field });
  }
  return checked.data;
}

export function workspacesService(db: Db, clock: Clock, ids: IdGenerator) {
  const repo = workspacesRepo(db);
  const service = {
    create(name: string): Workspace {
      const trimmed = displayName('name', name);
      const row: WorkspaceRow = { id: ids('ws'), name: trimmed, created_at: clock.now() };
      const account = `${trimmed} business account`;
      repo.create(
        row,
        ids('waba'),
        account.length <= DISPLAY_NAME_MAX ? account : trimmed,
        ids('mem'),
      );
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
    /** The first start of an empty data dir creates workspace "Default" (README "The parley command"). */
    ensureDefault(): void {
      db.transaction(() => {
        if (!repo.first()) service.create('Default');
      }).immediate();
    },
    settings(workspaceId: string): WorkspaceSettings {
      const r = repo.settings(workspaceId);
      if (!r) throw new ApiError('not_found', `no workspace ${workspaceId}`);
      return {
        name: r.name,
        businessAccountName: r.business_account_name,
        allowPrivateWebhooks: r.allow_private_webhooks === 1,
        lowBalanceThresholdMicros: r.low_balance_threshold_micros,
        autoAssign: r.auto_assign === 1,
        assignOnFirstReply: r.assign_on_first_reply === 1,
        publicUrl: r.public_url,
      };
    },
    updateSettings(workspaceId: string, patch: Partial<WorkspaceSettings>): WorkspaceSettings {
      const name = patch.name === undefined ? undefined : displayName('name', patch.name);
      const accountName =
        patch.businessAccountName === undefined
          ? undefined
          : displayName('businessAccountName', patch.businessAccountName);
      db.transaction(() => {
        if (name !== undefined) repo.setName(workspaceId, name);
        if (accountName !== undefined) repo.setAccountName(workspaceId, accountName);
        if (patch.allowPrivateWebhooks !== undefined)
          repo.setPrivate(workspaceId, patch.allowPrivateWebhooks ? 1 : 0);
        if (patch.lowBalanceThresholdMicros !== undefined)
          repo.setThreshold(workspaceId, patch.lowBalanceThresholdMicros);
        if (patch.autoAssign !== undefined || patch.assignOnFirstReply !== undefined) {
          const flag = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0);
          repo.setAssignment(workspaceId, flag(patch.autoAssign), flag(patch.assignOnFirstReply));
        }
        if (patch.publicUrl !== undefined)
          repo.setPublicUrl(workspaceId, patch.publicUrl?.replace(/\/+$/, '') || null);
      })();
      return service.settings(workspaceId);
    },
    activeAccount(workspaceId: string): BusinessAccount {
      const row = repo.activeAccount(workspaceId);
      if (!row) throw new ApiError('not_found', 'the workspace has no active business account');
      return toBusinessAccount(row);
    },
    /**
     * The limits the governor holds an environment's sends to: a live account connected to the
     * Cloud API uses the tier and throughput its provider reported (on connect and sync), else
     * the account's own (the simulator's).
     */
    limitsFor(
      workspaceId: string,
      environment: 'test' | 'live',
    ): { account: BusinessAccount; throughputMps: number; messagingTier: number | null } {
      const account = service.activeAccount(workspaceId);
      const provider = environment === 'live' ? repo.providerLimits(account.id) : undefined;
      return {
        account,
        throughputMps: provider?.provider_mps ?? account.throughputMps,
        messagingTier: provider?.tier_known ? provider.provider_tier : account.messagingTier,
      };
    },
  };
  return service;
}
export type WorkspacesService = ReturnType<typeof workspacesService>;
